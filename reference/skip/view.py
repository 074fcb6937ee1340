"""The observable view (SKIP-DEC-VIEW).

The paper's view reduce_R(C) : K -> A is total: a key whose multiset is empty
maps to ι. A reactive collection has no entry for such a key. The project
observes the view as a reactive collection does (:func:`reference.skip.core.reduce`:
the keys with a non-empty multiset) and derives the paper's total view from it
(:func:`total_view`); the converse derivation is impossible (for sum, the keys
holding {1, -1} and ∅ both map to 0 in the total view).

The view a delta leads to (:func:`update_view`) is persistent, like C • Δ
(SKIP-DEC-PERSISTENT-VIEW): it writes the keys the delta touches and shares the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from reference.algebra.persistent import PMap
from reference.skip.core import Collection, Delta, Reducer, values_at
from reference.skip.partial import update_or_recompute

A = TypeVar("A")
V = TypeVar("V")


def total_view(R: Reducer[A, V], observed: Mapping[Any, A]) -> Callable[[Any], A]:
    """SKIP-DEC-VIEW: the paper's total view λk. reduce_R(C)(k) from the observed
    one: the observed accumulator where the key is present, ι elsewhere."""

    def at(k: Any) -> A:
        return observed[k] if k in observed else R.initial

    return at


def view_changes(before: Mapping[Any, A], after: Mapping[Any, A]) -> dict[Any, A | None]:
    """The changes a reactive view emits between two observations: key -> new
    accumulator where it changed or appeared, key -> None where it left the view."""
    changes: dict[Any, A | None] = {k: a for k, a in after.items()
                                    if k not in before or before[k] != a}
    changes.update({k: None for k in before if k not in after})
    return changes


def update_view(R: Reducer[A, V], view: Mapping[Any, A], delta: Delta,
                C_next: Collection) -> PMap[Any, A]:
    """The observed view of C • Δ from the observed view of C: SKIP-DEF-10 at each key
    Δ touches, update_R(a_k, Δ, k) with a_k = ``view[k]`` (ι for a key outside the view),
    recomputed where ``remove`` declines (SKIP-DEC-PARTIAL); a key whose multiset
    ``C_next(k)`` = (C • Δ)(k) is empty leaves the view (SKIP-DEC-VIEW); every other key
    keeps its accumulator. For a reducer correct in the sense of SKIP-DEF-11 this is
    ``reduce(R, C_next)``.

    Persistent (SKIP-DEC-PERSISTENT-VIEW): O(|keys(Δ)|) plus those keys' values when
    ``view`` is persistent, and ``view`` itself is left unchanged.
    """
    result = (view if isinstance(view, PMap) else PMap(view)).evolver()
    for k in delta.keys():
        C_next_k = values_at(C_next, k)
        if C_next_k.is_empty():
            result.discard(k)
        else:
            result[k] = update_or_recompute(R, result.get(k, R.initial), delta, k, C_next_k)
    return result.persistent()
