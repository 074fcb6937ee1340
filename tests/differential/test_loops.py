"""DD §3: in, fb, out_k, the loop equation (1) and its unique solution,
Proposition 3, equation (2), the explicit formula for δ(s), and the loop egress."""

from __future__ import annotations

from collections.abc import Callable
from itertools import product
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.algebra.group import Group
from reference.algebra.zset import ZSet
from reference.differential.differentials import differential
from reference.differential.loops import (
    delta_egress,
    delta_ingress,
    delta_loop_cases,
    delta_loop_formula,
    differential_loop_equation,
    egress,
    feedback,
    ingress,
    iterate,
    loop_equation,
    loop_solution,
    n_streams,
    solve_causal,
)
from reference.differential.mobius import Stream, StreamGroup
from reference.differential.operators import distinct, map_zset
from tests.differential.helpers import INTS, ZSETS, N, all_int_streams, streams_in, zsets

HORIZON = 4
#: G = Z^N on 0..1: δ_G is not the identity.
Z_N = StreamGroup(INTS, N, (0, 1))
Z_N_ELEMENTS = list(all_int_streams((0, 1), range(-1, 2)))


def grow(c: ZSet) -> ZSet:
    """A non-linear body on Z-sets: distinct(c + (c mod 3) + 1)."""
    return distinct(c + map_zset("mod3", c) + ZSet({1: 1}))


def affine(c: Stream[int, int]) -> Stream[int, int]:
    """A non-linear body on Z^N: x ↦ 1 - x² pointwise."""
    return Stream.tabulate(c.domain, lambda t: 1 - c(t) * c(t))


BODIES: list[tuple[str, Group[Any], Callable[[Any], Any]]] = [
    ("grow on A(X)", ZSETS, grow),
    ("1 - x² on Z^N", Z_N, affine),
    ("S on Z^N", Z_N, Z_N.integrate),
]


# --- equation (1) ------------------------------------------------------------------------


@pytest.mark.spec("DD-CLAIM-LOOP-EQ1", evidence="exhaustive")
def test_loop_equation_unique_solution_exhaustive() -> None:
    """G = Z, f(x) = 1 - x, c ∈ {-1,0,1}, horizon 2: among all d ∈ {-3..3}^3 the only
    fixed point of F(d) = in(c) + fb(f^N(d)) is s = (c, f(c), f²(c))."""
    streams = n_streams(INTS, 2)
    f = lambda x: 1 - x  # noqa: E731
    for c in (-1, 0, 1):
        F = loop_equation(streams, f, c)
        fixed = [d for d in all_int_streams((0, 1, 2), range(-3, 4)) if F(d) == d]
        assert fixed == [loop_solution(streams, f, c)] == [Stream((0, 1, 2), (c, 1 - c, c))]
        assert egress(2, fixed[0]) == iterate(f, 2, c)


@pytest.mark.spec("DD-CLAIM-LOOP-EQ1", evidence="property")
@given(st.data())
def test_loop_equation_solution_property(data: st.DataObject) -> None:
    """s_n = f^n(c) solves (1), and the causal solution of (1) from 0 is s."""
    for _, group, f in BODIES:
        streams = n_streams(group, HORIZON)
        c = data.draw(zsets() if group is ZSETS else streams_in(Z_N))
        s = loop_solution(streams, f, c)
        F = loop_equation(streams, f, c)
        assert F(s) == s and solve_causal(streams, F) == s
        x = c  # s_n = f^n(c), iterated here rather than by the reference's ``iterate``
        for n in range(HORIZON + 1):
            assert s(n) == x
            x = f(x)


# --- Proposition 3 ---------------------------------------------------------------------------


def prop3_in(group: Group[Any], c: Any) -> None:
    streams = n_streams(group, HORIZON)
    definition = streams.delta(ingress(streams, group.integrate(c)))  # δ_{G^N} ∘ in ∘ S_G
    assert definition == delta_ingress(streams, c)


def prop3_fb(group: Group[Any], c: Stream[int, Any]) -> None:
    streams = n_streams(group, HORIZON)
    assert streams.delta(feedback(streams, streams.integrate(c))) == feedback(streams, c)


def prop3_out(group: Group[Any], c: Stream[int, Any]) -> None:
    streams = n_streams(group, HORIZON)
    for k in range(HORIZON + 1):
        definition = group.delta(egress(k, streams.integrate(c)))  # δ_G ∘ out_k ∘ S_{G^N}
        assert definition == delta_egress(streams, k, c)


@pytest.mark.spec("DD-PROP-3", evidence="exhaustive", part="in")
@pytest.mark.spec("DD-PROP-3", evidence="exhaustive", part="fb")
@pytest.mark.spec("DD-PROP-3", evidence="exhaustive", part="out")
def test_prop3_exhaustive() -> None:
    """G = Z^{0..1} with values in {-1,0,1} (δ_G != id): every c ∈ G for δ(in), and every
    stream on 0..1 of such elements (81) for δ(fb), δ(out_k) (horizon 4, zero-padded)."""
    for c in Z_N_ELEMENTS:
        prop3_in(Z_N, c)
    for a, b in product(Z_N_ELEMENTS, repeat=2):
        padded: list[Stream[int, int]] = [a, b, *[Z_N.zero()] * (HORIZON - 1)]
        stream: Stream[int, Any] = Stream(tuple(range(HORIZON + 1)), tuple(padded))
        prop3_fb(Z_N, stream)
        prop3_out(Z_N, stream)


@pytest.mark.spec("DD-PROP-3", evidence="property", part="in")
@pytest.mark.spec("DD-PROP-3", evidence="property", part="fb")
@pytest.mark.spec("DD-PROP-3", evidence="property", part="out")
@given(streams_in(Z_N), streams_in(n_streams(Z_N, HORIZON)), zsets(), streams_in(n_streams(ZSETS, HORIZON)))
def test_prop3_property(c: Any, cs: Stream[int, Any], z: ZSet, zs: Stream[int, ZSet]) -> None:
    prop3_in(Z_N, c)
    prop3_in(ZSETS, z)
    prop3_fb(Z_N, cs)
    prop3_fb(ZSETS, zs)
    prop3_out(Z_N, cs)
    prop3_out(ZSETS, zs)


@pytest.mark.spec("DD-PROP-3", evidence="example", part="in")
def test_delta_ingress_example() -> None:
    streams = n_streams(ZSETS, 3)
    c = ZSet({7: 2})
    assert delta_ingress(streams, c).values == (c, -c, ZSet(), ZSet())


# --- fixed points of F and δ(F) -------------------------------------------------------------


def fixpoint_family() -> list[Callable[[Any], Any]]:
    """Maps F : G -> G on G = Z^{0..1}: constants, affine, non-linear, S, δ, fb-like."""

    def shift(c: Stream[int, int]) -> Stream[int, int]:
        return Stream.tabulate(c.domain, lambda t: 0 if t == 0 else c(t - 1))

    return [
        affine, Z_N.integrate, Z_N.delta, shift,
        lambda c: Z_N.add(shift(c), Stream((0, 1), (1, 0))),
        lambda c: Stream.tabulate(c.domain, lambda t: c(t) ** 3),
        lambda c: Stream.tabulate(c.domain, lambda t: abs(c(t))),
    ]


@pytest.mark.spec("DD-CLAIM-FIXPOINT-DIFF", evidence="exhaustive", part="1=>2")
def test_fixpoint_then_delta_fixpoint() -> None:
    """Every fixed point d of each F (d ∈ Z^{0..1}, values in -1..1) gives a fixed
    point δ(d) of δ(F)."""
    found = 0
    for F in fixpoint_family():
        dF = differential(F, Z_N, Z_N)
        for d in Z_N_ELEMENTS:
            if F(d) == d:
                found += 1
                assert dF(Z_N.delta(d)) == Z_N.delta(d)
    assert found >= 7  # the check is not vacuous


@pytest.mark.spec("DD-CLAIM-FIXPOINT-DIFF", evidence="exhaustive", part="2=>1")
def test_delta_fixpoint_then_fixpoint() -> None:
    """Every fixed point e of δ(F) (e = δ(d), d as above) gives a fixed point S(e) of F,
    and so (δ being a bijection) the fixed points correspond one to one."""
    found = 0
    for F in fixpoint_family():
        dF = differential(F, Z_N, Z_N)
        for d in Z_N_ELEMENTS:
            e = Z_N.delta(d)
            if dF(e) == e:
                found += 1
                assert F(Z_N.integrate(e)) == Z_N.integrate(e)
    assert found >= 7


@pytest.mark.spec("DD-CLAIM-FIXPOINT-DIFF", evidence="property", part="1=>2")
@pytest.mark.spec("DD-CLAIM-FIXPOINT-DIFF", evidence="property", part="2=>1")
@given(zsets(), zsets())
def test_fixpoint_correspondence_property(c: ZSet, d: ZSet) -> None:
    """On G = A(X)^N (horizon 3), F = the loop map of (1) for the body grow: F(d) = d
    iff δ(F)(δ d) = δ d, for the solution and for an arbitrary perturbation of it."""
    streams = n_streams(ZSETS, 3)
    F = loop_equation(streams, grow, c)
    dF = differential(F, streams, streams)
    s = loop_solution(streams, grow, c)
    other = streams.add(s, Stream((0, 1, 2, 3), (ZSet(), ZSet(), d, ZSet())))
    for x in (s, other):
        assert (F(x) == x) == (dF(streams.delta(x)) == streams.delta(x))


# --- equation (2), the explicit formula, the egress ----------------------------------------------


def loop_differentials(group: Group[Any], f: Callable[[Any], Any], c: Any) -> None:
    streams = n_streams(group, HORIZON)
    s = loop_solution(streams, f, c)
    ds = streams.delta(s)
    df, dc = differential(f, group, group), group.delta(c)
    F2 = differential_loop_equation(streams, df, dc)
    assert F2(ds) == ds and solve_causal(streams, F2) == ds  # DD-CLAIM-LOOP-EQ2
    assert delta_loop_formula(streams, df, dc) == ds == delta_loop_cases(streams, df, dc)
    for k in range(HORIZON + 1):  # DD-CLAIM-LOOP-EGRESS
        assert delta_egress(streams, k, ds) == iterate(df, k, dc)


@pytest.mark.spec("DD-CLAIM-LOOP-EQ2", evidence="property")
@pytest.mark.spec("DD-CLAIM-DELTA-S-FORMULA", evidence="property")
@pytest.mark.spec("DD-CLAIM-LOOP-EGRESS", evidence="property")
@given(st.data())
def test_loop_differentials_property(data: st.DataObject) -> None:
    """Horizon 4, the bodies grow (A(X)), 1 - x² and S (Z^N)."""
    for _, group, f in BODIES:
        c = data.draw(zsets() if group is ZSETS else streams_in(Z_N))
        loop_differentials(group, f, c)


@pytest.mark.spec("DD-CLAIM-LOOP-EQ2", evidence="exhaustive")
@pytest.mark.spec("DD-CLAIM-DELTA-S-FORMULA", evidence="exhaustive")
@pytest.mark.spec("DD-CLAIM-LOOP-EGRESS", evidence="exhaustive")
def test_loop_differentials_exhaustive() -> None:
    """Every c ∈ Z^{0..1} with values in -1..1, bodies 1 - x² and S, horizon 4."""
    for c in Z_N_ELEMENTS:
        for _, group, f in BODIES[1:]:
            loop_differentials(group, f, c)


@pytest.mark.spec("DD-CLAIM-DELTA-S-FORMULA", evidence="example")
def test_delta_s_worked_example() -> None:
    """G = Z (δ = S = id), f(x) = x², c = 2: s = 2, 4, 16, 256; δ(s) = 2, 2, 12, 240."""
    streams = n_streams(INTS, 3)
    sq = lambda x: x * x  # noqa: E731
    assert streams.delta(loop_solution(streams, sq, 2)).values == (2, 2, 12, 240)
    assert delta_loop_formula(streams, sq, 2).values == (2, 2, 12, 240)


@pytest.mark.spec("DD-CLAIM-PLUS-FB-OWN", evidence="exhaustive")
def test_plus_and_fb_own_differentials_exhaustive() -> None:
    """δ(+)(x, y) = x + y and δ(fb) = fb on (Z^N)^N, all pairs of streams on 0..1 of
    elements of Z^{0..1} with values in -1..1, zero-padded to horizon 2."""
    streams = n_streams(Z_N, 2)
    plus = differential(lambda p: streams.add(p[0], p[1]), _pairs(streams), streams)
    for a, b in product(Z_N_ELEMENTS, repeat=2):
        x = Stream((0, 1, 2), (a, b, Z_N.zero()))
        y = Stream((0, 1, 2), (b, Z_N.zero(), a))
        assert plus((x, y)) == streams.add(x, y)
        assert differential(lambda c: feedback(streams, c), streams, streams)(x) == feedback(streams, x)


def _pairs(streams: StreamGroup) -> Any:
    from reference.algebra.group import Product

    return Product(streams, streams)


@pytest.mark.spec("DD-CLAIM-PLUS-FB-OWN", evidence="property")
@given(streams_in(n_streams(ZSETS, 3)), streams_in(n_streams(ZSETS, 3)))
def test_plus_and_fb_own_differentials_property(x: Stream[int, ZSet], y: Stream[int, ZSet]) -> None:
    streams = n_streams(ZSETS, 3)
    pair = _pairs(streams)
    assert differential(lambda p: streams.add(p[0], p[1]), pair, streams)((x, y)) == streams.add(x, y)
    assert differential(lambda c: feedback(streams, c), streams, streams)(x) == feedback(streams, x)
