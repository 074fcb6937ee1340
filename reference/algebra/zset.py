"""Z-sets: finite maps from elements to non-zero integer weights.

Z-sets are the free abelian group over a set (DD §2.1: "multisets with
integer multiplicities"); zero entries are never stored. Addition is pointwise,
negation flips every weight.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from reference.algebra.multiset import Multiset
from reference.algebra.weights import Weighted


class ZSet(Weighted):
    """An immutable Z-set: element -> non-zero integer weight."""

    __slots__ = ()

    @staticmethod
    def from_pairs(pairs: Iterable[tuple[Any, int]]) -> ZSet:
        total: dict[Any, int] = {}
        for e, w in pairs:
            total[e] = total.get(e, 0) + w
        return ZSet(total)

    @staticmethod
    def from_multiset(m: Multiset) -> ZSet:
        return ZSet(dict(m.items()))

    @staticmethod
    def zero() -> ZSet:
        return ZSet()

    def __add__(self, other: ZSet) -> ZSet:
        merged = dict(self._w)
        for e, w in other._w.items():
            merged[e] = merged.get(e, 0) + w
        return ZSet._from_clean({e: w for e, w in merged.items() if w != 0})

    def __neg__(self) -> ZSet:
        return ZSet._from_clean({e: -w for e, w in self._w.items()})

    def __sub__(self, other: ZSet) -> ZSet:
        return self + (-other)

    def scale(self, k: int) -> ZSet:
        return ZSet({e: k * w for e, w in self._w.items()})

    def is_positive(self) -> bool:
        """All weights > 0 (the Z-set is a multiset)."""
        return all(w > 0 for w in self._w.values())

    def to_multiset(self) -> Multiset:
        if not self.is_positive():
            raise ValueError(f"not a multiset (negative weights): {self!r}")
        return Multiset(dict(self._w))

    def map(self, f: Callable[[Any], Any]) -> ZSet:
        """The linear extension of ``f`` on elements (weights add on collisions)."""
        return ZSet.from_pairs((f(e), w) for e, w in self._w.items())

    def filter(self, p: Callable[[Any], bool]) -> ZSet:
        return ZSet({e: w for e, w in self._w.items() if p(e)})
