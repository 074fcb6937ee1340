"""Combine the engines' results into one verdict line per law, and explain it.

A line's status is ``fails`` when an engine found a concrete counterexample
(re-run concretely), ``error`` when the reducer raised (or hung) on an input of
the declared domains, otherwise ``holds`` (``decided`` only when the exhaustive
engine covered the whole quantified domain). Each line keeps a
:class:`reference.verdict.Verdict`, and every engine's own account of what it
searched.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from conformance.check_reducer.exhaustive import reachable
from conformance.check_reducer.laws import (
    LAW_BY_KEY,
    LAWS,
    Equality,
    Law,
    collection_and_delta,
)
from conformance.check_reducer.search import EngineResult, Finding, Problem, evaluate
from reference.reduce import Reducer
from reference.verdict import Verdict, fails, holds


@dataclass
class LawVerdict:
    law: Law
    status: str  # "holds" | "fails" | "error" | "not checked"
    decided: bool
    verdict: Verdict
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
    raised = [r for r in results if r.status == "raised" and r.finding]
    failed = [r for r in results if r.status == "fails" and r.finding]
    ran = [r for r in results if r.status == "holds"]
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
        return LawVerdict(law, "not checked", False, holds(law.spec_id, "nothing searched", 0),
                          [], None, list(results))
    decided = any(r.decided for r in ran)
    return LawVerdict(law, "holds", decided, holds(law.spec_id, searched, cases, decided),
                      [], None, list(results))


# --- explanations ------------------------------------------------------------------------


def _to_exact(x: Any) -> Any:
    if isinstance(x, float):
        return Fraction(x)
    if isinstance(x, tuple):
        return tuple(_to_exact(y) for y in x)
    return x


def float_explanation(problem: Problem, law: Law, finding: Finding) -> list[str]:
    """Why a law fails on floats: re-run the same instance in exact rational arithmetic."""
    if not (problem.values.floats or problem.accumulators.floats) or finding.sides is None:
        return []
    exact_R = Reducer(_to_exact(problem.R.initial), problem.R.add, problem.R.remove, problem.R.name)
    exact_problem = Problem(exact_R, problem.values, problem.accumulators, Equality(),
                            problem.bounds, problem.call_timeout)
    exact_args = {k: _to_exact(v) for k, v in finding.args.items()}
    status, _ = evaluate(exact_problem, law, exact_args)
    sides = list(finding.sides.values())
    if any(isinstance(x, float) and math.isnan(x) for x in sides):
        return ["NaN != NaN: a side is NaN, so the equality fails whatever the reducer does. "
                "The default float domain excludes NaN (use 'float' rather than 'float[nan,...]')."]
    lines = ["float rounding: IEEE-754 addition and multiplication round every result, so "
             "they are not associative ((a + x) + y may differ from (a + y) + x)."]
    if status == "holds":
        lines.append("Re-run on the same inputs as exact rationals (fractions.Fraction), the sides "
                     "are equal: the law holds in exact arithmetic and fails only by rounding.")
    if all(isinstance(s, float) for s in sides):
        gap = max(sides) - min(sides)
        lines.append(f"The sides differ by {gap!r}. A tolerance mode (--rel-tol/--abs-tol) "
                     "checks closeness instead: a weaker property than the spec's equality.")
    return lines


def reachable_within(problem: Problem, depth: int) -> set[Any] | None:
    """Accumulators fold_⊕(ι, s) for sequences s of length <= depth over the value sample."""
    found: set[Any] = {problem.R.initial}
    frontier = [problem.R.initial]
    try:
        for _ in range(depth):
            frontier = [problem.R.add(a, v) for a in frontier for v in problem.values.sample()]
            found.update(frontier)
            if len(found) > 20_000:
                return None
    except Exception:
        return None
    return found


def _reachability(problem: Problem, a: Any) -> str:
    closure = reachable(problem, problem.values.sample()) if problem.values.is_finite else None
    if closure is not None:
        where = "is" if a in closure else "is NOT"
        return (f"a = {a!r} {where} reachable (the closure of ι under ⊕ over the finite V, "
                f"{len(closure)} accumulators, was computed).")
    depth = problem.bounds.bag
    near = reachable_within(problem, depth)
    if near is None:
        return "Whether a is reachable was not determined."
    where = "is among" if a in near else "is not among"
    return (f"a = {a!r} {where} the accumulators reachable with <= {depth} values from the "
            "value sample (reachability in general is not decided).")


def stronger_law_explanation(problem: Problem, verdict: LawVerdict,
                             def11: LawVerdict | None) -> list[str]:
    """For a reducer incrementally correct within the search that breaks a stronger law."""
    finding = verdict.finding
    if verdict.status != "fails" or def11 is None or def11.status != "holds" or finding is None:
        return []
    lines = [f"Incrementally correct within the search (SKIP-DEF-11 holds there), but "
             f"{verdict.law.spec_id} fails: it asks more than incremental correctness needs."]
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
    """SKIP-THM-2's witness: a collection C and a valid delta Δ with update ≠ recompute."""

    args: Mapping[str, Any]  # M0, D, P of the SKIP-DEF-11 instance
    recomputed: Any
    incremental: Any
    source: str  # how it was obtained


def theorem2_witness(problem: Problem, lines: Mapping[str, LawVerdict]) -> Witness | None:
    """The witness of SKIP-THM-2 (2⇒1): the SKIP-DEF-11 counterexample if a search found one,
    else the proof's construction from a SKIP-DEF-7 counterexample (M, v):
    C(k) = M ⊎ {v}, Δ⁻(k) = {v}, Δ⁺(k) = ∅."""
    def11, def7 = lines.get("def11"), lines.get("def7")
    if def11 is not None and def11.status == "fails" and def11.finding and def11.finding.sides:
        sides = list(def11.finding.sides.values())
        return Witness(def11.finding.args, sides[0], sides[1],
                       f"SKIP-DEF-11 counterexample found by {', '.join(def11.found_by)}")
    if def7 is not None and def7.status == "fails" and def7.finding:
        M, v = def7.finding.args["M"], def7.finding.args["v"]
        args = {"M0": tuple(M), "D": (v,), "P": ()}
        status, finding = evaluate(problem, LAW_BY_KEY["def11"], args)
        if status == "fails" and finding and finding.sides:
            sides = list(finding.sides.values())
            return Witness(args, sides[0], sides[1],
                           "built from the SKIP-DEF-7 counterexample as in the proof of SKIP-THM-2")
    return None


def witness_parts(w: Witness) -> dict[str, Any]:
    C, delta = collection_and_delta(w.args)
    return {"C": C, "delta_plus": dict(delta.plus), "delta_minus": dict(delta.minus)}


def all_verdicts(problem: Problem, results: Sequence[EngineResult]) -> dict[str, LawVerdict]:
    lines = {law.key: combine(law, [r for r in results if r.law == law.key]) for law in LAWS}
    for line in lines.values():
        if line.status == "fails" and line.finding is not None:
            line.explanation += float_explanation(problem, line.law, line.finding)
    for key in ("def7-global", "def7-skipdoc"):
        lines[key].explanation += stronger_law_explanation(problem, lines[key], lines.get("def11"))
    if lines["def2-add"].status == "fails":
        lines["def2-add"].explanation.append(
            "⊕ is not pairwise commutative, so this is not a reducer (SKIP-DEF-6) and the fold of a "
            "multiset depends on the enumeration order (SKIP-THM-1); the other lines use the "
            "canonical enumeration of reference.reduce.fold.")
    return lines
