"""§3.1.4 "Required Properties": the user obligations of the low-level API as
checkers returning a :class:`~reference.verdict.Verdict`, and the automatic
properties that hold by construction.

* FIX-DEF-3.1.4.1: during one call stepFwd(x) returns consistent results;
* FIX-DEF-3.1.4.2: ``addedToStep`` / ``removedFromStep`` list exactly the pairs
  that changed between the old and the new step relation.

The managed API (:mod:`reference.fixpoint.managed`) owns the step relation and
computes the delta itself, so it cannot violate either.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from reference.fixpoint.general_pattern import Edge, Elem, StepFwd
from reference.fixpoint.level1 import StepDelta
from reference.verdict import Verdict, fails, holds


def check_step_fwd_stable(step_fwd: StepFwd, domain: Iterable[Elem], calls: int = 2) -> Verdict:
    """FIX-DEF-3.1.4.1: stepFwd(x) gives the same set on ``calls`` consecutive
    calls, for every x in ``domain`` (decided for that domain and that many calls;
    a function that changes only later is out of reach of any finite check)."""
    xs = tuple(domain)
    for x in xs:
        first = frozenset(step_fwd(x))
        for _ in range(calls - 1):
            again = frozenset(step_fwd(x))
            if again != first:
                return fails("FIX-DEF-3.1.4.1", f"{len(xs)} elements x {calls} calls", len(xs),
                             element=x, first=first, later=again)
    return holds("FIX-DEF-3.1.4.1", f"{len(xs)} elements x {calls} calls", len(xs))


def exact_step_delta(old: StepFwd, new: StepFwd, domain: Iterable[Elem]) -> tuple[frozenset[Edge], frozenset[Edge]]:
    """The true (addedToStep, removedFromStep) between two step relations on ``domain``."""
    added: set[Edge] = set()
    removed: set[Edge] = set()
    for x in domain:
        before, after = frozenset(old(x)), frozenset(new(x))
        added.update((x, y) for y in after - before)
        removed.update((x, y) for y in before - after)
    return frozenset(added), frozenset(removed)


def check_delta_accuracy(old: StepFwd, new: StepFwd, domain: Iterable[Elem],
                         delta: StepDelta) -> Verdict:
    """FIX-DEF-3.1.4.2: the delta's step pairs are exactly the changed pairs of the
    step relation on ``domain`` (decided on that domain). A failing verdict
    names the missing and the spurious pairs of each list."""
    xs = tuple(domain)
    added, removed = exact_step_delta(old, new, xs)
    given_added, given_removed = frozenset(delta.added_to_step), frozenset(delta.removed_from_step)
    searched = f"step pairs out of {len(xs)} elements"
    if given_added == added and given_removed == removed:
        return holds("FIX-DEF-3.1.4.2", searched, len(xs), decided=True)
    return fails("FIX-DEF-3.1.4.2", searched, len(xs),
                 addedToStep_missing=added - given_added,
                 addedToStep_spurious=given_added - added,
                 removedFromStep_missing=removed - given_removed,
                 removedFromStep_spurious=given_removed - removed)


# --- automatic properties (§3.1.4) -------------------------------------------
# Each holds by construction for step(S) = ⋃_{x∈S} stepFwd(x) (pass
# ``lambda S: step(op, S)``); the checkers take any set function, so that a
# step not built from stepFwd (e.g. one that counts or negates) can fail them.

SetFunction = Callable[[frozenset[Elem]], frozenset[Elem]]


def check_monotone(F_of: SetFunction, A: frozenset[Elem], B: frozenset[Elem]) -> bool:
    """FIX-CLAIM-3.1.4-AUTO-1: A ⊆ B implies F(A) ⊆ F(B) (checked on A ∩ B ⊆ B)."""
    return F_of(A & B) <= F_of(B)


def check_element_wise(step_of: SetFunction, A: frozenset[Elem]) -> bool:
    """FIX-CLAIM-3.1.4-AUTO-3: x ∈ step(A) implies x ∈ step({a}) for some a ∈ A
    (Lean ``stepElementWise``)."""
    singles = frozenset(x for a in A for x in step_of(frozenset({a})))
    return step_of(A) <= singles


def check_additive(step_of: SetFunction, A: frozenset[Elem], B: frozenset[Elem]) -> bool:
    """FIX-CLAIM-3.1.4-AUTO-4: step(A ∪ B) = step(A) ∪ step(B)."""
    return step_of(A | B) == step_of(A) | step_of(B)


def check_inverse(step_fwd: StepFwd, step_inv: StepFwd, domain: Iterable[Elem]) -> bool:
    """FIX-CLAIM-3.1.4-AUTO-2: y ∈ stepInv(x) ⇔ x ∈ stepFwd(y), on ``domain``."""
    xs = tuple(domain)
    return all((y in frozenset(step_inv(x))) == (x in frozenset(step_fwd(y))) for x in xs for y in xs)
