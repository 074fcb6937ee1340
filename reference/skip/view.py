"""The observable view (SKIP-DEC-VIEW).

The paper's view reduce_R(C) : K -> A is total: a key whose multiset is empty
maps to ι. A reactive collection has no entry for such a key. The project
observes the view as a reactive collection does (:func:`reference.skip.core.reduce`:
the keys with a non-empty multiset) and derives the paper's total view from it
(:func:`total_view`); the converse derivation is impossible (for sum, the keys
holding {1, -1} and ∅ both map to 0 in the total view).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from reference.skip.core import Reducer

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
