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


def _size(f: Finding) -> tuple[int, str]:
    shown = repr(sorted(f.args.items()))
    return len(shown), shown


def combine(law: Law, results: Sequence[EngineResult]) -> LawVerdict:
    searched = "; ".join(f"{r.engine}: {r.searched}" for r in results if r.status != "skipped")
    cases = sum(r.cases for r in results)
    raised = [r for r in results if r.status in ("raised", "hung") and r.finding]
    failed = [r for r in results if r.status == "fails" and r.finding]
    ran = [r for r in results if r.status == "holds" and (r.cases > 0 or r.engine == "crosshair")]
    if raised:
        best = min((r.finding for r in raised if r.finding), key=_size)
        return LawVerdict(law, "error", False,
                          fails(law.spec_id, searched, cases, instance=dict(best.args), error=best.error),
                          [r.engine for r in raised], best, list(results))
    if failed:
        best = min((r.finding for r in failed if r.finding), key=_size)
        return LawVerdict(law, "fails", False,
                          fails(law.spec_id, searched, cases, instance=dict(best.args),
                                sides=dict(best.sides or {})),
                          [r.engine for r in failed], best, list(results))
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


def _reachability(problem: Problem, a: Any) -> str:
    closure = reachable(problem, problem.values.sample()) if problem.values.is_finite else None
    if closure is not None:
        where = "is" if a in closure else "is NOT"
        return (f"a = {a!r} {where} reachable (the closure of ι under ⊕ over the finite V, "
                f"{len(closure)} accumulators, was computed).")
    depth = problem.bounds.bag
    near = reachable(problem, problem.values.sample(), depth)
    if near is None:
        return "Whether a is reachable was not determined."
    where = "is among" if a in near else "is not among"
    return (f"a = {a!r} {where} the accumulators reachable with <= {depth} values from the "
            "value sample (reachability in general is not decided).")


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
    if verdict.law.key == "def7-skipdoc" and sides.get("add(remove(accum, v), v)", a) != a:
        lines.append("The failing equation is accum = add(remove(accum, v), v): it removes v from "
                     "an accumulator that need not hold it. A runtime only removes values the "
                     "collection holds (Δ⁻(k) ⊆ C(k), SKIP-DEF-8), so it never does this.")
    else:
        lines.append(_reachability(problem, a))
        lines.append("A runtime only applies ⊖ to accumulators it built with ⊕ from ι; one that "
                     "starts from an arbitrary accumulator (or one restored from elsewhere) "
                     "would be wrong here.")
    return lines


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
    found_by = [f"SKIP-THM-2 from {engine}" for engine in def7.found_by]
    lines["def11"] = LawVerdict(def11.law, "fails", False,
                                fails(def11.law.spec_id, "SKIP-THM-2 construction", 1,
                                      instance=dict(finding.args), sides=dict(finding.sides or {})),
                                found_by, finding, def11.engines,
                                ["Not found by the SKIP-DEF-11 search itself: built from the SKIP-DEF-7 "
                                 "counterexample as in the proof of SKIP-THM-2 (2 ⇒ 1), and checked."])


#: seconds the explanations (reachability, witnesses) may spend calling the reducer, after the
#: engines' deadline and before the parent's kill
EXPLAIN_SECONDS = 2.0


def all_verdicts(problem: Problem, results: Sequence[EngineResult]) -> dict[str, LawVerdict]:
    problem = dataclasses.replace(problem, deadline=time.monotonic() + EXPLAIN_SECONDS)
    lines = {law.key: combine(law, [r for r in results if r.law == law.key]) for law in LAWS}
    complete_by_theorem_2(problem, lines)
    for line in lines.values():
        if line.status == "fails" and line.finding is not None:
            line.explanation += float_explanation(problem, line.law, line.finding)
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
    if lines["def2-add"].status == "fails":
        lines["def2-add"].explanation.append(
            "⊕ is not pairwise commutative, so this is not a reducer (SKIP-DEF-6) and the fold of a "
            "multiset depends on the enumeration order (SKIP-THM-1); the other lines use the "
            "canonical enumeration of reference.reduce.fold.")
    return lines
