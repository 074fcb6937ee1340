"""The search, run in a child process (``python -m check_reducer.worker JOB.json``).

It limits its own memory first, imports the user's reducer, settles the
domains, runs the engines and writes the report (a JSON-able dict, the
``--json`` output) to the job's result file. It writes which law and engine it
is at to the job's progress file, so that the parent can say where a run that
it had to kill was. The user's prints go to stderr, never into the result.
"""

from __future__ import annotations

import dataclasses
import json
import os
import resource
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from check_reducer import exhaustive, property_search, symbolic
from check_reducer.domains import SYNTAX_HELP, Domain, DomainError, parse_domain, with_initial
from check_reducer.laws import KEY, LAWS, Equality, Law
from check_reducer.purity import guarded
from check_reducer.search import FOUND, Bounds, EngineResult, Finding, Problem, time_limit
from check_reducer.shapes import (
    TargetError,
    declared_carriers,
    infer_domains,
    load_reducer,
)
from check_reducer.verdicts import (
    EXPLAIN_SECONDS,
    LawVerdict,
    Witness,
    all_verdicts,
    theorem2_witness,
    verdict_of,
    witness_line,
    witness_parts,
)

ENGINES = ("exhaustive", "hypothesis", "crosshair")
#: the --json format's name and version (2: the exit status is the paper's verdict; lines say
#: whether they count, and where their instance stands)
REPORT_FORMAT = "incspec-check-reducer/2"


@dataclass(frozen=True)
class Job:
    """Everything the search needs, as the command line gave it (see ``cli.py``)."""

    target: str
    values: str | None = None
    accumulators: str | None = None
    engines: tuple[str, ...] = ENGINES
    examples: int = 300
    seed: int = 0
    bag: int = 3
    exhaustive_total: int = 3
    exhaustive_cap: int = 20_000
    rel_tol: float = 0.0
    abs_tol: float = 0.0
    call_timeout: float = 2.0
    crosshair_per_condition: float = 4.0
    crosshair_total: float = 40.0
    crosshair_iterations: int | None = None
    memory_mb: int = 2048
    strict: bool = False  # the stronger laws, and failures no runtime meets, count too
    timeout: float = 300.0  # the parent kills the search after this (wall-clock seconds)
    search_until: float = 0.0  # time.time() when the engines must stop (set by the parent)
    progress_file: str = ""
    result_file: str = ""

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Job:
        fields = dict(data)
        fields["engines"] = tuple(fields.get("engines", ENGINES))
        return Job(**fields)


class UsageError(Exception):
    pass


def limit_memory(megabytes: int) -> None:
    if megabytes > 0:
        limit = megabytes * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _parse_flag(flag: str, text: str | None) -> Domain | None:
    """The domain a flag gives; any failure is a usage error naming the flag."""
    if not text:
        return None
    try:
        return parse_domain(text)
    except DomainError as exc:
        raise UsageError(f"{flag} {text!r}: {exc}") from exc
    except Exception as exc:  # the grammar should catch everything; say where if not
        raise UsageError(f"{flag} {text!r} cannot be read ({type(exc).__name__}: {exc}). "
                         f"{SYNTAX_HELP}") from exc


def _acc_example(initial: Any) -> str:
    """A --acc flag that would fit ``initial``'s type."""
    examples = {dict: "'dict[int,int]'", list: "'list[int]'", frozenset: "'frozenset[int]'",
                set: "'set[int]'", tuple: "'tuple[int,...]'", type(None): "'optional[int]'"}
    return "--acc " + examples.get(type(initial), "int")


def _acc_advice(initial: Any) -> str:
    """How to give the accumulator domain, for ``initial``'s type."""
    if type(initial) in (dict, list, frozenset, set, tuple, type(None), int, float, str, bool):
        return f"--acc DOMAIN (e.g. {_acc_example(initial)})"
    return (f"an attribute accumulators = [...] on the reducer (a finite list of "
            f"{type(initial).__name__} values to search, beside initial, add and remove)")


def settle_domains(job: Job, R: Any) -> tuple[Domain, Domain, list[str]]:
    """The value and accumulator domains: given, else inferred, else a clear usage error;
    with how each was settled and what was changed (``initial`` added to A)."""
    values = _parse_flag("--values", job.values)
    accs = _parse_flag("--acc", job.accumulators)
    how = []
    if values is not None:
        how.append("values given (--values)")
    if accs is not None:
        how.append("accumulators given (--acc)")
    if values is None or accs is None:
        declared_values, declared_accs = declared_carriers(job.target)
        if values is None and declared_values is not None:
            values = declared_values
            how.append("values: the carrier the target declares")
        if accs is None and declared_accs is not None:
            accs = declared_accs
            how.append("accumulators: the carrier the target declares")
    hints = {"value": "", "accumulator": ""}
    if values is None or accs is None:
        inferred = infer_domains(R)
        hints = {"value": inferred.values_hints, "accumulator": inferred.accumulators_hints}
        if values is None and inferred.values is not None:
            values = inferred.values
            how.append(f"values inferred: {inferred.values_how}")
        if accs is None and inferred.accumulators is not None:
            accs = inferred.accumulators
            how.append(f"accumulators inferred: {inferred.accumulators_how}")
    missing = [what for what, d in (("value", values), ("accumulator", accs)) if d is None]
    if missing or values is None or accs is None:
        raise UsageError(
            f"cannot infer the {' and '.join(missing)} domain of {job.target}: "
            + "; ".join(f"for the {m} domain, {hints[m]}" for m in missing)
            + " (none of these has a default domain: int, float, bool, str, Fraction, "
            "tuple[...], tuple[X, ...], list[X], frozenset[X], set[X], dict[K, X], "
            "Optional[X], Literal[...], and a dataclass, NamedTuple, TypedDict or Enum, over "
            "those). Say it with " + " and ".join(
                {"value": "--values DOMAIN (e.g. --values 'int[-5..5]')",
                 "accumulator": _acc_advice(R.initial)}[m]
                for m in missing)
            + f".\n{SYNTAX_HELP}")
    notes = []
    kinds = {type(a) for a in accs.sample()}
    if accs.contains(R.initial) is False:
        notes.append(f"initial = {R.initial!r} is not in the accumulator domain {accs.spec}: "
                     "it was added (every law quantified over A is searched at initial too)")
        if type(R.initial) not in kinds:  # e.g. --acc 'zset[...]' for a dict histogram
            notes.append(f"the accumulator domain {accs.spec} holds values of type "
                         f"{', '.join(sorted(k.__name__ for k in kinds))}, but initial is a "
                         f"{type(R.initial).__name__}: if add/remove raise on them, give a "
                         f"domain of {type(R.initial).__name__} values ({_acc_advice(R.initial)})")
        accs = with_initial(accs, R.initial)
    return values, accs, ["; ".join(how), *notes]


# --- serialising (the --json format) -----------------------------------------------


def show(value: Any, kind: str = "") -> str:
    """A value for people and machines: Python's repr; multisets as {|...|}."""
    if kind == "bag":
        return "{|" + ", ".join(repr(x) for x in sorted(value, key=repr)) + "|}"
    return repr(value)


def _finding(law: Law, f: Finding | None) -> dict[str, Any] | None:
    if f is None:
        return None
    kinds = dict(law.params)
    call = None if f.call is None else {"function": f.call.function, "acc": show(f.call.acc),
                                         "value": show(f.call.value)}
    return {"args": {k: show(v, kinds.get(k, "")) for k, v in f.args.items()},
            "sides": {k: show(v) for k, v in (f.sides or {}).items()} or None,
            "error": f.error, "call": call, "hung": f.hung}


def _engine(r: EngineResult) -> dict[str, Any]:
    return {"engine": r.engine, "status": r.status, "searched": r.searched, "cases": r.cases,
            "declined": r.declined, "decided": r.decided, "seconds": r.seconds, "notes": r.notes}


def _line(v: LawVerdict) -> dict[str, Any]:
    return {"id": v.law.spec_id, "key": v.law.key, "title": v.law.title,
            "statement": v.law.statement, "status": v.status, "decided": v.decided,
            "counts": v.counts, "met": v.met if v.bad else None,
            "found_by": v.found_by, "shown_by": v.shown_by,
            "counterexample": _finding(v.law, v.finding),
            "verdict": v.verdict.describe() if v.verdict is not None and v.verdict.holds else None,
            "declined": sum(r.declined for r in v.engines),
            "explanation": v.explanation, "engines": [_engine(r) for r in v.engines]}


def _witness(w: Witness | None) -> dict[str, Any] | None:
    if w is None:
        return None
    parts = witness_parts(w)
    return {"C": {repr(k): show(tuple(m.elements()), "bag") for k, m in parts["C"].items()},
            "delta_plus": {repr(k): show(tuple(m.elements()), "bag") for k, m in parts["delta_plus"].items()},
            "delta_minus": {repr(k): show(tuple(m.elements()), "bag") for k, m in parts["delta_minus"].items()},
            "key": repr(KEY), "recomputed": show(w.recomputed), "incremental": show(w.incremental),
            "source": w.source, "inverse_law_fails_at": _inverse(w)}


def _inverse(w: Witness) -> dict[str, str] | None:
    back = w.inverse_failure
    if back is None or back.M is None:
        return None
    return {"M": show(tuple(back.M.elements()), "bag"), "a": show(back.a), "v": show(back.v),
            "result": show(back.result)}


def error_report(target: str, kind: str, message: str) -> dict[str, Any]:
    """The report when no verdict could be reached (exit status 2)."""
    return {"format": REPORT_FORMAT, "target": target, "exit_status": 2,
            "error": {"kind": kind, "message": message}}


def sanity_check(R: Any, values: Domain, call_timeout: float) -> None:
    """Catch the commonest slip before searching: an add that returns None (a missing
    ``return``), which would make every law hold vacuously."""
    for v in values.sample()[:3]:
        try:
            with time_limit(call_timeout):
                result = R.add(R.initial, v)
        except Exception:
            return  # raised or hung: the engines report it with its input
        if result is None:
            raise UsageError(f"add(initial, {v!r}) returned None: add must return the new "
                             "accumulator (is a return statement missing?)")


#: the exit status of each verdict (:func:`check_reducer.verdicts.verdict_of`)
EXIT = {"well-formed": 0, "ill-formed": 1, "not checked": 2}


def exit_status(lines: Mapping[str, LawVerdict]) -> int:
    """0 well-formed on reachable accumulators and pure within the search, 1 not (a counted
    line fails, or add/remove raised or hung where a runtime goes), 2 when a counted line could
    not be checked at all.

    A counted line no engine could search ("not checked": e.g. ``--engines crosshair`` on a
    domain without a symbolic encoding) gives 2, not 0: a script must not read a property nobody
    searched as holding. Like a usage error, the fix is the caller's (another engine or domain);
    a counterexample still gives 1. Warnings (lines that do not count) never change it."""
    return EXIT[verdict_of(lines)]


def _declined_everywhere(results: list[EngineResult]) -> bool:
    """remove declined on every instance of the laws whose every instance calls it."""
    over_remove = [r for r in results
                   if r.law in ("def2-remove", "def7", "def7-global", "def7-skipdoc") and r.cases > 0]
    return bool(over_remove) and all(r.declined == r.cases for r in over_remove)


# --- the search ----------------------------------------------------------------------


def progress(job: Job, where: str) -> None:
    if job.progress_file:
        with open(job.progress_file, "w", encoding="utf-8") as out:
            out.write(where)


def search_time(timeout: float) -> float:
    """How long the engines may search: the parent kills the child at ``timeout``, so stop
    early enough to combine the verdicts and write the report."""
    return max(0.5, min(timeout * 0.8, timeout - 3.0))


def search(job: Job) -> dict[str, Any]:
    remaining = job.search_until - time.time() if job.search_until else search_time(job.timeout)
    deadline = time.monotonic() + max(remaining, 0.5)
    try:
        progress(job, f"importing {job.target}")  # an import that hangs is killed at --timeout
        raw = load_reducer(job.target)
        values, accs, (how, *domain_notes) = settle_domains(job, raw)  # hints of raw add/remove
        R = guarded(raw)  # value semantics from the first call on
        sanity_check(R, values, job.call_timeout)
    except (TargetError, UsageError) as exc:
        return error_report(job.target, "usage", str(exc))
    equality = Equality(job.rel_tol, job.abs_tol)
    problem = Problem(R, values, accs, equality,
                      Bounds(job.bag, job.exhaustive_total, job.exhaustive_cap), job.call_timeout,
                      deadline=deadline)
    results: list[EngineResult] = []
    # engines run in the order exhaustive, Hypothesis, CrossHair; a law one of them has refuted
    # is not searched further, so the time goes to the laws still open
    refuted: dict[str, list[str]] = {}

    def record(found: list[EngineResult]) -> None:
        results.extend(found)
        for r in found:
            if r.status in FOUND:
                refuted.setdefault(r.law, []).append(r.engine)

    def not_run(engine: str, law: Law) -> EngineResult:
        by = " and ".join(refuted[law.key])
        return EngineResult(engine, law.key, "skipped", f"not run: {by} already found a counterexample")

    slots = [(law, engine) for law in LAWS for engine in ("exhaustive", "hypothesis")
             if engine in job.engines]
    # CrossHair runs last; keep its share of the time (at most half) out of the other slots
    reserve = min(job.crosshair_total, search_time(job.timeout) / 2) if "crosshair" in job.engines else 0.0
    for i, (law, engine) in enumerate(slots):
        if law.key in refuted:
            results.append(not_run(engine, law))
            continue
        share = (problem.deadline - reserve - time.monotonic()) / (len(slots) - i)
        slot = dataclasses.replace(problem, deadline=time.monotonic() + max(share, 0.0))
        progress(job, f"{engine} search of {law.spec_id} ({law.key})")
        if engine == "exhaustive":
            record(exhaustive.run(slot, (law,)))
        else:
            record(property_search.run(slot, job.examples, job.seed, (law,)))
    if "crosshair" in job.engines:
        progress(job, "CrossHair search")
        budget = symbolic.SymbolicBudget(job.crosshair_per_condition, job.crosshair_total,
                                         job.crosshair_iterations)
        results += [not_run("crosshair", law) for law in LAWS if law.key in refuted]
        results += symbolic.run(problem, job.target, budget,
                                tuple(law for law in LAWS if law.key not in refuted))
    # the parent kills the child at --timeout: leave the explanations what is left, less a margin
    started = (job.search_until - search_time(job.timeout)) if job.search_until else time.time()
    left = started + job.timeout - time.time() - 1.5
    lines = all_verdicts(problem, results, max(0.5, min(EXPLAIN_SECONDS, left)), job.strict)
    witness = theorem2_witness(problem, lines)
    verdict = verdict_of(lines)
    return {
        "format": REPORT_FORMAT,
        "target": job.target,
        "reducer": R.name,
        "domains": {"values": {"spec": values.spec, "description": values.description},
                    "accumulators": {"spec": accs.spec, "description": accs.description},
                    "how": how, "notes": domain_notes},
        "equality": equality.describe(),
        "tolerance_mode": not equality.exact,
        "engines": list(job.engines),
        "partial": any(r.declined for r in results),
        "declined_everywhere": _declined_everywhere(results),
        "lines": [_line(v) for v in lines.values()],
        "theorem2_witness": _witness(witness),
        "strict": job.strict,
        "verdict": verdict,
        "witness_line": witness_line(lines) if verdict == "ill-formed" else None,
        "warnings": [v.law.key for v in lines.values() if v.warning],
        "exit_status": EXIT[verdict],
        "error": None,
    }


def main(argv: list[str]) -> int:
    with open(argv[0], encoding="utf-8") as src:
        job = Job.from_json(json.load(src))
    limit_memory(job.memory_mb)
    sys.path.insert(0, os.getcwd())
    real_stdout = sys.stdout
    sys.stdout = sys.stderr  # the user's prints must not mix with anything we write
    try:
        report = search(job)
    except MemoryError:
        report = error_report(job.target, "memory",
                              f"the search ran out of memory (limit {job.memory_mb} MB)")
    except Exception as exc:  # a defect of the checker itself: one line, not a traceback
        where = open(job.progress_file, encoding="utf-8").read() if job.progress_file else "?"
        report = error_report(job.target, "crashed",
                              f"check-reducer failed at {where}: {type(exc).__name__}: {exc} "
                              "(a defect of the checker, not of the reducer: please report it "
                              "with the command line)")
    finally:
        sys.stdout = real_stdout
    with open(job.result_file, "w", encoding="utf-8") as out:
        json.dump(report, out, ensure_ascii=False, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
