"""Unit and property checks of the shared algebra (multisets, Z-sets)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from reference.algebra import Multiset, ZSet

small = st.lists(st.integers(-3, 3), max_size=8)


def test_multiset_counts_multiplicity() -> None:
    m = Multiset.of(3, 5, 5)
    assert m.multiplicity(5) == 2 and m.multiplicity(4) == 0 and len(m) == 3
    assert list(m.elements()) == [3, 5, 5]


def test_multiset_difference_truncates_at_zero() -> None:
    assert Multiset.of(1, 2) - Multiset.of(2, 2, 9) == Multiset.of(1)


def test_multiset_rejects_negative_multiplicity() -> None:
    try:
        Multiset({1: -1})
    except ValueError as exc:
        assert "negative" in str(exc)
    else:
        raise AssertionError("a negative multiplicity was accepted")


@given(small, small)
def test_union_then_difference_restores(xs: list[int], ys: list[int]) -> None:
    m, n = Multiset.from_iterable(xs), Multiset.from_iterable(ys)
    assert (m | n) - n == m
    assert m <= m | n


@given(small)
def test_equal_multisets_hash_equal(xs: list[int]) -> None:
    a, b = Multiset.from_iterable(xs), Multiset.from_iterable(reversed(xs))
    assert a == b and hash(a) == hash(b)


@given(small, small)
def test_zset_group_laws(xs: list[int], ys: list[int]) -> None:
    a = ZSet.from_pairs((x, 1) for x in xs)
    b = ZSet.from_pairs((y, -1) for y in ys)
    assert a + b == b + a
    assert (a - a).is_empty()
    assert -(a + b) == (-a) + (-b)
    assert 0 not in [w for _, w in (a + b).items()]
