"""The named reducers a ``reduce`` case may declare: the suite's vocabulary.

An implementation in any language implements these by name. Their meaning is
fixed by the reference's registry of built-in reducers
(:mod:`reference.skip.builtins`, SKIP-DEC-BUILTINS), restricted to those whose
values and accumulators are JSON integers, plus one reducer the suite adds:

=======================  ====  =========================  ================================  ============
name                     ι     a ⊕ v                      a ⊖ v                             maintenance
=======================  ====  =========================  ================================  ============
``sum``                  0     a + v                      a - v                             well-formed
``count``                0     a + 1 (any JSON value v)   a - 1                             well-formed
``xor``                  0     a ^ v                      a ^ v                             well-formed
``sum_monus_int``        0     a + v (v >= 0)             max(a - v, 0)                     well-formed
``min``                  +∞    min(a, v)                  declines if v <= a, else a        declining
``max``                  -∞    max(a, v)                  declines if v >= a, else a        declining
``sum_bad_remove``       0     a + v                      a - 2v                            ill-formed
``min_never_declines``   +∞    min(a, v)                  a                                 ill-formed
``min_declines_below``   +∞    min(a, v)                  declines if v < a, else a         ill-formed
``saturating_sum``       0     min(cap, a + v) (v >= 0)   a - v                             ill-formed
=======================  ====  =========================  ================================  ============

A *declining* remove is Skip's ``null``: the engine must then recompute the
key from ι and ⊕ over the key's values after the delta (SKIP-DEC-PARTIAL).
ι = ±∞ is never observed: the view only has keys with a non-empty multiset
(SKIP-DEC-VIEW).

``saturating_sum`` (``params = {"cap": int}``) is the suite's own: its ⊕ and ⊖
are each pairwise commutative but do not commute with each other once the cap
is reached, so an engine that applies Δ⁺ before Δ⁻ (against SKIP-DEF-10)
gives a different answer; it is ill-formed (SKIP-DEF-7), so by Theorem 2 some
valid delta makes the incremental update differ from a recompute.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

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


def _from_builtin(name: str) -> ReducerSpec:
    b = builtin(name)
    return ReducerSpec(name, not b.ill_formed, b.expected.total, lambda _params: b.reducer)


def _saturating_sum(params: Mapping[str, Any]) -> Reducer[Any, Any]:
    cap = int(params["cap"])
    return Reducer(0, lambda a, v: min(cap, a + v), lambda a, v: a - v, name="saturating_sum")


BUILTIN_NAMES = ("sum", "count", "xor", "sum_monus_int", "min", "max",
                 "sum_bad_remove", "min_never_declines", "min_declines_below")

REDUCERS: dict[str, ReducerSpec] = {
    **{name: _from_builtin(name) for name in BUILTIN_NAMES},
    "saturating_sum": ReducerSpec("saturating_sum", False, True, _saturating_sum),
}


def build(name: str, params: Mapping[str, Any]) -> Reducer[Any, Any]:
    """The reference reducer for a suite name; ``KeyError`` for an unknown name."""
    return REDUCERS[name].build(params)
