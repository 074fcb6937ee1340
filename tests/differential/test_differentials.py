"""DD §2.3: function differentials, liftings, Propositions 1 and 2, the bilinear
formula over N and forests, and the examples (selection, projection, join,
distinct, count)."""

from __future__ import annotations

from itertools import product
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.algebra.group import Group
from reference.algebra.zset import ZSet
from reference.differential.builtins import count
from reference.differential.differentials import (
    bilinear_rule_chain,
    differential,
    differential2,
    lift,
    lift2,
    proposition_1_general,
    proposition_1_linear,
    proposition_2_bilinear,
    proposition_2_general,
)
from reference.differential.mobius import Stream, StreamGroup, mobius_transform
from reference.differential.operators import distinct, filter_zset, join, map_zset
from reference.differential.orders import LocallyFiniteOrder
from tests.differential.helpers import (
    DOMAINS,
    FOREST,
    INTS,
    LATTICES,
    NO_SUPS,
    SMALL_DOMAINS,
    ZSETS,
    N,
    all_int_streams,
    streams_in,
    zsets,
)

IDS = lambda v: v if isinstance(v, str) else ""  # noqa: E731


def delta_of_lift(f: Any, dom: StreamGroup, cod: StreamGroup, c: Stream[Any, Any]) -> Stream[Any, Any]:
    """The definition: δ(f^T) = δ_{H^T} ∘ f^T ∘ S_{G^T}."""
    return cod.delta(lift(f)(dom.integrate(c)))


def delta_of_lift2(f: Any, dom: StreamGroup, cod: StreamGroup, c: Stream[Any, Any], d: Stream[Any, Any]) -> Stream[Any, Any]:
    return cod.delta(lift2(f)(dom.integrate(c), dom.integrate(d)))


def select(c: ZSet) -> ZSet:
    return filter_zset("even", c)


def project(c: ZSet) -> ZSet:
    return map_zset("mod3", c)


def square(n: int) -> int:
    return n * n


#: G = Z^N on 0..1: a group whose δ_G is not the identity.
Z_N = StreamGroup(INTS, N, (0, 1))


def z_n_elements() -> list[Stream[int, int]]:
    return list(all_int_streams((0, 1), range(-1, 2)))


def running_sum(c: Stream[int, int]) -> Stream[int, int]:
    """S_G on G = Z^N: linear, with δ(f) = f ∘ ... != f."""
    return Z_N.integrate(c)


def pointwise_square(c: Stream[int, int]) -> Stream[int, int]:
    return Stream.tabulate(c.domain, lambda t: c(t) * c(t))


# --- DD-CLAIM-CHAIN ---------------------------------------------------------------------


@pytest.mark.spec("DD-CLAIM-CHAIN", evidence="exhaustive")
def test_differential_acts_on_differences_exhaustive() -> None:
    """δ(f)(δ_G(c)) = δ_H(f(c)) and δ(g ∘ f) = δ(g) ∘ δ(f), for every c ∈ Z^{0..1}
    with values in {-1,0,1}, f = pointwise square, g = running sum (δ_G != id)."""
    df, dg = differential(pointwise_square, Z_N, Z_N), differential(running_sum, Z_N, Z_N)
    dgf = differential(lambda x: running_sum(pointwise_square(x)), Z_N, Z_N)
    for c in z_n_elements():
        assert df(Z_N.delta(c)) == Z_N.delta(pointwise_square(c))
        assert dgf(c) == dg(df(c))


@pytest.mark.spec("DD-CLAIM-CHAIN", evidence="property")
@given(streams_in(StreamGroup(ZSETS, N, (0, 1, 2))), streams_in(StreamGroup(ZSETS, N, (0, 1, 2))))
def test_differential_acts_on_differences_property(c: Stream[int, ZSet], d: Stream[int, ZSet]) -> None:
    g = StreamGroup(ZSETS, N, (0, 1, 2))
    f = lift(distinct)
    assert differential(f, g, g)(g.delta(c)) == g.delta(f(c))
    f2 = lift2(lambda x, y: join(map_zset("dup", x), map_zset("dup", y)))
    assert differential2(f2, g, g, g)(g.delta(c), g.delta(d)) == g.delta(f2(c, d))


# --- Proposition 1 -------------------------------------------------------------------------


def check_prop1(f: Any, inner: Group[Any], order: LocallyFiniteOrder[Any], domain: tuple[Any, ...],
                c: Stream[Any, Any], part: str, cod_inner: Group[Any] | None = None) -> None:
    dom = StreamGroup(inner, order, domain)
    cod = StreamGroup(cod_inner or inner, order, domain)
    expected = delta_of_lift(f, dom, cod, c)
    for t in domain:
        if part == "1":
            assert proposition_1_general(f, dom, cod, c, t) == expected(t)
        elif part == "2":
            assert proposition_1_linear(f, dom, cod, c, t) == expected(t)
        else:
            assert f(c(t)) == expected(t)


@pytest.mark.spec("DD-PROP-1", evidence="exhaustive", part="1")
@pytest.mark.parametrize(("name", "order", "domain"), SMALL_DOMAINS, ids=IDS)
def test_prop1_general_exhaustive(name: str, order: LocallyFiniteOrder[Any], domain: tuple[Any, ...]) -> None:
    """f = square on Z (not linear): every stream into {-1,0,1} on the domain."""
    for c in all_int_streams(domain, range(-1, 2)):
        check_prop1(square, INTS, order, domain, c, "1")


@pytest.mark.spec("DD-PROP-1", evidence="property", part="1")
@pytest.mark.parametrize(("name", "order", "domain"), [*DOMAINS, FOREST], ids=IDS)
def test_prop1_general_property(name: str, order: LocallyFiniteOrder[Any], domain: tuple[Any, ...]) -> None:
    """f = distinct on Z-sets (not linear)."""

    @given(streams_in(StreamGroup(ZSETS, order, domain)))
    def check(c: Stream[Any, ZSet]) -> None:
        check_prop1(distinct, ZSETS, order, domain, c, "1")

    check()


@pytest.mark.spec("DD-PROP-1", evidence="property", part="1")
@given(streams_in(StreamGroup(Z_N, N, (0, 1, 2))))
def test_prop1_general_with_nontrivial_inner_delta(c: Stream[int, Stream[int, int]]) -> None:
    """G = Z^N (δ_G != id), f = pointwise square on G, T = N."""
    check_prop1(pointwise_square, Z_N, N, (0, 1, 2), c, "1")


@pytest.mark.spec("DD-PROP-1", evidence="exhaustive", part="2")
@pytest.mark.parametrize(("order", "domain"), [(N, (0, 1)), (SMALL_DOMAINS[2][1], SMALL_DOMAINS[2][2][:2])], ids=["N<=1", "P({0})"])
def test_prop1_linear_exhaustive(order: LocallyFiniteOrder[Any], domain: tuple[Any, ...]) -> None:
    """G = Z^{0..1}, f = S_G (linear, δ(f) != f): every stream of such elements with
    values in {-1,0,1} (81 streams)."""
    for vs in product(z_n_elements(), repeat=len(domain)):
        check_prop1(running_sum, Z_N, order, domain, Stream(domain, vs), "2")


@pytest.mark.spec("DD-PROP-1", evidence="property", part="2")
@pytest.mark.parametrize(("name", "order", "domain"), DOMAINS, ids=IDS)
def test_prop1_linear_property(name: str, order: LocallyFiniteOrder[Any], domain: tuple[Any, ...]) -> None:
    inner = StreamGroup(ZSETS, N, (0, 1))

    @given(streams_in(StreamGroup(inner, order, domain)))
    def check(c: Stream[Any, Any]) -> None:
        check_prop1(inner.integrate, inner, order, domain, c, "2")

    check()


@pytest.mark.spec("DD-PROP-1", evidence="exhaustive", part="3")
@pytest.mark.spec("DD-EX-SELECT-PROJECT", evidence="exhaustive")
def test_prop1_own_differential_exhaustive() -> None:
    """Selection and projection: δ(f^T) = f^T for every stream on N<=1 and P({0}) of
    Z-sets over {0,1,2} with weights in {-1,0,1} on one element (7^2 streams)."""
    pool = [ZSet()] + [ZSet({x: w}) for x in range(3) for w in (-1, 1)]
    for _, order, domain in [*SMALL_DOMAINS[:1], *SMALL_DOMAINS[2:]]:
        dom = domain[:2]
        for vs in product(pool, repeat=2):
            c = Stream(dom, vs)
            for f in (select, project):
                assert differential(f, ZSETS, ZSETS)(vs[0]) == f(vs[0])
                check_prop1(f, ZSETS, order, dom, c, "3")


@pytest.mark.spec("DD-PROP-1", evidence="property", part="3")
@pytest.mark.spec("DD-EX-SELECT-PROJECT", evidence="property")
@pytest.mark.parametrize(("name", "order", "domain"), DOMAINS, ids=IDS)
def test_prop1_own_differential_property(name: str, order: LocallyFiniteOrder[Any], domain: tuple[Any, ...]) -> None:
    @given(streams_in(StreamGroup(ZSETS, order, domain)))
    def check(c: Stream[Any, ZSet]) -> None:
        for f in (select, project):
            check_prop1(f, ZSETS, order, domain, c, "3")

    check()


# --- Proposition 2 ---------------------------------------------------------------------------


def nonlinear2(c: ZSet, d: ZSet) -> ZSet:
    return distinct(c + d.scale(2))


def check_prop2(f: Any, inner: Group[Any], order: LocallyFiniteOrder[Any], domain: tuple[Any, ...],
                c: Stream[Any, Any], d: Stream[Any, Any], parts: str) -> None:
    """The listed parts (``"1"``, ``"23"``, ...) of Proposition 2 against δ(f^T)(c, d)."""
    g = StreamGroup(inner, order, domain)
    expected = delta_of_lift2(f, g, g, c, d)
    for t in domain:
        if "1" in parts:
            assert proposition_2_general(f, g, g, g, c, d, t) == expected(t)
        if "2" in parts:
            assert proposition_2_bilinear(f, g, g, g, c, d, t) == expected(t)
        if "3" in parts:
            down = order.down(t)
            assert inner.sum(f(c(r), d(s)) for r in down for s in down if order.sup(r, s) == t) == expected(t)


@pytest.mark.spec("DD-PROP-2", evidence="exhaustive", part="1")
@pytest.mark.spec("DD-PROP-2", evidence="exhaustive", part="2")
@pytest.mark.spec("DD-PROP-2", evidence="exhaustive", part="3")
@pytest.mark.parametrize(("name", "order", "domain"), SMALL_DOMAINS[:1] + SMALL_DOMAINS[2:], ids=IDS)
def test_prop2_exhaustive(name: str, order: LocallyFiniteOrder[Any], domain: tuple[Any, ...]) -> None:
    """On Z: f(a, b) = a·b² (part 1, not bilinear) and f = mul (parts 2-3, bilinear,
    δ(f) = f), streams into {-1,0,1}: on N<=2 every pair (27 × 27); on P({0,1}) every
    c against every third d (81 × 27)."""
    streams = list(all_int_streams(domain, range(-1, 2)))
    for c in streams:
        for d in streams[:: max(1, len(streams) // 27)]:
            check_prop2(lambda a, b: a * b * b, INTS, order, domain, c, d, "1")
            check_prop2(lambda a, b: a * b, INTS, order, domain, c, d, "23")


@pytest.mark.spec("DD-PROP-2", evidence="property", part="1")
@pytest.mark.spec("DD-PROP-2", evidence="property", part="2")
@pytest.mark.spec("DD-PROP-2", evidence="property", part="3")
@pytest.mark.spec("DD-EX-JOIN-BILINEAR", evidence="property")
@pytest.mark.parametrize(("name", "order", "domain"), LATTICES, ids=IDS)
def test_prop2_property(name: str, order: LocallyFiniteOrder[Any], domain: tuple[Any, ...]) -> None:
    """Z-sets of pairs: f = distinct(c + 2d) (part 1), f = join (parts 2-3)."""
    pairs = st.lists(st.tuples(st.tuples(st.integers(0, 1), st.integers(0, 2)), st.integers(-2, 2)), max_size=3).map(ZSet.from_pairs)
    n = len(domain)
    streams = st.lists(pairs, min_size=n, max_size=n).map(lambda vs: Stream(domain, tuple(vs)))

    @given(streams, streams)
    def check(c: Stream[Any, ZSet], d: Stream[Any, ZSet]) -> None:
        check_prop2(nonlinear2, ZSETS, order, domain, c, d, "1")
        check_prop2(join, ZSETS, order, domain, c, d, "23")

    check()


@pytest.mark.spec("DD-PROP-2", evidence="example", part="2")
def test_prop2_bilinear_needs_binary_sups() -> None:
    """In the poset a, b < c1, c2 (no a ∨ b), the sum over r ∨ s = c1 misses the terms
    (c_a, d_b) and (c_b, d_a): with c = 1 at a, d = 1 at b (f = mul on Z), δ(f^T)(c, d)
    at c1 is 1 but the sum is 0. Exhibits why part 2 assumes binary sups."""
    domain = ("a", "b", "c1", "c2")
    c, d = Stream(domain, (1, 0, 0, 0)), Stream(domain, (0, 1, 0, 0))
    g = StreamGroup(INTS, NO_SUPS, domain)
    mul = lambda x, y: x * y  # noqa: E731
    assert delta_of_lift2(mul, g, g, c, d)("c1") == 1
    assert proposition_2_bilinear(mul, g, g, g, c, d, "c1") == 0
    assert proposition_2_general(mul, g, g, g, c, d, "c1") == 1  # part 1 needs no sups


# --- the bilinear formula over N and forests ---------------------------------------------------


@pytest.mark.spec("DD-CLAIM-BILINEAR-N", evidence="exhaustive")
def test_bilinear_formula_over_naturals_exhaustive() -> None:
    """δ(f^N(c, d))_n = f(c_n, δd_n) + f(δc_n, d_n) - f(δc_n, δd_n), f = mul on Z, all
    pairs of streams on 0..3 into {-1,0,1}; and on the forest of words of length <= 2
    over {0,1} (7 nodes) for 3^7 streams c against 10 streams d."""
    mul = lambda x, y: x * y  # noqa: E731
    for order, domain in ((N, (0, 1, 2, 3)), (FOREST[1], FOREST[2])):
        streams = list(all_int_streams(domain, range(-1, 2)))
        ds = streams if len(domain) <= 4 else streams[:: len(streams) // 10]
        for c in streams:
            for d in ds:
                expected = mobius_transform(order, INTS, lift2(mul)(c, d))
                dc, dd = mobius_transform(order, INTS, c), mobius_transform(order, INTS, d)
                for t in domain:
                    assert bilinear_rule_chain(mul, INTS, c, d, dc, dd, t) == expected(t)


@pytest.mark.spec("DD-CLAIM-BILINEAR-N", evidence="property")
@given(streams_in(StreamGroup(ZSETS, N, tuple(range(5)))), streams_in(StreamGroup(ZSETS, N, tuple(range(5)))))
def test_bilinear_formula_join_property(c: Stream[int, ZSet], d: Stream[int, ZSet]) -> None:
    """The same for join of Z-sets keyed by the element's value mod 3 (elements 0..3:
    0 and 3 share a key, so distinct elements join)."""

    def keyed(s: Stream[int, ZSet]) -> Stream[int, ZSet]:
        return Stream.tabulate(s.domain, lambda t: map_zset("key_mod3", s(t)))

    c, d = keyed(c), keyed(d)
    expected = mobius_transform(N, ZSETS, lift2(join)(c, d))
    dc, dd = mobius_transform(N, ZSETS, c), mobius_transform(N, ZSETS, d)
    for t in c.domain:
        assert bilinear_rule_chain(join, ZSETS, c, d, dc, dd, t) == expected(t)


# --- examples --------------------------------------------------------------------------------


@pytest.mark.spec("DD-EX-JOIN-BILINEAR", evidence="exhaustive")
def test_join_is_bilinear_exhaustive() -> None:
    """join(a + b, c) = join(a, c) + join(b, c) and likewise on the right, for all Z-sets
    with one pair from {0,1}x{0,1} and weight in {-1,1} (or empty)."""
    pool = [ZSet()] + [ZSet({(k, v): w}) for k in range(2) for v in range(2) for w in (-1, 1)]
    for a, b, c in product(pool, repeat=3):
        assert join(a + b, c) == join(a, c) + join(b, c)
        assert join(c, a + b) == join(c, a) + join(c, b)


@pytest.mark.spec("DD-EX-NONLINEAR", evidence="example")
def test_distinct_and_count_are_not_linear() -> None:
    one = ZSet({1: 1})
    assert distinct(one + one) == ZSet({1: 1}) != distinct(one) + distinct(one)
    r = ZSet({(0, "x"): 1})
    assert count(r + r) == ZSet({(0, 2): 1}) != count(r) + count(r)
    # and so Proposition 1.2's shortcut is wrong for them: δ(distinct^N) != distinct^N
    g = StreamGroup(ZSETS, N, (0, 1))
    c = Stream((0, 1), (one, one))  # differences: 1 inserted twice
    assert delta_of_lift(distinct, g, g, c) == Stream((0, 1), (one, ZSet()))
    assert lift(distinct)(c) == Stream((0, 1), (one, one))


@pytest.mark.spec("DD-EX-NONLINEAR", evidence="property")
@given(zsets(), zsets())
def test_distinct_additivity_fails_only_on_shared_or_negative_support(a: ZSet, b: ZSet) -> None:
    """distinct(a + b) = distinct(a) + distinct(b) can only hold when no element has
    positive weight in both a and b (else weight 2 appears on the right)."""
    both_positive = {x for x in a.support() & b.support() if a.weight(x) > 0 and b.weight(x) > 0}
    if both_positive:
        assert distinct(a + b) != distinct(a) + distinct(b)


@pytest.mark.spec("DD-CLAIM-DIFF-LINEAR", evidence="exhaustive")
def test_differential_of_linear_is_linear_exhaustive() -> None:
    """f = S_G, fb-like shift and 2·x on G = Z^{0..1}: δ(f)(x + y) = δ(f)(x) + δ(f)(y)
    for all x, y with values in -1..1 (81 pairs each)."""
    shift = lambda c: Stream.tabulate(c.domain, lambda t: 0 if t == 0 else c(t - 1))  # noqa: E731
    double = lambda c: Z_N.add(c, c)  # noqa: E731
    for f in (running_sum, shift, double):
        df = differential(f, Z_N, Z_N)
        for x, y in product(z_n_elements(), repeat=2):
            assert df(Z_N.add(x, y)) == Z_N.add(df(x), df(y))


@pytest.mark.spec("DD-CLAIM-DIFF-LINEAR", evidence="property")
@given(st.data())
def test_differential_of_linear_is_linear_property(data: st.DataObject) -> None:
    """On G = A(X)^N (0..2): f = S_G and f = select^N."""
    g = StreamGroup(ZSETS, N, (0, 1, 2))
    x, y = data.draw(streams_in(g)), data.draw(streams_in(g))
    for f in (g.integrate, lift(select)):
        df = differential(f, g, g)
        assert df(g.add(x, y)) == g.add(df(x), df(y))
