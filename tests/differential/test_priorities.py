"""DD §5: iteration with new input at each step (equation 3), its differential,
Theorem 1 extended, prioritised iteration, and the literal 'same form' reading
refuted. (The lexicographic order's infinite down-set is in test_mobius.)"""

from __future__ import annotations

from itertools import product
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.algebra.group import Integers
from reference.algebra.zset import ZSet
from reference.differential.builtins import BAG, INT
from reference.differential.checks import check_theorem_1
from reference.differential.differentials import differential
from reference.differential.language import (
    Add,
    App,
    Context,
    Expr,
    IllTyped,
    IterIn,
    Semantics,
    Streams,
    Type,
    Var,
    iterate_with_input,
    iterate_with_input_pointwise,
    type_of,
)
from reference.differential.loops import feedback, n_streams, solve_causal
from reference.differential.mobius import Stream
from reference.differential.operators import distinct, map_zset
from reference.differential.priorities import (
    batch_then_k_iterations,
    equation_3,
    prioritized_iteration,
)
from tests.differential.helpers import ZSETS, all_int_streams, streams_in
from tests.differential.language_programs import (
    GAMMA,
    HORIZON,
    SIG,
    environments,
    exprs,
    loops,
    record,
    target_types,
)

Z = ZSet
INTS = Integers()


def grow(c: ZSet) -> ZSet:
    return distinct(c + map_zset("mod3", c))


# --- equation (3) and its differential ------------------------------------------------------


def eq3_checks(group: Any, f: Any, c: Stream[int, Any], horizon: int) -> None:
    streams = n_streams(group, horizon)
    s = iterate_with_input(streams, f, c, differential=False)
    F = equation_3(streams, f, c)
    assert F(s) == s and solve_causal(streams, F) == s
    # the differentiated equation d = δ(c) + fb(δ(f^N)(d)), δ(f^N) by its definition
    df = differential(f, group, group)
    ds = streams.delta(s)

    def dF(d: Stream[int, Any]) -> Stream[int, Any]:
        delta_lifted = streams.delta(Stream.tabulate(d.domain, lambda n: f(streams.integrate(d)(n))))
        return streams.add(streams.delta(c), feedback(streams, delta_lifted))

    assert dF(ds) == ds and solve_causal(streams, dF) == ds
    assert iterate_with_input(streams, df, streams.delta(c), differential=True) == ds


@pytest.mark.spec("DD-CLAIM-EQ3", evidence="exhaustive")
def test_equation_3_exhaustive() -> None:
    """G = Z, f(x) = x² - 1, every input stream c on 0..2 with values in -1..1: s solves (3),
    δ(s) solves its differential; and among the 343 streams with values in -3..3 the
    fixed points of (3) are exactly s when s lies there, none otherwise."""
    f = lambda x: x * x - 1  # noqa: E731
    streams = n_streams(INTS, 2)
    box = list(all_int_streams((0, 1, 2), range(-3, 4)))
    for c in all_int_streams((0, 1, 2), range(-1, 2)):
        eq3_checks(INTS, f, c, 2)
        F = equation_3(streams, f, c)
        solution = iterate_with_input(streams, f, c, differential=False)
        in_box = all(-3 <= v <= 3 for v in solution.values)
        assert [d for d in box if F(d) == d] == ([solution] if in_box else [])


@pytest.mark.spec("DD-CLAIM-EQ3", evidence="property")
@pytest.mark.spec("DD-DEC-ITERIN-DELTA", evidence="property")
@given(streams_in(n_streams(ZSETS, 4)))
def test_equation_3_property(c: Stream[int, ZSet]) -> None:
    """A(X), f = distinct(x + x mod 3), horizon 4."""
    eq3_checks(ZSETS, grow, c, 4)


@pytest.mark.spec("DD-DEF-ITERIN", evidence="example")
def test_equation_3_worked_example() -> None:
    """d_0 = c_0, d_{n+1} = c_{n+1} + f(d_n): c = ({1}, {1}, 0), f = distinct:
    d = ({1}, {1:2}, {1})."""
    c = Stream((0, 1, 2), (Z({1: 1}), Z({1: 1}), Z()))
    s = iterate_with_input(n_streams(ZSETS, 2), distinct, c, differential=False)
    assert s.values == (Z({1: 1}), Z({1: 2}), Z({1: 1}))


@pytest.mark.spec("DD-CLAIM-ITERIN-SAME-FORM", evidence="example")
def test_same_form_literal_reading_counterexample() -> None:
    """The same c and f: δ(s) = ({1}, {1}, -{1}); the body's differential applied
    pointwise (d = δ(c) + fb(δ(f)^N(d))) gives ({1}, {1}, 0). The spec's reading
    (Proposition 1.1 for δ(f^N)) gives δ(s)."""
    streams = n_streams(ZSETS, 2)
    c = Stream((0, 1, 2), (Z({1: 1}), Z({1: 1}), Z()))
    ds = streams.delta(iterate_with_input(streams, distinct, c, differential=False))
    dc = streams.delta(c)
    assert ds.values == (Z({1: 1}), Z({1: 1}), Z({1: -1}))
    assert iterate_with_input_pointwise(streams, distinct, dc).values == (Z({1: 1}), Z({1: 1}), Z())
    assert iterate_with_input(streams, distinct, dc, differential=True) == ds


@pytest.mark.spec("DD-CLAIM-ITERIN-SAME-FORM", evidence="exhaustive")
@pytest.mark.spec("DD-DEC-ITERIN-DELTA", evidence="exhaustive")
def test_same_form_fails_exactly_for_nonlinear_bodies() -> None:
    """Over every c on 0..2 with values in -1..1 (G = Z): the pointwise reading agrees
    with δ(s) for the linear body 2x on all 27 inputs, and fails for the body x² on
    some (counted); the Proposition 1.1 reading agrees for both, on all inputs."""
    streams = n_streams(INTS, 2)
    failures = 0
    for c in all_int_streams((0, 1, 2), range(-1, 2)):
        dc = streams.delta(c)
        for f, linear in ((lambda x: 2 * x, True), (lambda x: x * x, False)):
            ds = streams.delta(iterate_with_input(streams, f, c, differential=False))
            assert iterate_with_input(streams, f, dc, differential=True) == ds
            pointwise_ok = iterate_with_input_pointwise(streams, f, dc) == ds
            assert pointwise_ok or not linear
            failures += not pointwise_ok
    assert failures > 0
    # one by hand: c = (1, 1, 0): s = (1, 2, 4), δ(s) = (1, 1, 2); δ(c) = (1, 0, -1);
    # pointwise: 1, 0 + 1² = 1, -1 + 1² = 0
    c = Stream((0, 1, 2), (1, 1, 0))
    assert iterate_with_input_pointwise(streams, lambda x: x * x, streams.delta(c)).values == (1, 1, 0)
    assert streams.delta(iterate_with_input(streams, lambda x: x * x, c, differential=False)).values == (1, 1, 2)


# --- typing and Theorem 1 for iterin --------------------------------------------------------


@pytest.mark.spec("DD-DEC-ITERIN-TYPING", evidence="example")
def test_iterin_typing() -> None:
    """Body : σ in Γ, x:σ and input : σ+ give σ+; the premises as printed (body : σ+,
    input : σ) are refused, as equation (3) has no meaning for them."""
    good = IterIn("x", BAG, App("distinct", (Var("x"),)), Var("s"))
    assert type_of(SIG, GAMMA, good) == Streams(BAG)
    printed = IterIn("x", BAG, App("ingress", (Var("x"),)), Var("a"))
    with pytest.raises(IllTyped):
        type_of(SIG, GAMMA, printed)


@pytest.mark.spec("DD-DEC-ITERIN-TYPING", evidence="property")
@given(st.sampled_from([INT, BAG]).flatmap(lambda t: st.tuples(st.just(t), exprs(t, 2, (*GAMMA, ("x9", t))), exprs(Streams(t), 2, GAMMA))),
       environments())
def test_iterin_denotes_the_solution_of_equation_3(
    parts: tuple[Type, Expr, Expr], alpha: tuple[Any, ...]
) -> None:
    """For random body e : σ and input e' : σ+, D[[iterin x9:σ to e in e']](α) solves
    d = D[[e']](α) + fb((λa. D[[e]](α, a))^N(d))."""
    sigma, body, inputs = parts
    e = IterIn("x9", sigma, body, inputs)
    assert type_of(SIG, GAMMA, e) == Streams(sigma)
    sem = Semantics(SIG, HORIZON)
    d = sem(GAMMA, e, alpha)
    c = sem(GAMMA, inputs, alpha)
    f = lambda a: sem((*GAMMA, ("x9", sigma)), body, (*alpha, a))  # noqa: E731
    group = SIG.bases[sigma.name] if hasattr(sigma, "name") else None
    assert group is not None
    assert equation_3(n_streams(group, HORIZON), f, c)(d) == d


@pytest.mark.spec("DD-CLAIM-THM1-EXTENDS", evidence="property")
@pytest.mark.spec("DD-DEC-ITERIN-DELTA", evidence="property")
@given(target_types().flatmap(lambda t: exprs(t, 4, GAMMA, iterin=True)), environments())
def test_theorem_1_with_iterin(e: Expr, alpha: tuple[Any, ...]) -> None:
    """Theorem 1 (both forms) on random programs of depth <= 4 that may use iterin."""
    record(e)
    for form in ("first", "second"):
        verdict = check_theorem_1(SIG, GAMMA, e, [alpha], HORIZON, form=form)
        assert verdict, verdict.describe()


@pytest.mark.spec("DD-CLAIM-THM1-EXTENDS", evidence="property")
@given(loops(2, iterin=True), environments())
def test_theorem_1_with_iterin_nested(e: Expr, alpha: tuple[Any, ...]) -> None:
    """Loops (iter or iterin) with a loop in their body."""
    record(e)
    for form in ("first", "second"):
        verdict = check_theorem_1(SIG, GAMMA, e, [alpha], HORIZON, form=form)
        assert verdict, verdict.describe()


@pytest.mark.spec("DD-CLAIM-THM1-EXTENDS", evidence="exhaustive")
def test_theorem_1_iterin_exhaustive() -> None:
    """iterin x:bag to distinct(x + map_inc(x)) in s, for every input stream s on 0..2
    of Z-sets over {0} with weights in -1..1 (27 environments), both forms, horizon 2."""
    e = IterIn("x", BAG, App("distinct", (Add(Var("x"), App("map_inc", (Var("x"),))),)), Var("s"))
    gamma: Context = (("s", Streams(BAG)),)
    alphas = [(Stream((0, 1, 2), tuple(Z({0: w}) for w in ws)),) for ws in product(range(-1, 2), repeat=3)]
    for form in ("first", "second"):
        assert check_theorem_1(SIG, gamma, e, alphas, 2, form=form)


# --- prioritised iteration --------------------------------------------------------------------

EDGES = {0: {3}, 3: {6}, 1: {4}, 4: {7}, 2: {5}, 5: {1}}


def step(c: ZSet) -> ZSet:
    """One round of reachability: distinct(c + successors(c))."""
    return distinct(c + Z.from_pairs((y, 1) for x in c.support() for y in EDGES.get(x, ())))


@pytest.mark.spec("DD-EX-PRIORITIZED", evidence="example")
def test_prioritized_reachability() -> None:
    """Roots {0, 1, 2} have priorities 0, 1, 2 (x mod 3); k = 3 iterations each.
    Priority 0 (root 0) reaches {0, 3, 6} by iteration 2; priority 1 adds root 1 at
    iteration 3 and reaches {1, 4, 7}; priority 2 adds 2 at iteration 6: 2 -> 5 -> 1."""
    s = prioritized_iteration(step, Z({0: 1, 1: 1, 2: 1}), 3, 8)
    assert s(2) == Z({0: 1, 3: 1, 6: 1})
    assert s(5) == Z({0: 1, 3: 1, 6: 1, 1: 1, 4: 1, 7: 1})
    assert s(8) == Z({0: 1, 3: 1, 6: 1, 1: 1, 4: 1, 7: 1, 2: 1, 5: 1})
    assert s == batch_then_k_iterations(step, Z({0: 1, 1: 1, 2: 1}), 3, 8)


@pytest.mark.spec("DD-EX-PRIORITIZED", evidence="property")
@given(st.frozensets(st.integers(0, 8), max_size=5), st.integers(1, 3))
def test_prioritized_is_k_iterations_per_priority(roots: frozenset[int], k: int) -> None:
    """Equation (3) with prioritised input = each priority gets exactly k iterations,
    starting from where the previous one left off."""
    c = Z({x: 1 for x in roots})
    horizon = 3 * k + 1
    assert prioritized_iteration(step, c, k, horizon) == batch_then_k_iterations(step, c, k, horizon)
