"""The incremental operator rules (DD-CLAIM-RULE-*) against the definition they come from:
δ(f^T) = δ_{H^T} ∘ f^T ∘ S_{G^T} over T = N^d (Propositions 1 and 2), on traces.
Also: the Möbius corners of N^d used by the rules, against the recursion; and the
restriction of streams to a horizon (DD-DEC-STREAM-REPR)."""

from __future__ import annotations

from itertools import product
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.algebra.zset import ZSet
from reference.differential.builtins import signature
from reference.differential.differentials import lift, lift2
from reference.differential.language import Semantics, Streams, Type, type_of
from reference.differential.mobius import Stream, StreamGroup, mobius_by_recursion
from reference.differential.operators import (
    Trace,
    distinct,
    element_key,
    filter_zset,
    join,
    join_rule,
    keyed_rule,
    linear_rule,
    map_zset,
    mobius_corners,
    pair_key,
    reduce,
)
from reference.differential.orders import naturals_power
from tests.differential.helpers import ZSETS
from tests.differential.language_programs import GAMMA, environments, exprs, target_types

BOXES = {1: (3,), 2: (2, 2), 3: (1, 1, 2)}


def box(d: int) -> tuple[tuple[int, ...], ...]:
    return naturals_power(d).down(BOXES[d])


def definition(f: Any, trace: Trace, times: tuple[tuple[int, ...], ...], d: int) -> Stream[Any, ZSet]:
    """δ(f^T)(c) with c the trace as a stream on the box."""
    g = StreamGroup(ZSETS, naturals_power(d), times)
    c = Stream.tabulate(times, lambda t: trace.get(t, ZSet()))
    return g.delta(lift(f)(g.integrate(c)))


def definition2(f: Any, left: Trace, right: Trace, times: tuple[tuple[int, ...], ...], d: int) -> Stream[Any, ZSet]:
    g = StreamGroup(ZSETS, naturals_power(d), times)
    c = Stream.tabulate(times, lambda t: left.get(t, ZSet()))
    e = Stream.tabulate(times, lambda t: right.get(t, ZSet()))
    return g.delta(lift2(f)(g.integrate(c), g.integrate(e)))


pairs = st.tuples(st.integers(0, 2), st.integers(0, 3))
pair_zsets = st.lists(st.tuples(pairs, st.integers(-2, 2)), max_size=2).map(ZSet.from_pairs)


@st.composite
def traces(draw: st.DrawFn, d: int) -> dict[tuple[int, ...], ZSet]:
    times = box(d)
    chosen = draw(st.lists(st.sampled_from(times), max_size=4, unique=True))
    return {t: z for t in chosen if not (z := draw(pair_zsets)).is_empty()}


def check_rules(d: int, times: tuple[tuple[int, ...], ...], c: Trace, e: Trace) -> None:
    linear = lambda z: filter_zset("fst_even", map_zset("swap", z))  # noqa: E731
    expected = {
        "linear": definition(linear, c, times, d),
        "join": definition2(join, c, e, times, d),
        "distinct": definition(distinct, c, times, d),
        "reduce": definition(lambda z: reduce("sum", z), c, times, d),
    }
    for t in times:
        assert linear_rule(linear, c, t) == expected["linear"](t)
        assert join_rule(c, e, t) == expected["join"](t)
        assert keyed_rule(distinct, element_key, c, t) == expected["distinct"](t)
        assert keyed_rule(lambda z: reduce("sum", z), pair_key, c, t) == expected["reduce"](t)


@pytest.mark.spec("DD-CLAIM-RULE-LINEAR", evidence="property")
@pytest.mark.spec("DD-CLAIM-RULE-JOIN", evidence="property")
@pytest.mark.spec("DD-CLAIM-RULE-DISTINCT", evidence="property")
@pytest.mark.spec("DD-CLAIM-RULE-REDUCE", evidence="property")
@pytest.mark.parametrize("d", [1, 2, 3])
def test_rules_equal_the_definition(d: int) -> None:
    """Random traces on the boxes ↓(3), ↓(2,2), ↓(1,1,2) of N^d: each rule gives
    δ(f^T)(c)_t at every time of the box."""

    @given(traces(d), traces(d))
    def check(c: dict[tuple[int, ...], ZSet], e: dict[tuple[int, ...], ZSet]) -> None:
        check_rules(d, box(d), c, e)

    check()


@pytest.mark.spec("DD-CLAIM-RULE-LINEAR", evidence="exhaustive")
@pytest.mark.spec("DD-CLAIM-RULE-JOIN", evidence="exhaustive")
@pytest.mark.spec("DD-CLAIM-RULE-DISTINCT", evidence="exhaustive")
@pytest.mark.spec("DD-CLAIM-RULE-REDUCE", evidence="exhaustive")
def test_rules_exhaustive_on_n2() -> None:
    """Every trace on ↓(1,1) ⊂ N^2 whose differences are drawn from {0, +(0,1), -(0,1),
    +(0,2)} (4^4 = 256 traces), against a fixed second trace for join."""
    pool = [ZSet(), ZSet({(0, 1): 1}), ZSet({(0, 1): -1}), ZSet({(0, 2): 1})]
    times = naturals_power(2).down((1, 1))
    other: dict[tuple[int, ...], ZSet] = {(0, 0): ZSet({(0, 5): 1}), (1, 1): ZSet({(0, 6): -1})}
    for values in product(pool, repeat=len(times)):
        trace = {t: z for t, z in zip(times, values, strict=True) if not z.is_empty()}
        check_rules(2, times, trace, other)


@pytest.mark.spec("DD-CLAIM-MU-PRODUCT", evidence="exhaustive")
def test_mobius_corners_match_the_recursion() -> None:
    """The rules' corners of t in N^d are the t' with μ(t', t) != 0, with that value."""
    for d, top in ((1, (5,)), (2, (3, 3)), (3, (2, 2, 2))):
        order = naturals_power(d)
        for t in order.down(top):
            expected = {u: m for u in order.down(t) if (m := mobius_by_recursion(order, u, t)) != 0}
            assert dict(mobius_corners(t)) == expected


# --- DD-DEC-STREAM-REPR -------------------------------------------------------------------------


def restrict(value: Any, ty: Type, horizon: int) -> Any:
    """The restriction of a value of D[[ty]] to streams on 0..horizon (recursively)."""
    if isinstance(ty, Streams):
        return Stream(tuple(range(horizon + 1)), tuple(restrict(value(n), ty.elem, horizon) for n in range(horizon + 1)))
    if hasattr(ty, "left"):
        return (restrict(value[0], ty.left, horizon), restrict(value[1], ty.right, horizon))  # type: ignore[union-attr]
    return value


@pytest.mark.spec("DD-DEC-STREAM-REPR", evidence="property")
@given(target_types().flatmap(lambda t: exprs(t, 3, GAMMA, iterin=True)), environments())
def test_restriction_commutes_with_both_semantics(e: Any, alpha: tuple[Any, ...]) -> None:
    """Computing on 0..3 and restricting to 0..2 equals computing on 0..2, for D and Dδ
    (programs of depth <= 3 with out_k, k <= 2): the finite representation is exact."""
    ty = type_of(signature(2), GAMMA, e)
    wide = tuple(_extend(a, s) for a, (_, s) in zip(alpha, GAMMA, strict=True))
    for differential in (False, True):
        narrow = Semantics(signature(2), 2, differential)(GAMMA, e, alpha)
        longer = Semantics(signature(3), 3, differential)(GAMMA, e, wide)
        assert restrict(longer, ty, 2) == narrow


def _extend(value: Any, ty: Type) -> Any:
    """A stream on 0..2 extended to 0..3 with an arbitrary (non-zero) value at 3."""
    if isinstance(ty, Streams):
        return Stream((0, 1, 2, 3), (*value.values, ZSet({9: 1})))
    return value


@pytest.mark.spec("DD-DEC-STREAM-REPR", evidence="example")
def test_restriction_example() -> None:
    """δ_N of (1, 4, 9, 16) on 0..3 is (1, 3, 5, 7); on 0..2 it is (1, 3, 5): the prefix."""
    from reference.differential.loops import n_streams
    from tests.differential.helpers import INTS

    long = n_streams(INTS, 3).delta(Stream((0, 1, 2, 3), (1, 4, 9, 16)))
    short = n_streams(INTS, 2).delta(Stream((0, 1, 2), (1, 4, 9)))
    assert long.values == (1, 3, 5, 7) and short.values == (1, 3, 5)


# --- sparseness: where the output can change ------------------------------------------------


@pytest.mark.spec("DD-CLAIM-SPARSENESS", evidence="example")
def test_output_difference_where_the_input_has_none() -> None:
    """N^2: c = {x} at (1,0) and at (0,1), nothing at (1,1). The collections are {x},
    {x}, {x:2}; distinct gives {x} at all three, so its difference at (1,1) is
    {x} - {x} - {x} + 0 = -{x} (by hand), although c_(1,1) = 0. The rule used by the
    dataflow reference agrees, x being affected at (1,1) through both coordinates."""
    x = ZSet({7: 1})
    trace: Trace = {(1, 0): x, (0, 1): x}
    assert definition(distinct, trace, naturals_power(2).down((1, 1)), 2)((1, 1)) == ZSet({7: -1})
    assert keyed_rule(distinct, element_key, trace, (1, 1)) == ZSet({7: -1})


@pytest.mark.spec("DD-CLAIM-SPARSENESS", evidence="exhaustive")
def test_sparseness_holds_on_a_chain_and_fails_on_n2() -> None:
    """Every trace giving one element a weight in -1..1 at each time, f = distinct:
    on N <= 3 (a chain, 81 traces) no output difference is non-zero at a time without
    input difference; on N^2 <= (1,1) (81 traces) some are (counted)."""
    violations: dict[int, int] = {}
    for d, top in ((1, (3,)), (2, (1, 1))):
        times = naturals_power(d).down(top)
        violations[d] = 0
        for weights in product(range(-1, 2), repeat=len(times)):
            trace: Trace = {t: ZSet({0: w}) for t, w in zip(times, weights, strict=True)}
            out = definition(distinct, trace, times, d)
            violations[d] += sum(1 for t in times if trace[t].is_empty() and not out(t).is_empty())
    assert violations[1] == 0 and violations[2] > 0
