"""§3.0 and the algebra: monoids as values, their laws, and the checkers' counterexamples."""

from __future__ import annotations

from itertools import product as cartesian
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.algebra.monoid import (
    Monoid,
    bag_tensor,
    bags,
    booleans,
    check_commutative,
    check_generated_by,
    check_homomorphism,
    check_idempotent,
    check_left_cancellative,
    check_monoid_laws,
    cyclic,
    direct_product,
    free_monoid,
    free_product,
    integers,
    naturals,
    permutations3,
    powerset,
    set_tensor,
    state_monoid,
    zset_tensor,
    zsets,
)
from reference.algebra.multiset import Multiset
from reference.algebra.zset import ZSet
from reference.streams.preliminaries import (
    compose_homs,
    monoids_of_order,
    right_zero_band,
    table_monoid,
    to_set,
)

small = st.integers(0, 3)
lists = st.lists(small, max_size=4).map(tuple)
sets = st.frozensets(small, max_size=3)
multisets = st.lists(small, max_size=4).map(Multiset.from_iterable)
zs = st.dictionaries(small, st.integers(-2, 2), max_size=3).map(ZSet)

SAMPLES: list[tuple[Monoid[Any], st.SearchStrategy[Any]]] = [
    (free_monoid(), lists), (powerset(), sets), (bags(), multisets), (zsets(), zs),
    (booleans(), st.booleans()), (integers(), st.integers(-5, 5)), (naturals(), st.integers(0, 5)),
    (direct_product(free_monoid(), bags()), st.tuples(lists, multisets)),
    (free_product(free_monoid(), booleans()),
     st.lists(st.one_of(lists.map(lambda x: ((0, x),) if x else ()), st.just(((1, True),))), max_size=4)
     .map(lambda ws: free_product(free_monoid(), booleans()).prod(ws))),
]


def laws_and_generators(index: int, data: st.DataObject) -> None:
    m, elements = SAMPLES[index]
    xs = data.draw(st.lists(elements, min_size=1, max_size=3))
    assert check_monoid_laws(m, xs)
    assert check_generated_by(m, xs)


@pytest.mark.spec("STREAM-DEF-3.1", evidence="property")
@pytest.mark.spec("STREAM-DEF-3.5", evidence="property")
@pytest.mark.parametrize("index", range(len(SAMPLES)), ids=[m.name for m, _ in SAMPLES])
@given(data=st.data())
def test_monoid_laws_and_generators(index: int, data: st.DataObject) -> None:
    """Every monoid of the paper satisfies STREAM-DEF-3.1 and is the product of its generators."""
    laws_and_generators(index, data)


# Each named monoid, cited by the check of that monoid only.

@pytest.mark.spec("STREAM-DEF-3.9", evidence="property")
@given(data=st.data())
def test_free_monoid_laws(data: st.DataObject) -> None:
    laws_and_generators(0, data)


@pytest.mark.spec("STREAM-EX-3.10", evidence="property")
@given(data=st.data())
def test_powerset_monoid_laws(data: st.DataObject) -> None:
    laws_and_generators(1, data)


@pytest.mark.spec("STREAM-DEF-3.39", evidence="property")
@given(data=st.data())
def test_direct_product_laws(data: st.DataObject) -> None:
    laws_and_generators(7, data)


@pytest.mark.spec("STREAM-DEF-3.52", evidence="property")
@given(data=st.data())
def test_free_product_laws(data: st.DataObject) -> None:
    laws_and_generators(8, data)


def has_inverse(m: Monoid[Any], x: Any, carrier: list[Any]) -> bool:
    """Some y of the carrier with x·y = y·x = ε (searched, not taken from ``m.inverse``)."""
    return any(m.equal(m.op(x, y), m.identity) and m.equal(m.op(y, x), m.identity) for y in carrier)


@pytest.mark.spec("STREAM-DEF-3.3", evidence="exhaustive")
def test_groups_are_the_monoids_whose_every_element_has_an_inverse() -> None:
    """Decided on finite carriers: Z_k and S_3 are groups (every element has a two-sided
    inverse, and the declared ``inverse`` is it); the boolean monoid and every monoid
    of order 2 or 3 that has an element without one are not groups (no ``inverse``)."""
    s3 = permutations3()
    finite_groups: list[tuple[Monoid[Any], list[Any]]] = [(cyclic(k), list(range(k))) for k in (1, 2, 5)]
    finite_groups.append((s3, [p for p in cartesian(range(3), repeat=3) if len(set(p)) == 3]))
    for m, carrier in finite_groups:
        assert m.inverse is not None
        for x in carrier:
            assert has_inverse(m, x, carrier)
            assert m.equal(m.op(x, m.inverse(x)), m.identity) and m.equal(m.op(m.inverse(x), x), m.identity)
    b = booleans()
    assert b.inverse is None and not has_inverse(b, True, [False, True])
    non_groups = [m for n in (2, 3) for m in monoids_of_order(n)
                  if not all(has_inverse(m, x, list(range(n))) for x in range(n))]
    assert non_groups  # e.g. ({0, 1}, max): 1 has no inverse
    assert all(m.inverse is None for m in non_groups)


@pytest.mark.spec("STREAM-DEF-3.3", evidence="property")
@given(st.integers(-50, 50), zs)
def test_integers_and_zsets_have_inverses(n: int, z: ZSet) -> None:
    for m, x in ((integers(), n), (zsets(), z)):
        assert m.inverse is not None
        assert m.equal(m.op(x, m.inverse(x)), m.identity) and m.equal(m.op(m.inverse(x), x), m.identity)


@pytest.mark.spec("STREAM-DEF-3.1", evidence="exhaustive")
def test_finite_monoids_decided() -> None:
    for n in (1, 2, 3):
        for m in monoids_of_order(n):
            assert check_monoid_laws(m, list(range(n)), decided=True).decided
    for k in (1, 2, 5):
        assert check_monoid_laws(cyclic(k), list(range(k)), decided=True)
    s3 = permutations3()
    carrier: list[tuple[int, int, int]] = [(a, b, c) for a, b, c in cartesian(range(3), repeat=3)
                                           if len({a, b, c}) == 3]
    assert check_monoid_laws(s3, carrier, decided=True)


@pytest.mark.spec("STREAM-DEF-3.1", evidence="example")
@pytest.mark.spec("STREAM-DEF-3.4", evidence="example")
@pytest.mark.spec("STREAM-DEF-3.7", evidence="example")
@pytest.mark.spec("STREAM-DEF-3.8", evidence="example")
@pytest.mark.spec("STREAM-DEF-3.11", evidence="example")
def test_checkers_return_counterexamples() -> None:
    broken = table_monoid("broken", ((0, 1, 2), (1, 2, 0), (2, 2, 2)))  # not associative
    verdict = check_monoid_laws(broken, [0, 1, 2])
    assert not verdict and verdict.counterexample is not None
    assert verdict.counterexample["law"] == "associativity"
    b = booleans()
    verdict = check_left_cancellative(b, [False, True])
    assert not verdict and verdict.counterexample is not None
    x, a, c = (verdict.counterexample[k] for k in ("x", "a", "b"))
    assert b.op(x, a) == b.op(x, c) and a != c  # ⊤ ∨ ⊥ = ⊤ ∨ ⊤
    assert not check_commutative(permutations3(), [(1, 0, 2), (0, 2, 1)])
    assert not check_idempotent(integers(), [1])
    assert check_idempotent(powerset(), [frozenset({1}), frozenset()], decided=False)
    assert not check_homomorphism(lambda xs: len(xs) % 2 == 1, free_monoid(), booleans(), [(1,)])


# --- STREAM-CLAIM-3.4-GROUPS -------------------------------------------------


@pytest.mark.spec("STREAM-CLAIM-3.4-GROUPS", evidence="exhaustive")
def test_finite_groups_are_left_cancellative() -> None:
    """Decided on Z_1..Z_6, S3 and every order-≤3 monoid that is a group; a non-group
    (B) fails with a counterexample."""
    for k in range(1, 7):
        assert check_left_cancellative(cyclic(k), list(range(k)), decided=True).decided
    s3 = permutations3()
    carrier: list[tuple[int, int, int]] = [(a, b, c) for a, b, c in cartesian(range(3), repeat=3)
                                           if len({a, b, c}) == 3]
    assert check_left_cancellative(s3, carrier, decided=True)
    for n in (1, 2, 3):
        for m in monoids_of_order(n):
            is_group = all(any(m.op(a, b) == 0 == m.op(b, a) for b in range(n)) for a in range(n))
            if is_group:
                assert check_left_cancellative(m, list(range(n)), decided=True)
    assert not check_left_cancellative(booleans(), [False, True])


@pytest.mark.spec("STREAM-CLAIM-3.4-GROUPS", evidence="property")
@given(st.lists(zs, min_size=1, max_size=4), st.lists(st.integers(-9, 9), min_size=1, max_size=4))
def test_infinite_groups_are_left_cancellative(zsets_: list[ZSet], ints: list[int]) -> None:
    assert check_left_cancellative(zsets(), zsets_)
    assert check_left_cancellative(integers(), ints)


# --- STREAM-PROP-3.12-COMP ---------------------------------------------------


def _homs(m: Monoid[int], n: Monoid[int], size_m: int, size_n: int) -> list[dict[int, int]]:
    out = []
    for values in cartesian(range(size_n), repeat=size_m):
        table = dict(enumerate(values))
        if check_homomorphism(table.__getitem__, m, n, list(range(size_m)), decided=True):
            out.append(table)
    return out


@pytest.mark.spec("STREAM-PROP-3.12-COMP", evidence="exhaustive")
def test_composition_of_homomorphisms_exhaustive() -> None:
    """Every composable pair of homomorphisms between monoids of order ≤ 3 (labelled tables)."""
    monoids = [(m, n) for n in (1, 2, 3) for m in monoids_of_order(n)]
    pairs = 0
    for (a, na), (b, nb), (c, nc) in cartesian(monoids, repeat=3):
        for g in _homs(a, b, na, nb):
            for f in _homs(b, c, nb, nc):
                pairs += 1
                assert check_homomorphism(compose_homs(f.__getitem__, g.__getitem__), a, c,
                                          list(range(na)), decided=True)
    assert pairs > 1000


@pytest.mark.spec("STREAM-PROP-3.12-COMP", evidence="property")
@given(st.lists(lists, min_size=1, max_size=4))
def test_composition_of_homomorphisms_property(xs: list[tuple[int, ...]]) -> None:
    """``to_set`` (Example 3.12) then ``S ↦ S ≠ ∅`` into B, and ``List[f]`` then ``to_set``."""
    nonempty = compose_homs(lambda s: bool(s), to_set)
    assert check_homomorphism(to_set, free_monoid(), powerset(), xs)
    assert check_homomorphism(nonempty, free_monoid(), booleans(), xs)
    doubled = compose_homs(to_set, lambda w: tuple(2 * x for x in w))
    assert check_homomorphism(doubled, free_monoid(), powerset(), xs)


@pytest.mark.spec("STREAM-EX-3.12", evidence="example")
def test_example_3_12() -> None:
    assert to_set((1, 2, 1)) == frozenset({1, 2})
    assert check_homomorphism(to_set, free_monoid(), powerset(), [(), (1,), (1, 2), (2, 2)])


# --- free product, tensor, State ---------------------------------------------


@pytest.mark.spec("STREAM-DEF-3.52", evidence="example")
@pytest.mark.spec("STREAM-DEF-3.54", evidence="example")
def test_free_product_normal_form() -> None:
    fp = free_product(free_monoid(), integers())
    a, b = ((0, (1,)),), ((1, 2),)
    assert fp.op(fp.op(a, b), ((1, -2),)) == a  # (_ ⋆ 2)(_ ⋆ -2) = ε
    assert fp.op(a, ((0, (2,)),)) == ((0, (1, 2)),)  # (m1 ⋆ _)(m2 ⋆ _) = (m1m2 ⋆ _)
    t = free_product(free_monoid(), booleans())
    tick = ((1, True),)
    assert t.op(tick, tick) == tick  # ⊤ ∨ ⊤ = ⊤: ticks collapse under B


@given(st.lists(st.integers(0, 2), max_size=3).map(Multiset.from_iterable),
       st.lists(st.integers(0, 2), max_size=3).map(Multiset.from_iterable),
       st.lists(st.integers(0, 2), max_size=3).map(Multiset.from_iterable))
@pytest.mark.spec("STREAM-DEF-3.46", evidence="property")
def test_tensor_relations(m1: Multiset, m2: Multiset, n: Multiset) -> None:
    """STREAM-DEF-3.46: identity and bilinearity (bags; sets and Z-sets below)."""
    t = bag_tensor()
    assert t.otimes(m1 | m2, n) == t.otimes(m1, n) | t.otimes(m2, n)
    assert t.otimes(n, m1 | m2) == t.otimes(n, m1) | t.otimes(n, m2)
    assert t.otimes(Multiset(), n) == Multiset() == t.otimes(m1, Multiset())
    s, z = set_tensor(), zset_tensor()
    assert s.otimes(frozenset(m1) | frozenset(m2), frozenset(n)) == \
        s.otimes(frozenset(m1), frozenset(n)) | s.otimes(frozenset(m2), frozenset(n))
    zm1, zn = ZSet(dict(m1.items())), ZSet(dict(n.items()))
    assert z.otimes(zm1 + (-zm1), zn) == ZSet()


STATE_FNS = st.dictionaries(st.sampled_from([0, 1]), st.tuples(st.sampled_from([0, 1]), lists),
                            min_size=2, max_size=2)


@pytest.mark.spec("STREAM-DEF-3.16", evidence="property")
@given(st.lists(STATE_FNS, min_size=1, max_size=3))
def test_state_monoid_laws(tables: list[dict[int, tuple[int, tuple[int, ...]]]]) -> None:
    """STREAM-DEF-3.16: State[S, M] is a monoid (decided on S = {0, 1})."""
    m = state_monoid(free_monoid(), (0, 1))
    elements = [t.__getitem__ for t in tables]
    assert check_monoid_laws(m, elements)


@pytest.mark.spec("STREAM-DEF-3.8", evidence="exhaustive")
@pytest.mark.spec("STREAM-DEF-3.7", evidence="exhaustive")
def test_right_zero_band_is_idempotent_not_commutative() -> None:
    rz = right_zero_band()
    assert check_monoid_laws(rz, [0, 1, 2], decided=True)
    assert check_idempotent(rz, [0, 1, 2], decided=True)
    assert not check_commutative(rz, [0, 1, 2])
