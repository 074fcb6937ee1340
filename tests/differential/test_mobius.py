"""DD §2.2: locally finite orders, the Möbius function (recursion and closed forms),
δ_T and S_T, Möbius inversion, stream groups and the nested-stream isomorphism."""

from __future__ import annotations

from itertools import product
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.algebra.zset import ZSet
from reference.differential.checks import check_linear_inverses, check_mobius_closed_form
from reference.differential.mobius import (
    Stream,
    StreamGroup,
    curry,
    mobius_by_recursion,
    mobius_transform,
    summation,
    uncurry,
)
from reference.differential.orders import LocallyFiniteOrder, ProductOrder
from reference.differential.priorities import lexicographic_infinite_down_set
from tests.differential.helpers import (
    DOMAINS,
    FOREST,
    INTS,
    N2,
    N_X_P,
    SMALL_DOMAINS,
    WORDS,
    ZSETS,
    N,
    P,
    all_int_streams,
    streams_in,
)


@pytest.mark.spec("DD-DEF-LFPO", evidence="exhaustive")
@pytest.mark.parametrize(("name", "order", "domain"), [*DOMAINS, FOREST], ids=lambda v: v if isinstance(v, str) else "")
def test_down_sets_are_finite_down_closed_and_listed_linearly(
    name: str, order: LocallyFiniteOrder[Any], domain: tuple[Any, ...]
) -> None:
    """↓t = {t' | t' ≤ t} for every t of the domain; listed in a linear extension;
    the order is reflexive, antisymmetric and transitive on the domain."""
    for t in domain:
        down = order.down(t)
        assert set(down) == {s for s in domain if order.leq(s, t)}
        assert down[-1] == t and all(not order.lt(down[j], down[i]) for i in range(len(down)) for j in range(i, len(down)))
    for r, s, t in product(domain, repeat=3):
        assert order.leq(r, r)
        assert not (order.leq(r, s) and order.leq(s, r)) or r == s
        assert not (order.leq(r, s) and order.leq(s, t)) or order.leq(r, t)


@pytest.mark.spec("DD-EX-ORDERS", evidence="exhaustive")
@pytest.mark.parametrize(("name", "order", "domain"), DOMAINS, ids=lambda v: v if isinstance(v, str) else "")
def test_binary_sups_are_least_upper_bounds(name: str, order: LocallyFiniteOrder[Any], domain: tuple[Any, ...]) -> None:
    """N, N^k, P_fin(I) and their products have binary sups: s ∨ t is an upper bound
    below every upper bound (checked against all upper bounds in a larger domain)."""
    big = order.down(_top_above(order, domain))
    for s, t in product(domain, repeat=2):
        j = order.sup(s, t)
        assert j is not None and order.leq(s, j) and order.leq(t, j)
        assert all(order.leq(j, u) for u in big if order.leq(s, u) and order.leq(t, u))


def _top_above(order: LocallyFiniteOrder[Any], domain: tuple[Any, ...]) -> Any:
    top = domain[-1]
    for t in domain:
        top = order.sup(top, t)
    return top


def test_prefix_order_has_sups_only_for_comparable_words() -> None:
    assert WORDS.sup((0,), (1,)) is None and WORDS.sup((0,), (0, 1)) == (0, 1)


@pytest.mark.spec("DD-DEF-MOBIUS", evidence="example")
def test_mobius_recursion_small_values() -> None:
    """Worked by hand from the recursion: in N, μ(0,0)=1, μ(0,1)=-1, μ(0,2)=-(1-1)=0;
    in P({a,b}): μ(∅,{a,b}) = -(1 - 1 - 1) = 1; not ≤ gives 0."""
    assert [mobius_by_recursion(N, 0, n) for n in range(4)] == [1, -1, 0, 0]
    assert mobius_by_recursion(P, frozenset(), frozenset("ab")) == 1
    assert mobius_by_recursion(P, frozenset("a"), frozenset("b")) == 0
    assert mobius_by_recursion(N2, (0, 0), (1, 1)) == 1 and mobius_by_recursion(N2, (0, 1), (1, 1)) == -1


@pytest.mark.spec("DD-CLAIM-MU-N", evidence="exhaustive")
def test_mu_naturals_closed_form() -> None:
    assert check_mobius_closed_form("DD-CLAIM-MU-N", N, tuple(range(12)), "n', n <= 11")
    assert [N.mobius(m, 5) for m in range(7)] == [0, 0, 0, 0, -1, 1, 0]


@pytest.mark.spec("DD-CLAIM-MU-POWERSET", evidence="exhaustive")
def test_mu_powerset_closed_form() -> None:
    domain = P.down(frozenset(range(4)))
    assert check_mobius_closed_form("DD-CLAIM-MU-POWERSET", P, domain, "X, Y ⊆ {0,1,2,3}")
    assert P.mobius(frozenset({0}), frozenset({0, 1, 2})) == 1


@pytest.mark.spec("DD-CLAIM-MU-PRODUCT", evidence="exhaustive")
@pytest.mark.parametrize("order", [N2, ProductOrder((N, N, N)), N_X_P, ProductOrder((P, P))], ids=str)
def test_mu_product_closed_form(order: ProductOrder) -> None:
    top = tuple(f.down(_factor_top(f))[-1] for f in order.factors)
    assert check_mobius_closed_form("DD-CLAIM-MU-PRODUCT", order, order.down(top), f"↓{top}")


def _factor_top(order: LocallyFiniteOrder[Any]) -> Any:
    return 2 if order == N else frozenset({0, 1})


@pytest.mark.spec("DD-CLAIM-MU-FOREST", evidence="exhaustive")
def test_mu_forest_closed_form() -> None:
    _, order, domain = FOREST
    assert check_mobius_closed_form("DD-CLAIM-MU-FOREST", order, domain, "words over {0,1}, length <= 2")


@pytest.mark.spec("DD-CLAIM-MU-N", evidence="property")
@pytest.mark.spec("DD-CLAIM-MU-PRODUCT", evidence="property")
@pytest.mark.spec("DD-CLAIM-MU-POWERSET", evidence="property")
@pytest.mark.spec("DD-CLAIM-MU-FOREST", evidence="property")
@given(st.tuples(st.integers(0, 3), st.integers(0, 3)), st.tuples(st.integers(0, 3), st.integers(0, 3)),
       st.frozensets(st.integers(0, 5), max_size=4), st.frozensets(st.integers(0, 5), max_size=4),
       st.lists(st.integers(0, 1), max_size=4), st.integers(0, 4))
def test_mu_closed_forms_property(
    s: tuple[int, int], t: tuple[int, int], x: frozenset[int], y: frozenset[int], w: list[int], cut: int
) -> None:
    """Random pairs beyond the exhaustive bounds: closed form = recursion."""
    assert N2.mobius(s, t) == mobius_by_recursion(N2, s, t)
    assert N.mobius(s[0], t[1]) == mobius_by_recursion(N, s[0], t[1])
    assert P.mobius(x, x | y) == mobius_by_recursion(P, x, x | y)
    word = tuple(w)
    assert WORDS.mobius(word[:cut], word) == mobius_by_recursion(WORDS, word[:cut], word)


@pytest.mark.spec("DD-EX-DELTA-N", evidence="example")
def test_delta_over_naturals_is_successive_difference() -> None:
    f = Stream(tuple(range(5)), (3, 5, 5, 2, 9))
    assert mobius_transform(N, INTS, f).values == (3, 2, 0, -3, 7)
    assert summation(N, INTS, f).values == (3, 8, 13, 15, 24)


@pytest.mark.spec("DD-THM-MOBIUS-INVERSION", evidence="exhaustive")
@pytest.mark.parametrize(("name", "order", "domain"), SMALL_DOMAINS, ids=lambda v: v if isinstance(v, str) else "")
def test_mobius_inversion_exhaustive(name: str, order: LocallyFiniteOrder[Any], domain: tuple[Any, ...]) -> None:
    """S_T(δ_T(f)) = f = δ_T(S_T(f)) for every f : domain -> {-1, 0, 1}."""
    for f in all_int_streams(domain, range(-1, 2)):
        assert summation(order, INTS, mobius_transform(order, INTS, f)) == f
        assert mobius_transform(order, INTS, summation(order, INTS, f)) == f


@pytest.mark.spec("DD-THM-MOBIUS-INVERSION", evidence="property")
@pytest.mark.parametrize(("name", "order", "domain"), [*DOMAINS, FOREST], ids=lambda v: v if isinstance(v, str) else "")
def test_mobius_inversion_property(name: str, order: LocallyFiniteOrder[Any], domain: tuple[Any, ...]) -> None:
    @given(streams_in(StreamGroup(ZSETS, order, domain)))
    def check(f: Stream[Any, ZSet]) -> None:
        assert summation(order, ZSETS, mobius_transform(order, ZSETS, f)) == f
        assert mobius_transform(order, ZSETS, summation(order, ZSETS, f)) == f

    check()


@pytest.mark.spec("DD-CLAIM-STREAM-INVERSES", evidence="exhaustive")
@pytest.mark.parametrize(("name", "order", "domain"), SMALL_DOMAINS, ids=lambda v: v if isinstance(v, str) else "")
def test_stream_group_inverses_exhaustive(name: str, order: LocallyFiniteOrder[Any], domain: tuple[Any, ...]) -> None:
    """δ_{G^T}, S_{G^T} are linear and mutually inverse, G = Z: all streams into {-1,0,1}."""
    group = StreamGroup(INTS, order, domain)
    verdict = check_linear_inverses(
        "DD-CLAIM-STREAM-INVERSES", group, all_int_streams(domain, range(-1, 2)), name, decided=False
    )
    assert verdict, verdict.describe()


@pytest.mark.spec("DD-CLAIM-STREAM-INVERSES", evidence="property")
@given(st.data())
def test_nested_stream_group_inverses(data: st.DataObject) -> None:
    """Doubly indexed streams (G^N)^{N^2} with G = A(X): non-trivial δ_G inside."""
    inner = StreamGroup(ZSETS, N, (0, 1, 2))
    outer = StreamGroup(inner, N2, N2.down((1, 1)))
    x, y = data.draw(streams_in(outer)), data.draw(streams_in(outer))
    assert check_linear_inverses("DD-CLAIM-STREAM-INVERSES", outer, [x, y], "(A(X)^N)^{N^2}")


@pytest.mark.spec("DD-CLAIM-NESTED-ISO", evidence="property")
@given(st.data())
def test_nested_iso_preserves_linear_inverses(data: st.DataObject) -> None:
    """(G^T)^{T'} ≅ G^{T×T'} (T = N on 0..2, T' = N^2 on ↓(1,1)): uncurry and curry are
    mutually inverse, additive, and commute with δ and S."""
    t_dom, u_dom = (0, 1, 2), N2.down((1, 1))
    nested = StreamGroup(StreamGroup(ZSETS, N, t_dom), N2, u_dom)
    flat = StreamGroup(ZSETS, ProductOrder((N, N2)), tuple((t, u) for u in u_dom for t in t_dom))
    x, y = data.draw(streams_in(nested)), data.draw(streams_in(nested))
    assert curry(uncurry(x), t_dom, u_dom) == x
    assert uncurry(nested.add(x, y)) == flat.add(uncurry(x), uncurry(y))
    assert uncurry(nested.delta(x)) == flat.delta(uncurry(x))
    assert uncurry(nested.integrate(x)) == flat.integrate(uncurry(x))


@pytest.mark.spec("DD-CLAIM-NESTED-ISO", evidence="exhaustive")
def test_nested_iso_exhaustive_on_int_streams() -> None:
    """Every (Z^N)^N on 0..1 x 0..1 with values in {-1,0,1} (81 streams)."""
    t_dom, u_dom = (0, 1), (0, 1)
    nested = StreamGroup(StreamGroup(INTS, N, t_dom), N, u_dom)
    flat = StreamGroup(INTS, ProductOrder((N, N)), tuple((t, u) for u in u_dom for t in t_dom))
    for f in all_int_streams(flat.domain, range(-1, 2)):
        x = curry(f, t_dom, u_dom)
        assert uncurry(x) == f
        assert uncurry(nested.delta(x)) == flat.delta(f)
        assert uncurry(nested.integrate(x)) == flat.integrate(f)


@pytest.mark.spec("DD-CLAIM-LEX-NOT-LF", evidence="example")
def test_lexicographic_order_has_an_infinite_down_set() -> None:
    """(1, 0) in N ×_lex N is above (0, s) for every s: 1000 distinct elements shown."""
    from reference.differential.orders import Lexicographic

    witness = lexicographic_infinite_down_set(1000)
    lex = Lexicographic(N)
    assert len(set(witness)) == 1000 and all(lex.leq(p, (1, 0)) for p in witness)
    assert witness[-1] == (0, 999)


@pytest.mark.spec("DD-CLAIM-LEX-NOT-LF", evidence="property")
@given(st.integers(1, 50), st.integers(0, 10**6))
def test_lexicographic_down_set_exceeds_any_bound(e: int, bound: int) -> None:
    """For every epoch e > 0 and every bound B, ↓(e, 0) has more than B elements:
    (e-1, 0), ..., (e-1, B) are distinct and below (e, 0); so μ's recursion over
    [t', (e, 0)] never terminates and δ_T is undefined there."""
    from reference.differential.orders import Lexicographic

    lex = Lexicographic(N)
    points = {(e - 1, s) for s in (0, bound // 2, bound)}
    assert all(lex.leq(p, (e, 0)) and p != (e, 0) for p in points)
    assert lex.leq((e - 1, bound), (e, 0))
    # under the product order N^2 the same point is below (e, 0) only when bound = 0
    assert N2.leq((e - 1, bound), (e, 0)) == (bound == 0)


def test_zset_streams_support() -> None:
    f = Stream((0, 1), (ZSet({1: 1}), ZSet()))
    assert mobius_transform(N, ZSETS, f).values == (ZSet({1: 1}), ZSet({1: -1}))
