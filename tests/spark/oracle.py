"""Expected observations for the Spark tests, from ``reference/`` (the oracle).

The Spark implementation never imports this; only the tests compare it with it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from conformance import reducers
from reference.algebra.multiset import Multiset
from reference.reduce import Collection, Delta, apply_delta, reduce
from reference.skip.view import view_changes

View = dict[Any, Any]


def collection(raw: Mapping[Any, Sequence[Any]]) -> dict[Any, Multiset]:
    return {k: Multiset.from_iterable(vs) for k, vs in raw.items() if vs}


class ReduceModel:
    """The denotational semantics: after every operation, reduce_R(C) from scratch."""

    def __init__(self, name: str, params: Mapping[str, Any] | None = None) -> None:
        self.R = reducers.build(name, params or {})  # the suite's vocabulary, read by the oracle
        self.C: Collection = {}
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
        changes = view_changes(self.view, new)
        self.view = new
        return new, changes


def assert_replay_matches(engine: Any, model: ReduceModel, initial: Mapping[Any, Sequence[Any]],
                          steps: Sequence[tuple[Any, Any]]) -> None:
    """Load ``initial`` into a declared reduce engine, then apply each ``(plus, minus)`` step:
    each observation's view and changes are the model's, an invalid delta refused as one."""
    import pytest

    from conformance.protocols import EngineError
    from reference.reduce import InvalidDelta

    obs = engine.load(initial)
    assert (dict(obs.view), dict(obs.changes)) == model.load(initial)
    for plus, minus in steps:
        try:
            expected = model.apply(plus, minus)
        except InvalidDelta:
            with pytest.raises(EngineError) as refused:
                engine.apply(plus, minus)
            assert refused.value.error_class == "invalid-delta"
            continue
        obs = engine.apply(plus, minus)
        assert (dict(obs.view), dict(obs.changes)) == expected, (plus, minus)
