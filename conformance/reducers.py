"""The named reducers a ``reduce`` case may declare, as the oracle reads them.

The vocabulary itself (names, parameters, value and accumulator types, ι, ⊕, ⊖,
well-formedness) is the language-neutral ``conformance/vocabulary/reducers.json``;
this module gives each name its meaning for the oracle: the reference's registry of
built-in reducers (:mod:`reference.skip.builtins`, SKIP-DEC-BUILTINS), restricted to
those whose values and accumulators are JSON integers, plus ``saturating_sum``, the
suite's own.

A *declining* remove is Skip's ``null``: the engine must then recompute the
key from ι and ⊕ over the key's values after the delta (SKIP-DEC-PARTIAL).

``saturating_sum`` (``params = {"cap": int}``) has ⊕ and ⊖ each pairwise
commutative but not commuting with each other once the cap is reached, so an
engine that applies Δ⁺ before Δ⁻ (against SKIP-DEF-10) gives a different answer;
it is ill-formed (SKIP-DEF-7), so by Theorem 2 some valid delta makes the
incremental update differ from a recompute.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from conformance import vocabulary
from reference.reduce import Reducer, builtin


@dataclass(frozen=True)
class ReducerSpec:
    """A named reducer of the suite, its properties, and how to build it."""

    name: str
    well_formed: bool  # incremental maintenance (with recompute on decline) equals recomputation
    total: bool  # remove never declines
    build: Callable[[Mapping[str, Any]], Reducer[Any, Any]]

    @property
    def features(self) -> tuple[str, ...]:
        """The features a case declaring this reducer needs."""
        return (() if self.total else ("declining-remove",)) + (
            () if self.well_formed else ("ill-formed-reducers",))


def _saturating_sum(params: Mapping[str, Any]) -> Reducer[Any, Any]:
    cap = int(params["cap"])
    return Reducer(0, lambda a, v: min(cap, a + v), lambda a, v: a - v, name="saturating_sum")


#: The reducers the suite defines itself (every other name is a reference built-in).
SUITE_OWN: dict[str, Callable[[Mapping[str, Any]], Reducer[Any, Any]]] = {"saturating_sum": _saturating_sum}


def _spec(entry: Mapping[str, Any]) -> ReducerSpec:
    name = entry["name"]
    if name in SUITE_OWN:
        make = SUITE_OWN[name]
    else:
        reducer = builtin(name).reducer
        make = lambda _params: reducer  # noqa: E731 - a built-in takes no parameters
    return ReducerSpec(name, entry["well_formed"], not entry["remove_may_decline"], make)


REDUCERS: dict[str, ReducerSpec] = {name: _spec(e) for name, e in vocabulary.reducers().items()}


def build(name: str, params: Mapping[str, Any]) -> Reducer[Any, Any]:
    """The reference reducer for a suite name; ``KeyError`` for an unknown name."""
    return REDUCERS[name].build(params)
