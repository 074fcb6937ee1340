"""Orders, finite down-closed domains, groups and stream strategies shared by the DD checks."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import product
from typing import Any

from hypothesis import strategies as st

from reference.algebra.group import Group, Integers, ZSets
from reference.algebra.zset import ZSet
from reference.differential.mobius import Stream, StreamGroup
from reference.differential.orders import (
    FinitePowerset,
    LocallyFiniteOrder,
    Naturals,
    PrefixOrder,
    ProductOrder,
    down_closure,
    naturals_power,
)

N = Naturals()
N2 = naturals_power(2)
N3 = naturals_power(3)
P = FinitePowerset()
WORDS = PrefixOrder()
N_X_P = ProductOrder((N, P))


def words(alphabet: tuple[Any, ...], length: int) -> list[tuple[Any, ...]]:
    return [w for n in range(length + 1) for w in product(alphabet, repeat=n)]


#: (name, order, a finite down-closed domain); every lattice among them has binary sups.
DOMAINS: list[tuple[str, LocallyFiniteOrder[Any], tuple[Any, ...]]] = [
    ("N<=4", N, tuple(range(5))),
    ("N^2<=(2,2)", N2, N2.down((2, 2))),
    ("N^3<=(1,1,1)", N3, N3.down((1, 1, 1))),
    ("P({0,1,2})", P, P.down(frozenset({0, 1, 2}))),
    ("N x P({0,1})", N_X_P, N_X_P.down((1, frozenset({0, 1})))),
]
LATTICES = DOMAINS
FOREST = ("words over {0,1}, length <= 2", WORDS, down_closure(WORDS, words((0, 1), 2)))
SMALL_DOMAINS: list[tuple[str, LocallyFiniteOrder[Any], tuple[Any, ...]]] = [
    ("N<=2", N, tuple(range(3))),
    ("N^2<=(1,1)", N2, N2.down((1, 1))),
    ("P({0,1})", P, P.down(frozenset({0, 1}))),
]

INTS = Integers()
ZSETS = ZSets()


def zsets(max_size: int = 3) -> st.SearchStrategy[ZSet]:
    return st.lists(
        st.tuples(st.integers(0, 3), st.integers(-2, 2)), max_size=max_size
    ).map(ZSet.from_pairs)


def values_of(group: Group[Any]) -> st.SearchStrategy[Any]:
    """Small elements of a group used in the checks (ints, Z-sets, streams of them)."""
    if isinstance(group, Integers):
        return st.integers(-3, 3)
    if isinstance(group, ZSets):
        return zsets()
    assert isinstance(group, StreamGroup)
    return streams_in(group)


def streams_in(group: StreamGroup) -> st.SearchStrategy[Stream[Any, Any]]:
    n = len(group.domain)
    return st.lists(values_of(group.inner), min_size=n, max_size=n).map(
        lambda vs: Stream(group.domain, tuple(vs))
    )


def all_int_streams(domain: tuple[Any, ...], values: range) -> Iterator[Stream[Any, int]]:
    """Every stream on ``domain`` with values in ``values`` (exhaustive checks)."""
    for vs in product(values, repeat=len(domain)):
        yield Stream(domain, vs)


class FiniteOrder(LocallyFiniteOrder[str]):
    """An explicit finite poset (for counterexamples): ``below[t]`` lists the ``s <= t``."""

    def __init__(self, below: dict[str, set[str]]) -> None:
        self.below = below

    def leq(self, s: str, t: str) -> bool:
        return s in self.below[t]

    def down(self, t: str) -> tuple[str, ...]:
        return tuple(sorted(self.below[t], key=lambda s: (len(self.below[s]), s)))

    def mobius(self, s: str, t: str) -> int:
        from reference.differential.mobius import mobius_by_recursion

        return mobius_by_recursion(self, s, t)

    def sup(self, s: str, t: str) -> str | None:
        uppers = [u for u in self.below if self.leq(s, u) and self.leq(t, u)]
        least = [u for u in uppers if all(self.leq(u, v) for v in uppers)]
        return least[0] if least else None


#: a, b below both c1 and c2: a ∨ b does not exist.
NO_SUPS = FiniteOrder({
    "a": {"a"}, "b": {"b"}, "c1": {"a", "b", "c1"}, "c2": {"a", "b", "c2"},
})
