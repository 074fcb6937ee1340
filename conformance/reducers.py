"""The named reducers a ``reduce`` case may declare: the suite's vocabulary.

An implementation in any language implements these by name; their meaning is
fixed here, in words and in code (the Python :class:`reference.reduce.Reducer`
the oracle uses). Values are JSON integers unless said otherwise.

=================  =======  ==========================  ===================================  ==========
name               ι        a ⊕ v                       a ⊖ v                                well-formed
=================  =======  ==========================  ===================================  ==========
``sum``            0        a + v                       a - v                                yes
``count``          0        a + 1 (any JSON value v)    a - 1                                yes
``min``            null     min(a, v) (null = +∞)       declines (null) if v <= a, else a    partial
``max``            null     max(a, v) (null = -∞)       declines (null) if v >= a, else a    partial
``saturating-sum`` 0        min(cap, a + v)             a - v                                no
``sloppy-max``     null     max(a, v)                   a (never declines)                   no
=================  =======  ==========================  ===================================  ==========

``saturating-sum`` takes ``params = {"cap": int}`` and values >= 0: its ⊕ and ⊖
are each pairwise commutative, but ⊖ is not the inverse of ⊕ once the cap is
reached, so it is ill-formed (SKIP-DEF-7) and, by Theorem 2, some valid delta
makes the incremental update differ from a recompute. ``sloppy-max`` is the
"remove is a no-op" mistake.

A *declining* remove (``min``, ``max``) is Skip's ``null``: the engine must then
recompute the key from ι and ⊕ over the key's current values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from reference.reduce import Reducer


@dataclass(frozen=True)
class ReducerSpec:
    """A named reducer of the suite, its properties, and how to build it."""

    name: str
    well_formed: bool
    total: bool  # remove never declines
    build: Callable[[Mapping[str, Any]], Reducer[Any, Any]]
    features: tuple[str, ...] = ()  # features a case using it needs


def _sum(_: Mapping[str, Any]) -> Reducer[Any, Any]:
    return Reducer(0, lambda a, v: a + v, lambda a, v: a - v, name="sum")


def _count(_: Mapping[str, Any]) -> Reducer[Any, Any]:
    return Reducer(0, lambda a, v: a + 1, lambda a, v: a - 1, name="count")


def _min(_: Mapping[str, Any]) -> Reducer[Any, Any]:
    return Reducer(
        None,
        lambda a, v: v if a is None or v < a else a,
        lambda a, v: None if a is None or v <= a else a,
        name="min",
    )


def _max(_: Mapping[str, Any]) -> Reducer[Any, Any]:
    return Reducer(
        None,
        lambda a, v: v if a is None or v > a else a,
        lambda a, v: None if a is None or v >= a else a,
        name="max",
    )


def _saturating_sum(params: Mapping[str, Any]) -> Reducer[Any, Any]:
    cap = int(params["cap"])
    return Reducer(0, lambda a, v: min(cap, a + v), lambda a, v: a - v, name="saturating-sum")


def _sloppy_max(_: Mapping[str, Any]) -> Reducer[Any, Any]:
    return Reducer(None, lambda a, v: v if a is None or v > a else a, lambda a, v: a,
                   name="sloppy-max")


REDUCERS: dict[str, ReducerSpec] = {
    spec.name: spec
    for spec in (
        ReducerSpec("sum", True, True, _sum),
        ReducerSpec("count", True, True, _count),
        ReducerSpec("min", True, False, _min, ("declining-remove",)),
        ReducerSpec("max", True, False, _max, ("declining-remove",)),
        ReducerSpec("saturating-sum", False, True, _saturating_sum, ("ill-formed-reducers",)),
        ReducerSpec("sloppy-max", False, True, _sloppy_max, ("ill-formed-reducers",)),
    )
}


def build(name: str, params: Mapping[str, Any]) -> Reducer[Any, Any]:
    """The reference reducer for a suite name; ``KeyError`` for an unknown name."""
    return REDUCERS[name].build(params)
