"""Finite carriers: the bounded domains over which the checkers of
:mod:`reference.skip` enumerate (multisets up to a size, sub-multisets,
enumerations, and every operation on Z_n x Z_m).

A checker that enumerates a whole finite carrier *decides* its statement; over a
sample of an infinite one it "holds up to" the bound it names.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations_with_replacement, permutations, product
from typing import Any, Generic, TypeVar

from reference.algebra.multiset import Multiset

T = TypeVar("T")


def multisets_up_to(values: Sequence[Any], max_size: int) -> Iterator[Multiset]:
    """Every multiset over ``values`` with at most ``max_size`` elements, smallest first."""
    for size in range(max_size + 1):
        for combo in combinations_with_replacement(values, size):
            yield Multiset.from_iterable(combo)


def submultisets(M: Multiset) -> Iterator[Multiset]:
    """Every N ⊆ M (multiplicity-wise), the empty one first."""
    support = M.items()
    for counts in product(*(range(n + 1) for _, n in support)):
        yield Multiset({e: c for (e, _), c in zip(support, counts, strict=True)})


def enumerations(M: Multiset) -> list[tuple[Any, ...]]:
    """The distinct sequences enumerating M with multiplicity (|M|! / ∏ n_i! of them)."""
    return sorted(set(permutations(M.elements())), key=repr)


@dataclass(frozen=True)
class Table(Generic[T]):
    """An operation Z_n x Z_m -> T given by its table, ``rows[a][v]``: T = int for
    a total operation, T = int | None for a remove that may decline."""

    rows: tuple[tuple[T, ...], ...]

    def __call__(self, a: int, v: int) -> T:
        return self.rows[a][v]


def all_operations(n: int, m: int) -> Iterator[Table[int]]:
    """Every operation Z_n x Z_m -> Z_n (n^(n*m) of them)."""
    return _tables(tuple(range(n)), n, m)


def all_partial_operations(n: int, m: int) -> Iterator[Table[int | None]]:
    """Every operation Z_n x Z_m -> Z_n ∪ {None} ((n+1)^(n*m) of them; None = decline)."""
    return _tables((*range(n), None), n, m)


def _tables(outcomes: tuple[T, ...], n: int, m: int) -> Iterator[Table[T]]:
    for cells in product(outcomes, repeat=n * m):
        yield Table(tuple(tuple(cells[a * m:(a + 1) * m]) for a in range(n)))
