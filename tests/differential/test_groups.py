"""DD §2.1: abelian groups with linear inverses, Z-sets, products, linear
functions and the unique linear extension from multisets to Z-sets."""

from __future__ import annotations

from itertools import product
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.algebra.group import Integers, Product, Unit, ZSets, linear_extension
from reference.algebra.multiset import Multiset
from reference.algebra.zset import ZSet
from reference.differential.checks import check_linear_inverses
from tests.differential.helpers import INTS, ZSETS, zsets

GROUPS = [("Z", INTS), ("A(X)", ZSETS), ("Z x A(X)", Product(INTS, ZSETS)), ("1", Unit())]


def small_zsets() -> list[ZSet]:
    """Every Z-set over {0, 1} with weights in -2..2 (25 of them)."""
    return [ZSet({0: a, 1: b}) for a, b in product(range(-2, 3), repeat=2)]


@pytest.mark.spec("DD-DEF-GROUP-INVERSES", evidence="exhaustive")
@pytest.mark.spec("DD-EX-TRIVIAL-INVERSES", evidence="exhaustive")
def test_trivial_inverses_on_small_carriers() -> None:
    """δ = S = id on Z and A(X): inverse and linear, for all small elements."""
    assert check_linear_inverses("DD-EX-TRIVIAL-INVERSES", INTS, range(-5, 6), "Z in -5..5")
    assert check_linear_inverses("DD-EX-TRIVIAL-INVERSES", ZSETS, small_zsets(), "A({0,1}), |w| <= 2")
    pairs = [(n, z) for n in range(-2, 3) for z in small_zsets()]
    assert check_linear_inverses("DD-DEF-PRODUCT-GROUP", Product(INTS, ZSETS), pairs, "Z x A({0,1})")


@pytest.mark.spec("DD-DEF-PRODUCT-GROUP", evidence="property")
@pytest.mark.spec("DD-DEF-GROUP-INVERSES", evidence="property")
@given(st.integers(-9, 9), st.integers(-9, 9), zsets(), zsets(), zsets())
def test_group_laws(a: int, b: int, x: ZSet, y: ZSet, z: ZSet) -> None:
    """Abelian group laws, pointwise sum, and δ/S componentwise on products."""
    g = ZSETS
    assert g.add(g.add(x, y), z) == g.add(x, g.add(y, z))
    assert g.add(x, y) == g.add(y, x) and g.add(x, g.zero()) == x and g.add(x, g.neg(x)) == g.zero()
    assert all(g.add(x, y).weight(e) == x.weight(e) + y.weight(e) for e in range(4))
    p = Product(INTS, ZSETS)
    assert p.delta((a, x)) == (INTS.delta(a), ZSETS.delta(x))
    assert p.integrate((a, x)) == (INTS.integrate(a), ZSETS.integrate(x))
    assert p.add((a, x), (b, y)) == (a + b, x + y)


def test_zero_entries_are_never_stored() -> None:
    z = ZSet({1: 2}) + ZSet({1: -2, 3: 1})
    assert z.support() == frozenset({3}) and z == ZSet({3: 1})


# --- linear functions and the linear extension ----------------------------------------


def total_weight(m: Multiset) -> int:
    """Aggregation C(X) -> N ⊆ Z: the size. Linear."""
    return len(m)


def select_even(m: Multiset) -> ZSet:
    """Selection C(X) -> C(X) ⊆ A(X). Linear."""
    return ZSet({x: n for x, n in m.items() if x % 2 == 0})


def sum_of_elements(m: Multiset) -> int:
    """Σ x over the multiset: linear."""
    return sum(x for x in m.elements())


LINEAR_ON_MULTISETS: list[tuple[str, Any, Any]] = [
    ("size", total_weight, Integers()), ("select even", select_even, ZSets()),
    ("sum", sum_of_elements, Integers()),
]


def multisets_over(values: range, max_mult: int) -> list[Multiset]:
    return [Multiset(dict(zip(values, ms, strict=True))) for ms in product(range(max_mult + 1), repeat=len(values))]


@pytest.mark.spec("DD-CLAIM-LINEAR-EXTENSION", evidence="exhaustive")
@pytest.mark.parametrize(("name", "f", "group"), LINEAR_ON_MULTISETS)
def test_linear_extension_exhaustive(name: str, f: Any, group: Any) -> None:
    """Over X = {0,1,2}: the extension agrees with f on every multiset of multiplicity
    <= 2, is linear on every pair of Z-sets with weights in -1..1, and any linear g
    agreeing with f on multisets equals it: g(c) = g(c+) - g(c-) = f(c+) - f(c-)."""
    ext = linear_extension(group, f)
    for m in multisets_over(range(3), 2):
        assert ext(ZSet.from_multiset(m)) == f(m)
    zs = [ZSet(dict(zip(range(3), ws, strict=True))) for ws in product(range(-1, 2), repeat=3)]
    for c in zs:
        for d in zs:
            assert ext(c + d) == group.add(ext(c), ext(d))
        plus = Multiset({x: w for x, w in c.items() if w > 0})
        minus = Multiset({x: -w for x, w in c.items() if w < 0})
        assert ext(c) == group.sub(f(plus), f(minus))


@pytest.mark.spec("DD-CLAIM-LINEAR-EXTENSION", evidence="property")
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(-3, 3))), st.lists(st.integers(0, 5)))
def test_linear_extension_property(pairs: list[tuple[int, int]], xs: list[int]) -> None:
    c, m = ZSet.from_pairs(pairs), Multiset.from_iterable(xs)
    for _, f, group in LINEAR_ON_MULTISETS:
        ext = linear_extension(group, f)
        assert ext(ZSet.from_multiset(m)) == f(m)
        assert ext(c + ZSet.from_multiset(m)) == group.add(ext(c), f(m))
        assert ext(-c) == group.neg(ext(c))


@pytest.mark.spec("DD-DEF-LINEAR", evidence="example")
def test_a_non_linear_function_has_no_linear_extension() -> None:
    """distinct on multisets is not linear: f({1} ⊎ {1}) != f({1}) ⊎ f({1}), so the
    formula f̄(c) = Σ c(x) f(x) does not extend it (f̄({1:2}) = {1:2} != {1:1})."""

    def distinct(m: Multiset) -> ZSet:
        return ZSet({x: 1 for x in m.support()})

    one = Multiset.of(1)
    assert distinct(one | one) != distinct(one) + distinct(one)
    assert linear_extension(ZSets(), distinct)(ZSet({1: 2})) != distinct(Multiset.of(1, 1))
