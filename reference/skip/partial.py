"""Partial reducers (SKIP §6.3 and SKIP-DEC-PARTIAL): ``remove`` may decline.

The paper's R_min = (+∞, min, ⊥) "is not a reducer in the strict sense of
Definition 7"; "the Skip runtime handles such partial reducers by either
recomputing from scratch when values are removed, or maintaining additional
state (e.g., a sorted structure of all values)". Skip's reducer interface lets
``remove`` return ``null`` to ask for the first; its built-in Min returns
``null`` exactly when the removed value is <= the current minimum.

SKIP-DEC-PARTIAL: a removal that declines (``None``) makes the runtime drop the
key's accumulator and recompute it as fold_⊕(ι, C'(k)) over the key's values
after the delta. For a reducer that never declines this is Def. 10 unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from reference.algebra.multiset import Multiset
from reference.skip.core import Declined, Delta, Reducer, fold, update

A = TypeVar("A")
V = TypeVar("V")


def update_or_recompute(R: Reducer[A, V], a_k: A, delta: Delta, k: Any, C_next_k: Multiset) -> A:
    """SKIP-DEC-PARTIAL: update_R(a_k, Δ, k) (SKIP-DEF-10) when no removal declines,
    else fold_⊕(ι, C'(k)) where ``C_next_k`` = C'(k) = (C • Δ)(k)."""
    try:
        return update(R, a_k, delta, k)
    except Declined:
        return fold(R.add, R.initial, C_next_k)


def lifted_remove(R: Reducer[A, V]) -> Callable[[A | None, V], A | None]:
    """⊖ lifted to A ∪ {None} -> A ∪ {None}: a declined removal (None) is absorbing, since
    once the runtime recomputes the key, later removals do not matter. Def. 6's pairwise
    commutativity of a partial ⊖ is that of this operation
    (:func:`reference.skip.wellformed.check_reducer`): both orders declining agree, one
    order declining while the other answers does not."""

    def remove(a: A | None, v: V) -> A | None:
        return None if a is None else R.remove(a, v)

    return remove


def declines(R: Reducer[A, V], a: A, v: V) -> bool:
    """Whether ``remove`` declines (returns None, Skip's ``null``) at (a, v)."""
    return R.remove(a, v) is None


# --- §6.3 min and max: "recompute on decline" ---------------------------------
# Accumulators are ints or ±∞ (floats), as Skip's Min/Max start from ±∞.


def min_add(a: float, v: float) -> float:
    """R_min's ⊕: λ(a, v). min(a, v)."""
    return min(a, v)


def min_remove(a: float, v: float) -> float | None:
    """Skip's built-in Min: decline (recompute) when the removed value is <= the
    current minimum; otherwise the minimum is unchanged."""
    return None if v <= a else a


def max_add(a: float, v: float) -> float:
    """R_max's ⊕: λ(a, v). max(a, v)."""
    return max(a, v)


def max_remove(a: float, v: float) -> float | None:
    """Dual of :func:`min_remove`: decline when the removed value is >= the current maximum."""
    return None if v >= a else a


# --- §6.3 min and max: "maintain additional state" (a sorted multiset) ----------


def sorted_add(M: Multiset, v: Any) -> Multiset:
    """⊕ of the maintained-state variant: M ⊎ {v} (a Multiset enumerates in sorted order)."""
    return M | Multiset.of(v)


def sorted_remove(M: Multiset, v: Any) -> Multiset:
    """⊖ of the maintained-state variant: M \\ {v} (never declines)."""
    return M - Multiset.of(v)


def observe_min(M: Multiset) -> float:
    """The minimum the sorted state stands for (+∞ for the empty multiset, as R_min's ι)."""
    return float("inf") if M.is_empty() else min(M.elements())


def observe_max(M: Multiset) -> float:
    """The maximum the sorted state stands for (-∞ for the empty multiset)."""
    return float("-inf") if M.is_empty() else max(M.elements())
