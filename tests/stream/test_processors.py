"""§3.2 Stream processors: Theorems 3.21-3.22, the lemma of Definition 3.23,
``pure`` and Propositions 3.25-3.26."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.algebra.monoid import bags, check_homomorphism, free_monoid, powerset
from reference.algebra.multiset import Multiset
from reference.streams.functions import PS, check_stream_function, prefix_sum
from reference.streams.processors import (
    Processor,
    o_after,
    o_total,
    processor_of,
    pure,
    run,
    run_batches,
    stream_function_of,
)
from reference.streams.ticks import stratified_difference
from tests.stream.machines import LISTS, all_mealy, inputs, mealy_machines, words

SMALL_INPUTS = words((0, 1), 3)


def small_machines(states: int = 2) -> list[Processor]:
    """All machines with ``states`` states over {0, 1} emitting [] or [1] per step (256 for 2 states)."""
    return list(all_mealy(states, (0, 1), ((), (1,))))


# --- Theorem 3.21 ------------------------------------------------------------


@pytest.mark.spec("STREAM-DEF-3.19", evidence="property")
@pytest.mark.spec("STREAM-THM-3.21", evidence="property")
@given(mealy_machines(), st.lists(inputs, min_size=1, max_size=3))
def test_soundness_property(sigma: Processor, xs: list[tuple[int, ...]]) -> None:
    """⟦σ⟧ with ΔF(p, a) = o_{p⇝a} satisfies (1), (2a), (2b)."""
    assert check_stream_function(stream_function_of(sigma), xs)


@pytest.mark.spec("STREAM-THM-3.21", evidence="exhaustive")
def test_soundness_exhaustive() -> None:
    """Every 2-state machine over {0, 1} with outputs [] or [1]; inputs of length ≤ 2."""
    xs = words((0, 1), 2)
    for sigma in small_machines():
        assert check_stream_function(stream_function_of(sigma), xs)


# --- Theorem 3.22 ------------------------------------------------------------


@pytest.mark.spec("STREAM-THM-3.22", evidence="property")
@given(st.lists(st.integers(-5, 5), max_size=6).map(tuple), st.lists(st.sampled_from(
    [((0, (frozenset({1}), frozenset())),), ((0, (frozenset(), frozenset({1}))),), ((1, 1),)]), max_size=5))
def test_completeness_property(m: tuple[int, ...], gens: list[tuple[tuple[int, object], ...]]) -> None:
    """⟦σ_F⟧ = F for prefix sum and for the ticked stratified difference."""
    assert run(processor_of(prefix_sum()))(m) == PS(m)
    sd = stratified_difference()
    word = sd.M.prod(gens)
    assert sd.N.equal(run(processor_of(sd))(word), sd.F(word))


@pytest.mark.spec("STREAM-THM-3.22", evidence="exhaustive")
def test_completeness_exhaustive() -> None:
    """For every small machine σ, F = ⟦σ⟧ is a stream function and ⟦σ_F⟧ = F on all inputs of
    length ≤ 3 (round trip through Theorems 3.21 and 3.22)."""
    for sigma in small_machines():
        F = stream_function_of(sigma)
        back = run(processor_of(F))
        assert all(back(m) == F.F(m) for m in SMALL_INPUTS)


# --- the lemma of Definition 3.23 ---------------------------------------------


@pytest.mark.spec("STREAM-DEF-3.23", evidence="property")
@pytest.mark.spec("STREAM-LEM-3.23", evidence="property", part="(1)")
@pytest.mark.spec("STREAM-LEM-3.23", evidence="property", part="(2)")
@pytest.mark.spec("STREAM-LEM-3.23", evidence="property", part="(3)")
@pytest.mark.spec("STREAM-LEM-3.23", evidence="property", part="(4)")
@given(mealy_machines(), inputs, inputs, inputs)
def test_incremental_outputs_property(sigma: Processor, p: tuple[int, ...], a: tuple[int, ...],
                                      b: tuple[int, ...]) -> None:
    assert o_after(sigma, p, ()) == ()
    assert o_after(sigma, p, a + b) == o_after(sigma, p, a) + o_after(sigma, p + a, b)
    assert o_total(sigma, a + b) == o_total(sigma, a) + o_after(sigma, a, b)
    assert run(sigma)(p) == o_total(sigma, p)


@pytest.mark.spec("STREAM-LEM-3.23", evidence="exhaustive", part="(1)")
@pytest.mark.spec("STREAM-LEM-3.23", evidence="exhaustive", part="(2)")
@pytest.mark.spec("STREAM-LEM-3.23", evidence="exhaustive", part="(3)")
@pytest.mark.spec("STREAM-LEM-3.23", evidence="exhaustive", part="(4)")
def test_incremental_outputs_exhaustive() -> None:
    """All 2-state machines, all p, a, b of length ≤ 2 over {0, 1}."""
    xs = words((0, 1), 2)
    for sigma in small_machines():
        for p in xs:
            assert o_after(sigma, p, ()) == ()
            assert run(sigma)(p) == o_total(sigma, p)
            for a in xs:
                for b in xs:
                    assert o_after(sigma, p, a + b) == o_after(sigma, p, a) + o_after(sigma, p + a, b)
                    assert o_total(sigma, a + b) == o_total(sigma, a) + o_after(sigma, a, b)


# --- pure and Propositions 3.25, 3.26 ----------------------------------------


@pytest.mark.spec("STREAM-DEF-3.24", evidence="property")
@pytest.mark.spec("STREAM-DEF-3.20", evidence="property")
@pytest.mark.spec("STREAM-PROP-3.25", evidence="property")
@given(inputs, st.lists(st.integers(0, 3), max_size=5))
def test_pure_implements_f(m: tuple[int, ...], items: list[int]) -> None:
    double = pure(lambda w: tuple(2 * x for x in w), LISTS, LISTS, "double")
    assert run(double)(m) == tuple(2 * x for x in m)
    distinct = pure(lambda b: b.support(), bags(), powerset(), "distinct")
    bag = Multiset.from_iterable(items)
    assert run(distinct)(bag) == frozenset(items)
    assert run_batches(distinct, [Multiset.of(x) for x in items]) == frozenset(items)


@pytest.mark.spec("STREAM-PROP-3.25", evidence="exhaustive")
def test_pure_implements_f_exhaustive() -> None:
    """Every letter-to-word map {0, 1} → {[], [0], [1], [0, 1]} as a homomorphism on lists:
    ⟦pure f⟧ = f on all inputs of length ≤ 3."""
    images = [(), (0,), (1,), (0, 1)]
    for i0 in images:
        for i1 in images:
            table = {0: i0, 1: i1}

            def f(w: tuple[int, ...], t: dict[int, tuple[int, ...]] = table) -> tuple[int, ...]:
                return tuple(x for a in w for x in t[a])

            assert all(run(pure(f, LISTS, LISTS))(m) == f(m) for m in SMALL_INPUTS)


@pytest.mark.spec("STREAM-PROP-3.26", evidence="property", part="1=>2")
@given(st.lists(inputs, min_size=1, max_size=3))
def test_homomorphism_has_stateless_processor(xs: list[tuple[int, ...]]) -> None:
    f = pure(lambda w: tuple(x + 1 for x in w), LISTS, LISTS, "inc")
    assert f.s_eps == "*" and f.o_eps == ()
    assert all(run(f)(m) == tuple(x + 1 for x in m) for m in xs)


@pytest.mark.spec("STREAM-PROP-3.26", evidence="exhaustive", part="2=>1")
def test_stateless_processor_is_homomorphism_exhaustive() -> None:
    """Every 1-state machine over {0, 1} with outputs [], [0], [1], [0, 1] and ε initial output:
    its semantics is a homomorphism (decided on inputs of length ≤ 3, pairs thereof)."""
    for sigma in all_mealy(1, (0, 1), ((), (0,), (1,), (0, 1))):
        assert check_homomorphism(run(sigma), LISTS, LISTS, SMALL_INPUTS)


@pytest.mark.spec("STREAM-PROP-3.26", evidence="example", part="2=>1")
def test_state_is_needed_for_prefix_sum() -> None:
    """The contrapositive on Example 3.15: prefix sum is not a homomorphism; its processors
    have non-trivial state (two states are reached)."""
    sigma = processor_of(prefix_sum())
    assert not check_homomorphism(run(sigma), free_monoid(), free_monoid(), [(1,), (2, 3)])
    assert sigma.f((1,))(()) != sigma.f((1,))((1,))


@pytest.mark.spec("STREAM-PROP-3.26", evidence="example", part="1=>2")
def test_pure_example() -> None:
    f = pure(lambda w: w + w, LISTS, LISTS, "twice")
    assert run(f)((1, 2)) == (1, 2, 1, 2) and f.f((1,))("*") == ("*", (1, 1))
