"""§3.8 Feedback: loop for stream functions and processors, Proposition 3.60, tightening,
Example 3.58 (transitive closure) and the loop without a fixed point."""

from __future__ import annotations

from itertools import product as cartesian
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.algebra.monoid import booleans, direct_product, free_monoid, naturals, powerset
from reference.streams.equivalence import check_equivalent
from reference.streams.feedback import (
    fix_sequence_feedback,
    loop_function,
    loop_processor,
    map_list,
    reaches_fixed_point,
    shift_add,
    transitive_closure,
    transitive_closure_step,
)
from reference.streams.functions import StreamFunction, check_stream_function
from reference.streams.processors import Processor, processor_of, pure, run, stream_function_of
from reference.streams.rewriting import Atom, Loop, Pure, Seq, denote, left_tighten, right_tighten

P = powerset()
PP = direct_product(P, P)
N = naturals()
NN = direct_product(N, N)
edges = st.frozensets(st.tuples(st.integers(0, 4), st.integers(0, 4)), max_size=4)
rounds = st.lists(edges, max_size=5).map(tuple)


def counter_body() -> Processor:
    """A stateful loop body on N × N: state = total m seen; emits (total, u + 1)."""
    def f(mu: tuple[int, int]) -> Any:
        m, u = mu
        return lambda s: (s + m, (m + s if m else 0, u))
    return Processor(f, 0, (0, 1), NN, NN, "counter")


def tc_loop() -> Processor:
    return loop_processor(processor_of(transitive_closure_step()))


# --- Example 3.58 ------------------------------------------------------------


@pytest.mark.spec("STREAM-EX-3.58", evidence="property")
@pytest.mark.spec("STREAM-DEF-3.59", evidence="property")
@given(edges, st.integers(0, 3))
def test_transitive_closure_through_loop(e: frozenset[tuple[int, int]], extra: int) -> None:
    """loop T_P on [E, ∅, …, ∅] derives exactly the transitive closure (after |V| rounds)."""
    out = run(tc_loop())((e,) + (frozenset(),) * (5 + extra))
    derived = frozenset().union(*out)
    assert derived == transitive_closure(e)


@pytest.mark.spec("STREAM-EX-3.58", evidence="example")
def test_transitive_closure_example() -> None:
    out = run(tc_loop())((frozenset({(1, 2), (2, 3)}), frozenset({(3, 4)}), frozenset(), frozenset()))
    assert out == (frozenset(), frozenset({(1, 2), (2, 3)}), frozenset({(1, 3), (3, 4), (2, 4)}),
                   frozenset({(1, 4)}), frozenset())
    assert check_stream_function(transitive_closure_step(), [(frozenset({(1, 2)}), frozenset()),
                                                             (frozenset({(2, 3)}), frozenset({(1, 2)}))])


# --- Proposition 3.60 --------------------------------------------------------


@pytest.mark.spec("STREAM-PROP-3.60", evidence="property")
@given(rounds, st.lists(st.integers(0, 3), max_size=5).map(tuple))
def test_loop_commutes_with_semantics(ms: tuple[Any, ...], ns: tuple[int, ...]) -> None:
    """⟦loop σ⟧ = loop ⟦σ⟧ (ΔF = o_{p⇝a}) for the transitive-closure body and a stateful counter."""
    for sigma, xs in ((processor_of(transitive_closure_step()), ms), (counter_body(), ns)):
        assert run(loop_processor(sigma))(xs) == loop_function(stream_function_of(sigma), xs)


@pytest.mark.spec("STREAM-PROP-3.60", evidence="exhaustive")
def test_loop_commutes_with_semantics_exhaustive() -> None:
    """Loop bodies on B × B given by 2-state tables (s, m, u) ↦ (s', (n, u')) (8^8 tables; the
    first 4096 in a fixed enumeration order), on every input list of length ≤ 3 over B."""
    B = booleans()
    BB = direct_product(B, B)
    cells = list(cartesian((0, 1), (False, True), (False, True)))
    outs = list(cartesian((0, 1), (False, True), (False, True)))
    checked = 0
    for picks in cartesian(outs, repeat=len(cells)):
        if checked >= 4096:
            break
        table = dict(zip(cells, picks, strict=True))

        def on_gen(mu: tuple[bool, bool], t: dict[Any, Any] = table) -> Any:
            return lambda s: (t[(s, mu[0], mu[1])][0], t[(s, mu[0], mu[1])][1:])

        from reference.algebra.monoid import hom_on_generators, state_monoid

        f = hom_on_generators(BB, state_monoid(BB, (0, 1)), on_gen)
        sigma = Processor(f, 0, (False, False), BB, BB, "table")
        for k in range(4):
            for xs in cartesian((False, True), repeat=k):
                assert run(loop_processor(sigma))(xs) == loop_function(stream_function_of(sigma), xs)
        checked += 1
    assert checked == 4096


@pytest.mark.spec("STREAM-DEC-LOOP-DELTA", evidence="example")
def test_loop_depends_on_the_update() -> None:
    """F = id on B × B has two valid updates: ΔF(p, a) = a and ΔF(p, a) = a minus what p has
    (⊥ where p already has ⊤). loop F differs between them."""
    B = booleans()
    BB = direct_product(B, B)
    ident = lambda x: x  # noqa: E731
    full = StreamFunction(ident, lambda p, a: a, BB, BB)
    least = StreamFunction(ident, lambda p, a: (a[0] and not p[0], a[1] and not p[1]), BB, BB)
    xs = [(False, False), (True, False), (False, True), (True, True)]
    assert check_stream_function(full, xs, decided=True) and check_stream_function(least, xs, decided=True)
    ms = (True, True, True)
    assert loop_function(full, ms) == (False, True, True, True)
    assert loop_function(least, ms) == (False, True, False, False)


@pytest.mark.spec("STREAM-DEC-LOOP-DELTA", evidence="property")
@given(st.lists(st.booleans(), max_size=6).map(tuple))
def test_loop_of_processor_uses_its_own_update(ms: tuple[bool, ...]) -> None:
    """The generic processor of a stream function (Theorem 3.18) carries ΔF: its loop is loop (F, ΔF)."""
    B = booleans()
    BB = direct_product(B, B)
    least = StreamFunction(lambda x: x, lambda p, a: (a[0] and not p[0], a[1] and not p[1]), BB, BB)
    assert run(loop_processor(processor_of(least)))(ms) == loop_function(least, ms)


# --- tightening --------------------------------------------------------------


def _tc_expr() -> Any:
    return Loop(Atom(processor_of(transitive_closure_step())))


def relabel(e: frozenset[tuple[int, int]]) -> frozenset[tuple[int, int]]:
    """A homomorphism P(V²) → P(V²): rename vertices v ↦ v mod 3."""
    return frozenset((a % 3, b % 3) for a, b in e)


@pytest.mark.spec("STREAM-PROP-3.61", evidence="property")
@given(st.lists(rounds, min_size=1, max_size=2))
def test_left_tightening(xs: list[tuple[Any, ...]]) -> None:
    lists = free_monoid()
    start = Seq((Pure(map_list(relabel), lists, lists, "map relabel"), _tc_expr()))
    tightened = left_tighten(start, 0, relabel, P, P)
    assert check_equivalent(denote(start), denote(tightened), xs)


@pytest.mark.spec("STREAM-PROP-3.61", evidence="example")
def test_left_tightening_example() -> None:
    lists = free_monoid()
    start = Seq((Pure(map_list(relabel), lists, lists, "map relabel"), _tc_expr()))
    tightened = left_tighten(start, 0, relabel, P, P)
    x: tuple[frozenset[tuple[int, int]], ...] = (frozenset({(3, 4), (4, 5)}), frozenset())
    assert run(denote(start))(x) == run(denote(tightened))(x) == (
        frozenset(), frozenset({(0, 1), (1, 2)}), frozenset({(0, 2)}))
    assert isinstance(tightened, Loop)


def only_loops(e: frozenset[tuple[int, int]]) -> frozenset[tuple[int, int]]:
    """A homomorphism P(V²) → P(V²): keep the self-loops."""
    return frozenset((a, b) for a, b in e if a == b)


@pytest.mark.spec("STREAM-PROP-3.61-RIGHT", evidence="property")
@given(st.lists(rounds, min_size=1, max_size=2))
def test_right_tightening(xs: list[tuple[Any, ...]]) -> None:
    lists = free_monoid()
    start = Seq((_tc_expr(), Pure(map_list(only_loops), lists, lists, "map only_loops")))
    tightened = right_tighten(start, 0, only_loops, P, P)
    assert check_equivalent(denote(start), denote(tightened), xs)


@pytest.mark.spec("STREAM-PROP-3.61-RIGHT", evidence="example")
def test_right_tightening_example() -> None:
    lists = free_monoid()
    start = Seq((_tc_expr(), Pure(map_list(only_loops), lists, lists, "map only_loops")))
    tightened = right_tighten(start, 0, only_loops, P, P)
    x: tuple[frozenset[tuple[int, int]], ...] = (frozenset({(1, 2), (2, 1)}), frozenset(), frozenset())
    assert run(denote(start))(x) == run(denote(tightened))(x) == (
        frozenset(), frozenset(), frozenset({(1, 1), (2, 2)}), frozenset())


# --- the loop without a fixed point ------------------------------------------


@pytest.mark.spec("STREAM-CLAIM-3.57-NONTERM", evidence="exhaustive", part="1=>2")
@pytest.mark.spec("STREAM-CLAIM-3.57-NONTERM", evidence="exhaustive", part="2=>1")
def test_fixed_point_iff_zero_exhaustive() -> None:
    """For every m ≤ 30: a fixed point within 40 rounds iff m = 0; u_i = i·m throughout."""
    for m in range(31):
        us = fix_sequence_feedback(m, 40)
        assert us == tuple(i * m for i in range(41))
        assert reaches_fixed_point(m, 40) == (m == 0)


@pytest.mark.spec("STREAM-CLAIM-3.57-NONTERM", evidence="property", part="1=>2")
@pytest.mark.spec("STREAM-CLAIM-3.57-NONTERM", evidence="property", part="2=>1")
@given(st.integers(0, 10**6), st.integers(1, 60))
def test_fixed_point_iff_zero_property(m: int, rounds_: int) -> None:
    assert reaches_fixed_point(m, rounds_) == (m == 0)
    assert check_stream_function(shift_add(), [(m, 0), (0, m), (1, 2)])


@pytest.mark.spec("STREAM-CLAIM-3.57-NONTERM", evidence="example", part="2=>1")
def test_fixed_point_example() -> None:
    assert fix_sequence_feedback(0, 3) == (0, 0, 0, 0)
    assert fix_sequence_feedback(2, 3) == (0, 2, 4, 6)


@pytest.mark.spec("STREAM-DEF-3.57", evidence="example")
@pytest.mark.spec("STREAM-DEF-3.59", evidence="example")
def test_loop_processor_matches_definition_on_pure_body() -> None:
    """Definition 3.59 on pure F (a homomorphism): loop (pure F) = loop F."""
    sf = shift_add()
    body = pure(sf.F, NN, NN, "F")
    assert run(loop_processor(body))((1, 1, 1)) == loop_function(sf, (1, 1, 1)) == (0, 0, 1, 2)


def _small_rounds() -> list[tuple[frozenset[tuple[int, int]], ...]]:
    all_edges: list[tuple[int, int]] = [(a, b) for a in range(2) for b in range(2)]
    sets = [frozenset(e for e, keep in zip(all_edges, bits, strict=True) if keep)
            for bits in cartesian((False, True), repeat=4)]
    return [tuple(r) for n in range(3) for r in cartesian(sets, repeat=n)]


def reverse(e: frozenset[tuple[int, int]]) -> frozenset[tuple[int, int]]:
    """A homomorphism P(V²) → P(V²): reverse every edge."""
    return frozenset((b, a) for a, b in e)


@pytest.mark.spec("STREAM-PROP-3.61", evidence="exhaustive")
@pytest.mark.spec("STREAM-PROP-3.61-RIGHT", evidence="exhaustive")
def test_tightening_exhaustive() -> None:
    """Transitive closure on V = {0, 1}: every list of at most 2 rounds of edge sets (273 inputs),
    every batching; f = reverse on the left, g = self-loops on the right."""
    lists = free_monoid()
    xs = _small_rounds()
    assert len(xs) == 273
    left = Seq((Pure(map_list(reverse), lists, lists, "map reverse"), _tc_expr()))
    assert check_equivalent(denote(left), denote(left_tighten(left, 0, reverse, P, P)), xs)
    right = Seq((_tc_expr(), Pure(map_list(only_loops), lists, lists, "map only_loops")))
    assert check_equivalent(denote(right), denote(right_tighten(right, 0, only_loops, P, P)), xs)
