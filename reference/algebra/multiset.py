"""Finite multisets M(V) (SKIP §2 Preliminaries).

"For a set V, we write M(V) for the set of finite multisets over V; we use ⊎
and \\ for multiset union and multiset difference, respectively, and write
M ⊆ N for multisets when every element has multiplicity in M less than or
equal to its multiplicity in N."
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from reference.algebra.weights import Weighted, canonical_order


class Multiset(Weighted):
    """An immutable finite multiset: element -> multiplicity (> 0)."""

    __slots__ = ()

    def _check(self, weights: Mapping[Any, int]) -> None:
        negative = [e for e, w in weights.items() if w < 0]
        if negative:
            raise ValueError(f"a multiset has no negative multiplicities: {negative!r}")

    @staticmethod
    def of(*elements: Any) -> Multiset:
        """The multiset enumerated (with multiplicity) by ``elements``."""
        return Multiset.from_iterable(elements)

    @staticmethod
    def from_iterable(elements: Iterable[Any]) -> Multiset:
        counts: dict[Any, int] = {}
        for e in elements:
            counts[e] = counts.get(e, 0) + 1
        return Multiset(counts)

    def multiplicity(self, element: Any) -> int:
        return self.weight(element)

    def __len__(self) -> int:
        """The size |M|, counting multiplicity."""
        return sum(self._w.values())

    def elements(self) -> Iterator[Any]:
        """One enumeration of M with multiplicity, in canonical order."""
        for e in canonical_order(self._w):
            for _ in range(self._w[e]):
                yield e

    def union(self, other: Multiset) -> Multiset:
        """M ⊎ N: multiplicities add."""
        merged = dict(self._w)
        for e, w in other._w.items():
            merged[e] = merged.get(e, 0) + w
        return Multiset._from_clean(merged)  # positive + positive: no zero, no negative

    def difference(self, other: Multiset) -> Multiset:
        """M \\ N: multiplicities subtract, truncated at zero."""
        return Multiset({e: max(0, w - other.weight(e)) for e, w in self._w.items()})

    def issubset(self, other: Multiset) -> bool:
        """M ⊆ N: every multiplicity in M is at most that in N."""
        return all(w <= other.weight(e) for e, w in self._w.items())

    def __or__(self, other: Multiset) -> Multiset:  # M ⊎ N
        return self.union(other)

    def __sub__(self, other: Multiset) -> Multiset:  # M \ N
        return self.difference(other)

    def __le__(self, other: Multiset) -> bool:  # M ⊆ N
        return self.issubset(other)
