"""Expected observations for the Spark tests, from ``reference/`` (the oracle).

The Spark implementation never imports this; only the tests compare it with it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from reference.algebra.multiset import Multiset
from reference.reduce import Delta, Reducer, apply_delta, reduce

View = dict[Any, Any]


def reference_reducer(name: str, params: Mapping[str, Any]) -> Reducer[Any, Any]:
    """The suite's named reducers, as reference reducers."""
    table: dict[str, Reducer[Any, Any]] = {
        "sum": Reducer(0, lambda a, v: a + v, lambda a, v: a - v),
        "count": Reducer(0, lambda a, v: a + 1, lambda a, v: a - 1),
        "min": Reducer(None, lambda a, v: v if a is None or v < a else a,
                       lambda a, v: None if a is None or v <= a else a),
        "max": Reducer(None, lambda a, v: v if a is None or v > a else a,
                       lambda a, v: None if a is None or v >= a else a),
    }
    return table[name]


def collection(raw: Mapping[Any, Sequence[Any]]) -> dict[Any, Multiset]:
    return {k: Multiset.from_iterable(vs) for k, vs in raw.items() if vs}


def changes_between(old: View, new: View) -> dict[Any, Any]:
    changed: dict[Any, Any] = {k: v for k, v in new.items() if k not in old or old[k] != v}
    changed.update({k: None for k in old if k not in new})
    return changed


class ReduceModel:
    """The denotational semantics: after every operation, reduce_R(C) from scratch."""

    def __init__(self, name: str, params: Mapping[str, Any] | None = None) -> None:
        self.R = reference_reducer(name, params or {})
        self.C: dict[Any, Multiset] = {}
        self.view: View = {}

    def load(self, raw: Mapping[Any, Sequence[Any]]) -> tuple[View, dict[Any, Any]]:
        self.C = collection(raw)
        return self._observe()

    def apply(self, plus: Mapping[Any, Sequence[Any]],
              minus: Mapping[Any, Sequence[Any]]) -> tuple[View, dict[Any, Any]]:
        """Raises ``reference.reduce.InvalidDelta`` (state unchanged) for an invalid delta."""
        self.C = apply_delta(self.C, Delta(collection(plus), collection(minus)))
        return self._observe()

    def _observe(self) -> tuple[View, dict[Any, Any]]:
        new = reduce(self.R, self.C)
        changes = changes_between(self.view, new)
        self.view = new
        return new, changes
