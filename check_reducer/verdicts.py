"""Combine the engines' results into one verdict line per law, and explain it.

A line's status is ``fails`` when an engine found a concrete counterexample
(re-run concretely), ``error`` when the reducer raised (or hung) on an input of
the declared domains, otherwise ``holds`` (``decided`` only when the exhaustive
engine covered the whole quantified domain). Each line keeps a
:class:`reference.verdict.Verdict`, and every engine's own account of what it
searched.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from check_reducer.exhaustive import reachable
from check_reducer.laws import (
    LAWS,
    Equality,
    Law,
    bag,
    collection_and_delta,
)
from check_reducer.purity import freeze, guard_of
from check_reducer.reachability import Reach, Standing
from check_reducer.search import EngineResult, Finding, Problem, evaluate, time_limit
from reference.reduce import (
    InverseLawFailure,
    Reducer,
    ill_formedness_witness,
    incorrect_update,
    theorem_2_witness,
)
from reference.verdict import Verdict, fails, holds


@dataclass
class LawVerdict:
    law: Law
    status: str  # "holds" | "fails" | "error" | "not checked"
    decided: bool
    verdict: Verdict | None  # None when nothing was searched ("not checked")
    found_by: list[str]
    finding: Finding | None
    engines: list[EngineResult]
    explanation: list[str] = field(default_factory=list)
    shown_by: str = ""  # how the counterexample shown was chosen (see PROVENANCE)
    #: for a failing or erring line: whether a runtime meets the instance shown (None: not
    #: determined), and the note that says so
    where: Standing | None = None
    #: whether the line enters the exit status (see :func:`classify`)
    counts: bool = True

    @property
    def met(self) -> bool | None:
        return None if self.where is None else self.where.met

    @property
    def bad(self) -> bool:
        return self.status in ("fails", "error")

    @property
    def warning(self) -> bool:
        """It fails (or the reducer raised on it) where it does not count."""
        return self.bad and not self.counts


def _size(r: EngineResult) -> tuple[int, str]:
    shown = repr(sorted(r.finding.args.items())) if r.finding else ""
    return len(shown), shown


#: how each source of a counterexample chose it, for the report
PROVENANCE = {
    "exhaustive": "the first in the exhaustive engine's smallest-first order",
    "hypothesis": "shrunk by Hypothesis",
    "crosshair": "found by CrossHair, re-run concretely, then shrunk greedily (not minimal)",
}


def provenance(r: EngineResult) -> str:
    if r.engine == "hypothesis" and r.status == "hung":
        return "found by Hypothesis (not shrunk: the search stops at the first call that hangs)"
    return PROVENANCE[r.engine]


def combine(law: Law, results: Sequence[EngineResult]) -> LawVerdict:
    searched = "; ".join(f"{r.engine}: {r.searched}" for r in results if r.status != "skipped")
    cases = sum(r.cases for r in results)
    raised = [r for r in results if r.status in ("raised", "hung") and r.finding]
    failed = [r for r in results if r.status == "fails" and r.finding]
    ran = [r for r in results if r.status == "holds" and (r.cases > 0 or r.engine == "crosshair")]
    if raised:
        best = min(raised, key=_size)
        assert best.finding is not None
        return LawVerdict(law, "error", False,
                          fails(law.spec_id, searched, cases, instance=dict(best.finding.args),
                                error=best.finding.error),
                          [r.engine for r in raised], best.finding, list(results),
                          shown_by=provenance(best))
    if failed:
        best = min(failed, key=_size)
        assert best.finding is not None
        return LawVerdict(law, "fails", False,
                          fails(law.spec_id, searched, cases, instance=dict(best.finding.args),
                                sides=dict(best.finding.sides or {})),
                          [r.engine for r in failed], best.finding, list(results),
                          shown_by=provenance(best))
    if not ran:
        return LawVerdict(law, "not checked", False, None, [], None, list(results))
    decided = any(r.decided for r in ran)
    return LawVerdict(law, "holds", decided, holds(law.spec_id, searched, cases, decided),
                      [], None, list(results))


def vacuous(line: LawVerdict) -> bool:
    """Every instance the concrete engines searched declined (CrossHair counts none)."""
    counted = [r for r in line.engines if r.cases > 0]
    return bool(counted) and all(r.declined == r.cases for r in counted)


# --- explanations ------------------------------------------------------------------------


def _to_exact(x: Any) -> Any:
    if isinstance(x, float) and math.isfinite(x):
        return Fraction(x)
    if isinstance(x, tuple):
        return tuple(_to_exact(y) for y in x)
    return x


def _tiny_gap(sides: list[Any]) -> float | None:
    """The gap between float sides when it is within rounding (relative 1e-9), else None."""
    if len(sides) < 2 or not all(isinstance(s, float) and math.isfinite(s) for s in sides):
        return None
    gap = max(sides) - min(sides)
    return gap if math.isclose(max(sides), min(sides), rel_tol=1e-9, abs_tol=1e-12) else None


ROUNDING = ("float rounding: IEEE-754 addition and multiplication round every result, so they "
            "are not associative ((a + x) + y may differ from (a + y) + x).")


def float_explanation(problem: Problem, law: Law, finding: Finding) -> list[str]:
    """Why a law fails on floats: the same instance re-run in exact rational arithmetic
    holds (then the failure is rounding, and only rounding), or the sides differ by a
    rounding-sized gap when the exact re-run is impossible."""
    if not (problem.values.floats or problem.accumulators.floats) or finding.sides is None:
        return []
    sides = list(finding.sides.values())
    if any(isinstance(x, float) and math.isnan(x) for x in sides):
        return ["NaN != NaN: a side is NaN, so the equality fails whatever the reducer does. "
                "The default float domain excludes NaN (use 'float' rather than 'float[nan,...]')."]
    exact_R = Reducer(_to_exact(problem.R.initial), problem.R.add, problem.R.remove, problem.R.name)
    exact_problem = dataclasses.replace(problem, R=exact_R, equality=Equality())
    status, _ = evaluate(exact_problem, law, {k: _to_exact(v) for k, v in finding.args.items()})
    gap = _tiny_gap(sides)
    tolerance = ("A tolerance mode (--rel-tol/--abs-tol) checks closeness instead: a weaker "
                 "property than the spec's equality.")
    if status == "holds":
        lines = [ROUNDING, "Re-run on the same inputs as exact rationals (fractions.Fraction), "
                 "the law holds: it fails here only by rounding."]
        if gap is not None:
            lines.append(f"The sides differ by {gap!r}. {tolerance}")
        return lines
    if status == "raised" and gap is not None:
        return [ROUNDING, f"The sides differ by only {gap!r}, which looks like rounding (the "
                "reducer could not be re-run on exact rationals to confirm it). " + tolerance]
    return []


def stronger_law_explanation(problem: Problem, verdict: LawVerdict,
                             by_key: Mapping[str, LawVerdict]) -> list[str]:
    """For a reducer incrementally correct and well-formed within the search (SKIP-DEF-11 and
    SKIP-DEF-7 hold there) that breaks a stronger law."""
    finding = verdict.finding
    if verdict.status != "fails" or finding is None or any(
            by_key[k].status != "holds" for k in ("def7", "def11")):
        return []
    lines = [f"Incrementally correct within the search (SKIP-DEF-11 and SKIP-DEF-7 hold there), "
             f"but {verdict.law.spec_id} fails: it asks more than incremental correctness needs."]
    sides = finding.sides or {}
    a = finding.args.get("a")
    if verdict.law.key == "def7-skipdoc" and sides.get("add(remove(accum, v), v)", a) != a \
            and sides.get("remove(add(accum, v), v)", a) == a:  # only the converse equation fails
        lines.append("The failing equation is accum = add(remove(accum, v), v): it removes v from "
                     "an accumulator that need not hold it. A runtime only removes values the "
                     "collection holds (Δ⁻(k) ⊆ C(k), SKIP-DEF-8), so it never does this.")
    else:
        lines.append("A runtime only applies ⊖ to accumulators it built with ⊕ from ι; one that "
                     "starts from an arbitrary accumulator (or one restored from elsewhere) "
                     "would be wrong here.")
    return lines


def locate(reach: Reach, line: LawVerdict) -> Standing | None:
    """Where a failing or erring line's instance stands (kept on the line)."""
    finding = line.finding
    if finding is None or not line.bad:
        return None
    if line.where is None:
        line.where = reach.standing(line.law, finding.args, finding.removing(),
                                    finding.built_from)
    return line.where


def instance_notes(problem: Problem, reach: Reach, line: LawVerdict,
                   met_elsewhere: str | None) -> list[str]:
    """For a failing or erring line: whether a runtime meets its instance (reachable
    accumulator, valid removal) and, when the reducer raised or hung, what to do.
    ``met_elsewhere`` names a line where the same function raised or hung on an instance
    a runtime meets (then declining is no fix)."""
    finding = line.finding
    where = locate(reach, line)
    if finding is None or where is None:
        return []
    notes = [] if line.status == "fails" and "a" not in finding.args else [where.text]
    if line.status != "error":
        return notes
    function = finding.call.function if finding.call else "the reducer"
    what, instead = ("hung", "looping") if finding.hung else ("raised", "raising")
    if where.met:
        return notes + [f"{function} {what} on an instance a runtime meets: fix {function}."]
    if met_elsewhere:
        return notes + [f"{function} also {what} on an instance a runtime meets ({met_elsewhere} "
                        f"above): fix {function}."]
    at_initial = "a" in finding.args and freeze(finding.args["a"]) == freeze(problem.R.initial)
    narrowing = ("Narrowing the domains cannot remove this instance: it is at a = initial, "
                 "which every accumulator domain holds." if at_initial else
                 "Narrowing --acc/--values would hide it from the checker, not from a caller "
                 "that builds such an accumulator.")
    if function == "remove":
        return notes + [f"remove {what} where no runtime is shown to meet the instance. If it "
                        "cannot happen, make remove return None there (decline: the runtime "
                        f"recomputes the key) instead of {instead}. {narrowing}"]
    return notes + [f"{function} {what} where no runtime is shown to meet the instance. "
                    f"{narrowing}"]


def _met_by_function(reach: Reach, lines: Mapping[str, LawVerdict]) -> dict[str, str]:
    """add/remove -> the first erring line whose instance a runtime meets."""
    met: dict[str, str] = {}
    for line in lines.values():
        f = line.finding
        if line.status == "error" and f is not None and f.call is not None \
                and f.call.function not in met:
            where = locate(reach, line)
            if where is not None and where.met:
                met[f.call.function] = f"{line.law.spec_id} [{line.law.key}]"
    return met


MUTATION = ("add/remove changed an argument in place. A runtime keeps accumulators (Skip keeps "
            "each key's previous value, and the initial value is shared by every key), so it "
            "sees them change under it: return a new value instead. Every other line was "
            "judged with value semantics (each call given copies), as the laws assume.")


def observed_mutation(problem: Problem, lines: dict[str, LawVerdict]) -> None:
    """A change of an argument seen during any law's search (the guard keeps the first) that
    the ``pure`` line's own search missed: re-checked on that line's law, and reported."""
    guard = guard_of(problem.R)
    pure = lines["pure"]
    if guard is None or guard.mutation is None or pure.status != "holds":
        return
    call = guard.mutation.call
    status, finding = evaluate(problem, pure.law, {"a": call.acc, "v": call.value})
    if status != "fails" or finding is None:
        return
    lines["pure"] = LawVerdict(pure.law, "fails", False,
                               fails(pure.law.spec_id, "observed during the search", 1,
                                     instance=dict(finding.args), sides=dict(finding.sides or {})),
                               ["observed while searching the other laws"], finding, pure.engines,
                               shown_by="the first change seen while searching the other laws")


# --- Theorem 2 witness ---------------------------------------------------------------------


@dataclass(frozen=True)
class Witness:
    """SKIP-THM-2's witness: a collection C and a valid delta Δ with update ≠ recompute,
    and back (1 ⇒ 2) the reachable accumulator where the inverse law fails."""

    args: Mapping[str, Any]  # M0, D, P of the SKIP-DEF-11 instance
    recomputed: Any
    incremental: Any
    source: str  # how it was obtained
    inverse_failure: InverseLawFailure | None = None


def theorem2_witness(problem: Problem, lines: Mapping[str, LawVerdict]) -> Witness | None:
    """The witness of SKIP-THM-2: the SKIP-DEF-11 counterexample if a search found one,
    else the reference's construction (``theorem_2_witness``, the proof of 2 ⇒ 1) from a
    SKIP-DEF-7 counterexample (M, v): C(k) = M ⊎ {v}, Δ⁻(k) = {v}, Δ⁺(k) = ∅. In both
    cases the reference's ``ill_formedness_witness`` (1 ⇒ 2) gives the way back."""
    try:
        with time_limit(problem.call_timeout):  # about one law instance's calls of the reducer
            return _theorem2_witness(problem.R, lines)
    except Exception:  # the reducer raised or hung: its lines already say so
        return None


def _theorem2_witness(R: Reducer[Any, Any], lines: Mapping[str, LawVerdict]) -> Witness | None:
    def11, def7 = lines.get("def11"), lines.get("def7")
    if def11 is not None and def11.status == "fails" and def11.finding:
        C, delta = collection_and_delta(def11.finding.args)
        failure = incorrect_update(R, C, delta)
        source = f"SKIP-DEF-11 counterexample found by {', '.join(def11.found_by)}"
        args = def11.finding.args
    elif def7 is not None and def7.status == "fails" and def7.finding:
        M, v = def7.finding.args["M"], def7.finding.args["v"]
        failure = theorem_2_witness(R, bag(M), v)
        source = "built by the reference from the SKIP-DEF-7 counterexample (proof of SKIP-THM-2)"
        args = {"M0": tuple(M), "D": (v,), "P": ()}
    else:
        return None
    if failure is None:
        return None
    return Witness(args, failure.recomputed, failure.updated, source,
                   ill_formedness_witness(R, failure))


def witness_parts(w: Witness) -> dict[str, Any]:
    C, delta = collection_and_delta(w.args)
    return {"C": C, "delta_plus": dict(delta.plus), "delta_minus": dict(delta.minus)}


def _refuted_by(line: LawVerdict, finding: Finding, found_by: list[str], searched: str,
                note: str, shown_by: str) -> LawVerdict:
    """``line`` failing at ``finding``, a counterexample built from another line's."""
    return LawVerdict(line.law, "fails", False,
                      fails(line.law.spec_id, searched, 1, instance=dict(finding.args),
                            sides=dict(finding.sides or {})),
                      found_by, finding, line.engines, [note], shown_by=shown_by)


def _first_failing(problem: Problem, law: Law,
                   candidates: Sequence[Mapping[str, Any]]) -> Finding | None:
    for args in candidates:
        if problem.out_of_time():
            return None
        status, finding = evaluate(problem, law, args)
        if status == "fails" and finding is not None:
            return finding
    return None


def _without(M: Sequence[Any], *values: Any) -> tuple[Any, ...]:
    return tuple((bag(M) - bag(values)).elements())


def complete_from_counted(problem: Problem, reach: Reach, lines: dict[str, LawVerdict]) -> None:
    """A counterexample at an instance a runtime meets (a = fold_⊕(ι, M), the values removed in
    M) on a line other than SKIP-DEF-7 and -11, when those two were not refuted: turned into
    theirs, each candidate checked.

    ⊕'s commutativity at (a, v1, v2): the collection M ⊎ {v1} gets v2 (or the other way
    round), whose update adds in another order than recomputation may. ⊖'s, both orders
    answering: if ⊖ inverted ⊕ at fold_⊕(ι, M ∖ {x}) and fold_⊕(ι, M ∖ {x, y}) for both orders
    (x, y), both would give fold_⊕(ι, M ∖ {v1, v2}); so SKIP-DEF-7 fails at one of those. The
    global law at (a, v) is SKIP-DEF-7 at (M, v); Skip's contract at (a, v) with v ∈ M fails
    SKIP-DEF-7 at (M, v) or at (M ∖ {v}, v) (else add(remove(a, v), v) = fold_⊕(ι, M) = a)."""
    def7, def11 = lines["def7"], lines["def11"]
    if def7.status != "holds" or def11.status != "holds":
        return
    for key in ("def2-add", "def2-remove", "def7-global", "def7-skipdoc"):
        line = lines[key]
        where = locate(reach, line)
        if line.status != "fails" or line.finding is None or where is None or not where.met \
                or where.M is None:
            continue
        M, x = where.M, line.finding.args
        target, candidates = def7, []
        if key == "def2-add":
            target = def11
            candidates = [{"M0": (*M, x["v1"]), "D": (), "P": (x["v2"],)},
                          {"M0": (*M, x["v2"]), "D": (), "P": (x["v1"],)},
                          {"M0": M, "D": (), "P": (x["v1"], x["v2"])}]
        elif key == "def2-remove":
            for first, second in ((x["v1"], x["v2"]), (x["v2"], x["v1"])):
                candidates += [{"M": _without(M, first), "v": first},
                               {"M": _without(M, first, second), "v": second}]
        else:
            candidates = [{"M": M, "v": x["v"]}]
            if key == "def7-skipdoc":
                candidates.append({"M": _without(M, x["v"]), "v": x["v"]})
        finding = _first_failing(problem, target.law, candidates)
        if finding is None:
            continue
        name = f"{line.law.spec_id} [{key}]"
        lines[target.law.key] = _refuted_by(
            target, finding, [f"{name} counterexample"], f"built from {name}'s", (
                f"Not found by the {target.law.spec_id} search itself: built from the "
                f"counterexample of {name}, at an instance a runtime meets, and checked."),
            f"built from the counterexample of {name}")
        return


def complete_by_theorem_2(problem: Problem, lines: dict[str, LawVerdict]) -> None:
    """A SKIP-DEF-7 counterexample that the SKIP-DEF-11 search missed still refutes SKIP-DEF-11:
    the reference builds the proof's collection and delta from it (SKIP-THM-2, 2 ⇒ 1), which is
    re-checked concretely here and becomes SKIP-DEF-11's counterexample."""
    def7, def11 = lines["def7"], lines["def11"]
    if def7.status != "fails" or def11.status != "holds":
        return
    witness = theorem2_witness(problem, lines)
    if witness is None:
        return
    status, finding = evaluate(problem, def11.law, witness.args)
    if status != "fails" or finding is None:
        return
    lines["def11"] = _refuted_by(
        def11, finding, [f"SKIP-THM-2 from {engine}" for engine in def7.found_by],
        "SKIP-THM-2 construction", (
            "Not found by the SKIP-DEF-11 search itself: built from the SKIP-DEF-7 "
            "counterexample as in the proof of SKIP-THM-2 (2 ⇒ 1), and checked."),
        "built from the SKIP-DEF-7 counterexample (SKIP-THM-2)")


#: how many values of the sample may be the one a SKIP-DEF-11 witness keeps
MAX_KEPT_VALUES = 12

#: why a SKIP-DEF-11 counterexample is shown with a value that stays
KEPT_NONEMPTY = ("then a value kept in the collection, so that the key stays in the view (an "
                 "emptied key leaves it, and no user sees its accumulator: SKIP-DEC-EMPTIED-KEY)")


def keep_key_nonempty(problem: Problem, lines: dict[str, LawVerdict]) -> None:
    """A SKIP-DEF-11 counterexample whose delta empties the key (C • Δ has no value at k) is
    invisible in the view (SKIP-DEC-EMPTIED-KEY): replaced, when one exists, by the same
    instance with one more value w that stays (M0 = {w}) or arrives (P = {w}), re-checked."""
    def11 = lines["def11"]
    finding = def11.finding
    if def11.status != "fails" or finding is None or finding.args["M0"] or finding.args["P"]:
        return
    D = finding.args["D"]
    try:
        pool = dict.fromkeys([*problem.values.sample()[:MAX_KEPT_VALUES], *D])
    except TypeError:  # unhashable values: keep the instance found
        return
    candidates = [{"M0": (w,), "D": D, "P": ()} for w in pool]
    candidates += [{"M0": (), "D": D, "P": (w,)} for w in pool]
    better = _first_failing(problem, def11.law, candidates)
    if better is None:
        return
    lines["def11"] = dataclasses.replace(
        def11, finding=better,
        verdict=fails(def11.law.spec_id, def11.verdict.searched if def11.verdict else "",
                      def11.verdict.cases if def11.verdict else 1, instance=dict(better.args),
                      sides=dict(better.sides or {})),
        shown_by=f"{def11.shown_by}; {KEPT_NONEMPTY}" if def11.shown_by else KEPT_NONEMPTY)


def learn_folds(reach: Reach, lines: Mapping[str, LawVerdict]) -> None:
    """The folds the search made, for the reachability notes: a SKIP-DEF-7 counterexample's M
    and M ⊎ {v}, a SKIP-DEF-11 one's C(k) and C • Δ(k), and the M an instance was folded from."""
    for line in lines.values():
        f = line.finding
        if f is None:
            continue
        x = f.args
        if "M" in x:
            reach.learn(x["M"])
            reach.learn((*x["M"], x["v"]))
        if "M0" in x:
            reach.learn((*x["M0"], *x["D"]))
            reach.learn((*x["M0"], *x["P"]))
        if f.built_from is not None:
            reach.learn(f.built_from)


#: the lines of the paper's verdict: SKIP-THM-2 makes SKIP-DEF-7 (the inverse law on reachable
#: accumulators) equivalent to SKIP-DEF-11 for ⊕ and ⊖ pairwise commutative (SKIP-DEF-6), and
#: ⊕, ⊖ are functions (pure); each judged where a runtime goes (a line not checked gives 2)
PAPER_LINES = ("def2-add", "def2-remove", "def7", "def11", "pure")

#: stronger sufficient conditions (SKIP-DEC-WELL-FORMED): warnings unless --strict
STRONGER_LINES = ("def7-global", "def7-skipdoc")


def classify(lines: Mapping[str, LawVerdict], strict: bool) -> None:
    """Which lines enter the exit status. Without ``strict``: a failure (or a raise, a hang)
    counts where a runtime is shown to meet its instance (SKIP-DEF-7 and -11 build theirs from
    folds and valid deltas; the others quantify over every accumulator, and their instance
    counts when a fold reaches it and removes only values it holds: there the stronger laws
    say what SKIP-DEF-7 does); a paper line that holds, or was not checked, counts too. A line
    that fails without counting is a warning, and says so."""
    for line in lines.values():
        key = line.law.key
        line.counts = strict or (line.met is True if line.bad else key in PAPER_LINES)
        if not line.warning:
            continue
        stronger = (" Only SKIP-DEF-7 is equivalent to incremental correctness (SKIP-THM-2); "
                    "this law asks more (SKIP-DEC-WELL-FORMED)." if key in STRONGER_LINES else "")
        line.explanation.append(
            "A warning, not the verdict: no runtime is shown to meet this instance (see the note "
            f"above), so it does not change the exit status (--strict counts it).{stronger}")


def verdict_of(lines: Mapping[str, LawVerdict]) -> str:
    """The paper's verdict: "ill-formed" (a counted line fails, or the reducer raised or hung
    where a runtime goes), "not checked" (a counted line no engine could search, or a search
    cut short by the memory limit), else "well-formed" (within the search)."""
    counted = [line for line in lines.values() if line.counts]
    if any(line.bad and not _out_of_memory(line) for line in counted):
        return "ill-formed"
    if any(line.status == "not checked" or _out_of_memory(line) for line in counted):
        return "not checked"
    return "well-formed"


def _out_of_memory(line: LawVerdict) -> bool:
    """The reducer's call ran out of the search's memory limit: a limit of the check."""
    return bool(line.status == "error" and line.finding is not None and line.finding.error
                and line.finding.error.startswith("MemoryError"))


def witness_line(lines: Mapping[str, LawVerdict]) -> str | None:
    """The line whose counterexample is the verdict's witness: SKIP-DEF-11's (a collection and a
    delta on which update differs from recomputation, or raises) when it counts, else
    SKIP-DEF-7's, else the first counted line that fails or on which the reducer raised or hung."""
    counted = {line.law.key: line for line in lines.values() if line.counts and line.bad}
    for key in ("def11", "def7", *lines):  # the runtime's own steps first
        if key in counted:
            return key
    return None


#: seconds the explanations (reachability, witnesses) may spend calling the reducer, after the
#: engines' deadline and before the parent's kill (the worker gives less when less is left)
EXPLAIN_SECONDS = 20.0


def all_verdicts(problem: Problem, results: Sequence[EngineResult],
                 explain_seconds: float = EXPLAIN_SECONDS,
                 strict: bool = False) -> dict[str, LawVerdict]:
    """One line per law, explained, and classified (``strict``: every line counts)."""
    problem = dataclasses.replace(problem, deadline=time.monotonic() + explain_seconds)
    reach = Reach(problem)
    lines = {law.key: combine(law, [r for r in results if r.law == law.key]) for law in LAWS}
    observed_mutation(problem, lines)
    learn_folds(reach, lines)
    complete_from_counted(problem, reach, lines)
    complete_by_theorem_2(problem, lines)
    keep_key_nonempty(problem, lines)
    if lines["pure"].status == "fails":
        lines["pure"].explanation.append(MUTATION)
    met = _met_by_function(reach, lines)
    for line in lines.values():
        if line.status == "fails" and line.finding is not None:
            line.explanation += float_explanation(problem, line.law, line.finding)
        call = line.finding.call if line.finding else None
        elsewhere = met.get(call.function) if call else None
        own = f"{line.law.spec_id} [{line.law.key}]"
        line.explanation += instance_notes(problem, reach, line,
                                           elsewhere if elsewhere != own else None)
    for key in ("def7-global", "def7-skipdoc"):
        lines[key].explanation += stronger_law_explanation(problem, lines[key], lines)
    for line in lines.values():
        if line.status == "holds" and vacuous(line):
            line.explanation.append(
                "Vacuous: remove declined on every instance searched, so this law was never "
                "exercised. A remove that always declines is correct (the runtime recomputes the "
                "key every time) but gains nothing from incrementality; if it should answer, is a "
                "return statement missing?")
    premises = [lines[k] for k in ("def2-add", "def2-remove", "def7")]
    total = not any(r.declined for line in lines.values() for r in line.engines)
    def11 = lines["def11"]
    if total and def11.status == "holds" and not def11.decided and all(
            p.status == "holds" and p.decided for p in premises):
        closure = reachable(problem, problem.values.sample())
        accs = problem.accumulators.elements()
        if closure is not None and accs is not None and all(a in accs for a, _ in closure.items()):
            lines["def11"].explanation.append(
                "Beyond the search: ⊕ and ⊖ were decided pairwise commutative on A, which holds "
                "every reachable accumulator, and SKIP-DEF-7 was decided, so by SKIP-THM-2 "
                "(1 ⇒ 2) SKIP-DEF-11 holds for every collection and delta over these domains "
                "(a consequence of the theorem, not of the search).")
    if lines["def2-add"].status == "fails" and lines["def2-add"].met:
        lines["def2-add"].explanation.append(
            "⊕ is not pairwise commutative, so this is not a reducer (SKIP-DEF-6) and the fold of a "
            "multiset depends on the enumeration order (SKIP-THM-1); the other lines use the "
            "canonical enumeration of reference.reduce.fold.")
    elif lines["def2-add"].status == "fails":
        lines["def2-add"].explanation.append(
            "⊕ does not commute at this accumulator; at the ones folds reach it did within the "
            "search (the exhaustive engine tries them first), and only those decide the "
            "order-independence of fold_⊕(ι, M) a runtime relies on (SKIP-THM-1).")
    classify(lines, strict)
    return lines
