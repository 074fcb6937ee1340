"""Finite maps from elements to non-zero integer weights: the common core of
:class:`~reference.algebra.multiset.Multiset` (weights > 0) and
:class:`~reference.algebra.zset.ZSet` (weights != 0).

Values are immutable: every operation returns a new value. Zero weights are
never stored, so two equal values have equal internal maps, hence equal hashes.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator, Mapping
from typing import Any, Self


def canonical_order(elements: Iterable[Any]) -> list[Any]:
    """Sort elements deterministically: by natural order when comparable, else by ``repr``."""
    items = list(elements)
    try:
        return sorted(items)
    except TypeError:
        return sorted(items, key=repr)


def normalise(weights: Iterable[tuple[Hashable, int]]) -> dict[Any, int]:
    """Sum the weights per element and drop the zeros."""
    total: dict[Any, int] = {}
    for element, weight in weights:
        total[element] = total.get(element, 0) + weight
    return {e: w for e, w in total.items() if w != 0}


class Weighted:
    """Immutable finite map element -> non-zero int. Subclasses fix the sign rule."""

    __slots__ = ("_w", "_hash")

    _w: dict[Any, int]
    _hash: int | None

    def __init__(self, weights: Mapping[Any, int] | None = None) -> None:
        clean = normalise((weights or {}).items())
        self._check(clean)
        object.__setattr__(self, "_w", clean)
        object.__setattr__(self, "_hash", None)

    def _check(self, weights: Mapping[Any, int]) -> None:  # overridden by subclasses
        pass

    @classmethod
    def _from_clean(cls, weights: dict[Any, int]) -> Self:
        """The value of a map already free of zeros and valid for ``cls`` (no copy, no
        re-check): for operations whose result is clean by construction, such as ``⊎``
        of two multisets, which the stream checks run hundreds of thousands of times."""
        value = object.__new__(cls)
        object.__setattr__(value, "_w", weights)
        object.__setattr__(value, "_hash", None)
        return value

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def weight(self, element: Any) -> int:
        """The weight (multiplicity) of ``element``; 0 when absent."""
        return self._w.get(element, 0)

    def support(self) -> frozenset[Any]:
        """The elements with non-zero weight."""
        return frozenset(self._w)

    def items(self) -> list[tuple[Any, int]]:
        """``(element, weight)`` pairs in canonical order."""
        return [(e, self._w[e]) for e in canonical_order(self._w)]

    def is_empty(self) -> bool:
        return not self._w

    def __contains__(self, element: object) -> bool:
        return element in self._w

    def __iter__(self) -> Iterator[Any]:
        return iter(canonical_order(self._w))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Weighted) and type(self) is type(other) and self._w == other._w

    def __hash__(self) -> int:
        if self._hash is None:
            object.__setattr__(self, "_hash", hash(frozenset(self._w.items())))
        assert self._hash is not None
        return self._hash

    def __repr__(self) -> str:
        body = ", ".join(f"{e!r}: {w}" for e, w in self.items())
        return f"{type(self).__name__}({{{body}}})"
