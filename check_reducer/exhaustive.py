"""Exhaustive engine: every instance up to a bound, smallest first.

Over a finite domain (``int[LO..HI]``, ``bool``, ``str[AB,N]``...) the laws
quantified over accumulators and values (SKIP-DEF-2, -7-GLOBAL, -7-SKIPDOC) are
*decided*. SKIP-DEF-7 quantifies over every finite multiset M; it is decided
when the values are finite and the closure of ι under ⊕ is finite and small,
each of its elements b being fold_⊕(ι, M_b) for the multiset M_b of a path to
it: every fold_⊕(ι, M) lies in the closure, so checking each M_b covers all M.
Otherwise, and over infinite domains, the engine enumerates a fixed sample (``Domain.sample()``) and says so: a
deterministic spot check, not a decision. Instances come smallest first, so the
first counterexample found is a minimal one.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from check_reducer.laws import LAWS, REMOVED_FROM_A, Law, bag
from check_reducer.purity import freeze
from check_reducer.search import (
    EngineResult,
    Finding,
    Found,
    Problem,
    Status,
    Stopwatch,
    call_limited,
    evaluate,
    found,
    time_limit,
)
from reference.reduce import decide_incremental_correctness, fold

#: the largest reachable-accumulator set the engine closes over for a decision on SKIP-DEF-7
MAX_REACHABLE = 2_000


def bags(values: tuple[Any, ...], size: int) -> Iterator[tuple[Any, ...]]:
    """Every multiset of exactly ``size`` elements of ``values`` (as a sorted tuple)."""
    return itertools.combinations_with_replacement(values, size)


def bags_up_to(values: tuple[Any, ...], n: int) -> Iterator[tuple[Any, ...]]:
    for size in range(n + 1):
        yield from bags(values, size)


def _split_instances(values: tuple[Any, ...], total: int) -> Iterator[dict[str, Any]]:
    """SKIP-DEF-11 instances (M0, D, P) with |M0| + |D| + |P| <= total, by increasing total."""
    for t in range(total + 1):
        for i in range(t + 1):
            for j in range(t - i + 1):
                for M0, D, P in itertools.product(bags(values, i), bags(values, j),
                                                  bags(values, t - i - j)):
                    yield {"M0": M0, "D": D, "P": P}


@dataclass(frozen=True)
class Closure:
    """Accumulators fold_⊕(ι, s), each with a shortest sequence s reaching it, keyed by
    :func:`~check_reducer.purity.freeze` (accumulators may be unhashable: dicts, lists)."""

    found: Mapping[Any, tuple[Any, tuple[Any, ...]]]  # freeze(a) -> (a, s)

    def __contains__(self, a: object) -> bool:
        return freeze(a) in self.found

    def __len__(self) -> int:
        return len(self.found)

    def items(self) -> Iterator[tuple[Any, tuple[Any, ...]]]:
        return iter(self.found.values())

    def paths(self) -> Iterator[tuple[Any, ...]]:
        return (path for _, path in self.found.values())

    def path_to(self, a: Any) -> tuple[Any, ...] | None:
        hit = self.found.get(freeze(a))
        return None if hit is None else hit[1]


def reachable(problem: Problem, values: tuple[Any, ...],
              depth: int | None = None) -> Closure | None:
    """Every accumulator fold_⊕(ι, s) for sequences s over ``values`` (of length <= ``depth``
    when given), each with a shortest s reaching it (breadth first); None when there are more
    than MAX_REACHABLE, add raised or hung (each call is under the per-call time limit), or
    the problem's time is up."""
    add = call_limited(problem, problem.R.add)
    seen: dict[Any, tuple[Any, tuple[Any, ...]]] = {freeze(problem.R.initial): (problem.R.initial, ())}
    frontier = [problem.R.initial]
    level = 0
    try:
        while frontier and (depth is None or level < depth):
            level += 1
            following = []
            for a in frontier:
                if problem.out_of_time():
                    return None
                path = seen[freeze(a)][1]
                for v in values:
                    b = add(a, v)
                    if freeze(b) not in seen:
                        seen[freeze(b)] = (b, path + (v,))
                        following.append(b)
                        if len(seen) > MAX_REACHABLE:
                            return None
            frontier = following
    except Exception:  # add raised or hung: the searches report it with its input
        return None
    return Closure(seen)


#: the laws over accumulators a ∈ A that a runtime meets at reachable accumulators: their
#: instances at a = fold_⊕(ι, M) come first, so that a counterexample there is found first
REACHABLE_FIRST = ("def2-add", "def2-remove", "pure")

#: how many values of the sample the reachable instances are folded from
REACH_VALUES = 7

#: an instance to evaluate, with the multiset M it was folded from (a = fold_⊕(ι, M))
Instance = tuple[dict[str, Any], tuple[Any, ...] | None]


def _reachable_instances(law: Law, problem: Problem) -> Iterator[Instance]:
    """Instances of a law over (a, v...) at reachable accumulators a = fold_⊕(ι, M), smallest
    M first, with every value of the sample; for ⊖'s commutativity M holds v1 and v2 (a valid
    removal, the instances a runtime meets), for ``pure`` M comes with and without v. The
    first fold on which add raises or hangs ends them (the laws that fold report it)."""
    vals = problem.values.sample()
    probe = vals[:REACH_VALUES]
    add = call_limited(problem, problem.R.add)
    names = [name for name, kind in law.params if kind == "value"]
    together = law.key == "def2-remove"  # the values removed are in M
    size = max(1, problem.bounds.bag - len(names)) if together else max(0, problem.bounds.bag - 1)
    try:
        for M0 in bags_up_to(probe, size):
            a = None if together else fold(add, problem.R.initial, bag(M0))
            for vs in itertools.product(vals, repeat=len(names)):
                M = (*M0, *vs) if together else M0
                if together:
                    a = fold(add, problem.R.initial, bag(M))
                yield {"a": a, **dict(zip(names, vs, strict=True))}, tuple(M)
    except Exception:
        return


def _instances(law: Law, problem: Problem,
               reached: Closure | None) -> tuple[Iterable[Instance], str, bool]:
    """The instances of ``law`` to enumerate, a description, and whether they cover its ∀."""
    A, V = problem.accumulators, problem.values
    vals = V.sample()
    v_desc = f"V = {V.spec}" if V.is_finite else f"the sample {_show(vals)} of {V.spec}"
    if law.key == "def11":
        n = problem.bounds.exhaustive_total
        return (((x, None) for x in _split_instances(vals, n)),
                f"single-key C, Δ with |C(k)| + |Δ⁺(k)| <= {n}, values from {v_desc}", False)
    if law.key == "def7":
        if reached is not None:
            return (({"M": M, "v": v}, None) for M in reached.paths() for v in vals), (
                f"all {len(reached)} reachable accumulators (closure of ι under ⊕ over "
                f"the finite V = {V.spec}) × every v"), True
        n = problem.bounds.bag
        return (({"M": M, "v": v}, None) for M in bags_up_to(vals, n) for v in vals), (
            f"every multiset M with |M| <= {n} and every v over {v_desc}"), False
    accs = A.sample()
    a_desc = f"A = {A.spec}" if A.is_finite else f"the sample {_show(accs)} of {A.spec}"
    names = [name for name, kind in law.params if kind == "value"]
    decided = A.is_finite and V.is_finite
    domain: Iterable[Instance] = (
        ({"a": a, **dict(zip(names, vs, strict=True))}, None)
        for a in accs for vs in itertools.product(vals, repeat=len(names)))
    searched = f"every a in {a_desc}, every v in {v_desc}"
    if law.key in REACHABLE_FIRST:
        sizes = (f"M = M0 ⊎ {{|v1, v2|}}, |M0| <= {max(1, problem.bounds.bag - 2)}"
                 if law.key == "def2-remove" else f"|M| <= {max(0, problem.bounds.bag - 1)}")
        searched = (f"first the reachable a = fold_⊕(ι, M), {sizes} of the first "
                    f"{REACH_VALUES} of {v_desc}, then {searched}")
        return itertools.chain(_reachable_instances(law, problem), domain), searched, decided
    return domain, searched, decided


def _show(xs: tuple[Any, ...], limit: int = 8) -> str:
    shown = ", ".join(repr(x) for x in xs[:limit])
    return "{" + shown + (", ..." if len(xs) > limit else "") + "}"


def _met(law: Law, finding: Finding, M: tuple[Any, ...]) -> bool:
    """Whether a runtime meets an instance at a = fold_⊕(ι, M): the values the call shown
    removes from a are in M (a valid removal); a call of add always is."""
    removing = law.key != "pure" or finding.removing()
    removed = [finding.args[name] for name in REMOVED_FROM_A.get(law.key, ()) if removing]
    return bag(removed).issubset(bag(M))


def check_law(law: Law, problem: Problem, reached: Closure | None = None) -> EngineResult:
    """Every instance of ``law`` up to the bounds, smallest first, until a counterexample. An
    instance folded from M that a runtime does not meet (``pure`` removing a value M lacks) is
    kept while the reachable instances go on: one a runtime meets is shown first."""
    clock = Stopwatch()
    instances, searched, covers = _instances(law, problem, reached)
    cap = problem.bounds.exhaustive_cap
    cases = declined = 0
    seen: set[Any] = set()
    kept: tuple[Found, Finding] | None = None  # the first counterexample a runtime does not meet

    def result(status: Status, finding: Finding | None, text: str = searched,
               decided: bool = False) -> EngineResult:
        return EngineResult("exhaustive", law.key, status, text, cases, declined, decided,
                            clock.seconds(), finding)

    for args, M in instances:
        if kept is not None and M is None:  # the reachable instances are done
            return result(*kept)
        if cases >= cap or (cases > 0 and problem.out_of_time()):  # always one instance
            why = f"the cap of {cap} instances" if cases >= cap else "the time limit"
            if kept is not None:
                return result(*kept)
            return result("holds", None, f"{searched}; stopped at {why}")
        key = freeze(args)
        if key in seen:  # the same instance folded from another M, or in the sample again
            continue
        seen.add(key)
        cases += 1
        status, finding = evaluate(problem, law, args)
        if status == "declined":
            declined += 1
        elif found(status) and finding is not None:
            if M is None:
                return result(status, finding)
            finding = dataclasses.replace(finding, built_from=M)
            if _met(law, finding, M):
                return result(status, finding)
            kept = kept or (status, finding)
    if kept is not None:
        return result(*kept)
    return result("holds", None, decided=covers)


def reachable_by_fold(problem: Problem) -> Closure | None:
    """The closure of ι under ⊕ over the finite V, when each of its elements b is
    fold_⊕(ι, M_b) for the multiset M_b of a path reaching it: then these M_b reach every
    accumulator fold_⊕(ι, M) there is, and SKIP-DEF-7 is decided on them. None otherwise."""
    if not problem.values.is_finite:
        return None
    closure = reachable(problem, problem.values.sample())
    if closure is None:
        return None
    try:
        with time_limit(problem.call_timeout):
            if all(freeze(fold(problem.R.add, problem.R.initial, bag(M))) == freeze(b)
                   for b, M in closure.items()):
                return closure
    except Exception:
        return None
    return None


#: how long the reference's decision procedure for SKIP-DEF-11 may run before the engine
#: falls back to bounded enumeration
DECIDE_SECONDS = 10.0


def decide_def11(law: Law, problem: Problem) -> EngineResult | None:
    """SKIP-DEF-11 decided by the reference (``decide_incremental_correctness``) when both
    domains are finite, A is closed under ⊕ and ⊖ and they commute (SKIP-DEF-6); None when
    the procedure does not apply (the caller then enumerates up to a bound)."""
    A, V = problem.accumulators.elements(), problem.values.elements()
    if A is None or V is None or not problem.equality.exact:
        return None
    clock = Stopwatch()
    try:
        with time_limit(max(0.1, min(DECIDE_SECONDS, problem.deadline - time.monotonic()))):
            verdict = decide_incremental_correctness(problem.R, A, V)
    except Exception:  # not closed, not commutative, too slow, or the reducer raised
        return None
    searched = (f"decided by the reference's decide_incremental_correctness on A = "
                f"{problem.accumulators.spec}, V = {problem.values.spec} ({verdict.searched})")
    if verdict.holds:
        return EngineResult("exhaustive", law.key, "holds", searched, verdict.cases, 0, True,
                            clock.seconds())
    witness = dict(verdict.counterexample or {})
    D = bag(witness["delta"].removed(witness["key"]).elements())
    M0 = witness["collection"][witness["key"]] - D
    args = {"M0": tuple(M0.elements()), "D": tuple(D.elements()), "P": ()}
    status, finding = evaluate(problem, law, args)  # re-checked on the law's own instance
    if not found(status):
        return None
    return EngineResult("exhaustive", law.key, status, searched, verdict.cases, 0, False,
                        clock.seconds(), finding)


def run(problem: Problem, laws: tuple[Law, ...] = LAWS) -> list[EngineResult]:
    """The exhaustive search for each law."""
    reached = reachable_by_fold(problem) if any(law.key == "def7" for law in laws) else None
    results = []
    for law in laws:
        decided = decide_def11(law, problem) if law.key == "def11" else None
        results.append(decided or check_law(law, problem, reached))
    return results
