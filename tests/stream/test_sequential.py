"""§3.3 Sequential composition: the functor proposition, Example 3.29, associativity,
fusion, Corollaries 3.31 and 3.33, ``f_*`` (Proposition 3.35), exchange and Corollary 3.36."""

from __future__ import annotations

from collections.abc import Callable
from itertools import product as cartesian
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.algebra.monoid import check_homomorphism, free_monoid, state_monoid
from reference.streams.equivalence import check_equivalent, equal_processors
from reference.streams.functions import PS, decompose, prefix_sum, prefix_sum_compact
from reference.streams.preliminaries import monoids_of_order
from reference.streams.processors import Processor, check_processor, pure, run, s_after
from reference.streams.sequential import (
    compose,
    eval_,
    eval_g_star,
    exchange_target,
    f_star,
    fuse,
    seq,
)
from tests.stream.machines import LISTS, all_mealy, inputs, mealy_machines, words

WIDE = tuple(range(4))  # symbols a machine may emit, so that a second machine can read them
SMALL = words((0, 1), 2)
LetterMap = dict[int, tuple[int, ...]]
letter_maps = st.fixed_dictionaries({a: st.lists(st.sampled_from(WIDE), max_size=2).map(tuple) for a in WIDE})


def extend(table: LetterMap) -> Callable[[tuple[int, ...]], tuple[int, ...]]:
    """The homomorphism on lists defined on letters."""
    return lambda w: tuple(x for a in w for x in table[a])


def _then(f: Callable[[Any], Any], g: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda w: g(f(w))


def small_letter_maps() -> list[LetterMap]:
    images = [(), (0,), (1,)]
    return [{0: a, 1: b} for a in images for b in images]


ONE_STATE = list(all_mealy(1, (0, 1), ((), (0,), (1,), (0, 1))))
TWO_STATE = list(all_mealy(2, (0, 1), ((), (1,))))


# --- the functor proposition -------------------------------------------------


@pytest.mark.spec("STREAM-DEF-3.27", evidence="property")
@pytest.mark.spec("STREAM-PROP-3.27", evidence="property", part="identity")
@pytest.mark.spec("STREAM-PROP-3.27", evidence="property", part="composition")
@given(mealy_machines(alphabet=WIDE), mealy_machines(alphabet=WIDE), st.lists(st.sampled_from(WIDE), max_size=6))
def test_semantics_is_a_functor(sigma: Processor, tau: Processor, m: list[int]) -> None:
    w = tuple(m)
    assert run(pure(lambda x: x, LISTS, LISTS, "id"))(w) == w
    assert run(compose(sigma, tau))(w) == run(tau)(run(sigma)(w))


@pytest.mark.spec("STREAM-PROP-3.27", evidence="exhaustive", part="identity")
@pytest.mark.spec("STREAM-PROP-3.27", evidence="exhaustive", part="composition")
def test_semantics_is_a_functor_exhaustive() -> None:
    """σ: every 2-state machine emitting [] or [1]; τ: every 1-state machine; inputs ≤ 2."""
    ident = pure(lambda x: x, LISTS, LISTS, "id")
    assert all(run(ident)(w) == w for w in words((0, 1), 4))
    for sigma, tau in cartesian(TWO_STATE, ONE_STATE):
        composed = run(compose(sigma, tau))
        assert all(composed(w) == run(tau)(run(sigma)(w)) for w in SMALL)


# --- Example 3.29 and associativity ------------------------------------------


@pytest.mark.spec("STREAM-EX-3.29", evidence="example")
def test_example_3_29_equivalent_not_equal() -> None:
    generic, compact = decompose(prefix_sum()), prefix_sum_compact()
    xs = [(1, 2, 3), (-1, 4), (), (5, 5, 5, 5, 5, 5, 5, 5)]
    assert check_equivalent(generic, compact, xs)
    assert not equal_processors(generic, compact, xs, [()])
    assert generic.f((1,))(()) == ((1,), (1,)) and compact.f((1,))(0) == (1, (1,))
    assert run(compact)((1, 2, 3)) == PS((1, 2, 3))


@pytest.mark.spec("STREAM-COR-3.30", evidence="property")
@given(mealy_machines(alphabet=WIDE), mealy_machines(alphabet=WIDE), mealy_machines(alphabet=WIDE),
       st.lists(st.lists(st.sampled_from(WIDE), max_size=5).map(tuple), min_size=1, max_size=2))
def test_associativity_property(a: Processor, b: Processor, c: Processor, xs: list[tuple[int, ...]]) -> None:
    left, right = compose(compose(a, b), c), compose(a, compose(b, c))
    assert check_equivalent(left, right, xs)
    s, t = left.s_eps, right.s_eps
    assert s == ((a.s_eps, s[0][1]), s[1]) and t == (a.s_eps, (t[1][0], t[1][1]))  # (S×T)×U vs S×(T×U)


@pytest.mark.spec("STREAM-COR-3.30", evidence="exhaustive")
def test_associativity_exhaustive() -> None:
    """All triples of 1-state machines over {0, 1} (16³), inputs of length ≤ 2, all batchings."""
    for a, b, c in cartesian(ONE_STATE, repeat=3):
        assert check_equivalent(compose(compose(a, b), c), compose(a, compose(b, c)), SMALL)


# --- fusion (Proposition 3.30) and Corollary 3.31 ----------------------------


@pytest.mark.spec("STREAM-PROP-3.30", evidence="property")
@given(letter_maps, mealy_machines(alphabet=WIDE), st.lists(inputs, min_size=1, max_size=2))
def test_fusion_property(table: LetterMap, sigma: Processor, xs: list[tuple[int, ...]]) -> None:
    f = extend(table)
    assert check_equivalent(fuse(f, LISTS, sigma), seq(pure(f, LISTS, LISTS), sigma), xs)
    reachable = sorted({s_after(sigma, x[:i]) for x in xs for i in range(len(x) + 1)})
    assert check_processor(fuse(f, LISTS, sigma), xs, states=reachable)  # f ; g is a homomorphism


@pytest.mark.spec("STREAM-PROP-3.30", evidence="exhaustive")
def test_fusion_exhaustive() -> None:
    """Every letter map {0,1} → {[], [0], [1]} with every 2-state machine; inputs ≤ 2."""
    for table in small_letter_maps():
        f = extend(table)
        for sigma in TWO_STATE:
            assert check_equivalent(fuse(f, LISTS, sigma), compose(pure(f, LISTS, LISTS), sigma), SMALL)


@pytest.mark.spec("STREAM-COR-3.31", evidence="property")
@given(letter_maps, letter_maps, st.lists(st.lists(st.sampled_from(WIDE), max_size=5).map(tuple), min_size=1, max_size=2))
def test_pure_fusion_property(t1: LetterMap, t2: LetterMap, xs: list[tuple[int, ...]]) -> None:
    f, g = extend(t1), extend(t2)
    fg = pure(lambda w: g(f(w)), LISTS, LISTS, "f;g")
    assert check_equivalent(fg, compose(pure(f, LISTS, LISTS), pure(g, LISTS, LISTS)), xs)


@pytest.mark.spec("STREAM-COR-3.31", evidence="exhaustive")
def test_pure_fusion_exhaustive() -> None:
    for t1, t2 in cartesian(small_letter_maps(), repeat=2):
        f, g = extend(t1), extend(t2)
        fg = pure(_then(f, g), LISTS, LISTS, "f;g")
        assert check_equivalent(fg, compose(pure(f, LISTS, LISTS), pure(g, LISTS, LISTS)), words((0, 1), 3))


# --- Corollary 3.33 ----------------------------------------------------------


@pytest.mark.spec("STREAM-DEF-3.32", evidence="property")
@pytest.mark.spec("STREAM-COR-3.33", evidence="property")
@given(mealy_machines(), st.lists(inputs, min_size=1, max_size=2))
def test_pure_then_eval_property(sigma: Processor, xs: list[tuple[int, ...]]) -> None:
    hom = pure(sigma.f, sigma.M, state_monoid(sigma.N, (sigma.s_eps,)), "f")
    assert check_equivalent(sigma, compose(hom, eval_(sigma)), xs)


@pytest.mark.spec("STREAM-COR-3.33", evidence="exhaustive")
def test_pure_then_eval_exhaustive() -> None:
    for sigma in TWO_STATE:
        hom = pure(sigma.f, sigma.M, state_monoid(sigma.N, (sigma.s_eps,)), "f")
        assert check_equivalent(sigma, compose(hom, eval_(sigma)), SMALL)


# --- Proposition 3.35 --------------------------------------------------------


def _state_elements(size_s: int, size_m: int) -> list[Callable[[int], tuple[int, int]]]:
    cells = list(cartesian(range(size_s), range(size_m)))
    return [dict(enumerate(values)).__getitem__ for values in cartesian(cells, repeat=size_s)]


@pytest.mark.spec("STREAM-PROP-3.35", evidence="exhaustive", part="1=>2")
@pytest.mark.spec("STREAM-PROP-3.35", evidence="exhaustive", part="2=>1")
def test_f_star_iff_exhaustive() -> None:
    """All monoids M, N of order ≤ 3, all f : M → N, S = {0, 1}: f is a homomorphism iff
    f_* is (decided: State[S, M] has (2·|M|)² elements, compared on both states)."""
    finite = [(m, n) for n in (1, 2, 3) for m in monoids_of_order(n)]
    both = 0
    for (M, sm), (N, sn) in cartesian(finite, repeat=2):
        states = _state_elements(2, sm)
        for values in cartesian(range(sn), repeat=sm):
            f = dict(enumerate(values)).__getitem__
            hom = bool(check_homomorphism(f, M, N, list(range(sm)), decided=True))
            hom_star = bool(check_homomorphism(f_star(f), state_monoid(M, (0, 1)), state_monoid(N, (0, 1)),
                                               states, decided=True))
            assert hom == hom_star
            both += hom
    assert both > 10


@pytest.mark.spec("STREAM-PROP-3.35", evidence="property", part="1=>2")
@given(letter_maps, st.lists(st.dictionaries(st.sampled_from([0, 1]), st.tuples(
    st.sampled_from([0, 1]), st.lists(st.sampled_from(WIDE), max_size=2).map(tuple)), min_size=2, max_size=2),
    min_size=1, max_size=3))
@pytest.mark.spec("STREAM-DEF-3.34", evidence="property")
def test_f_star_of_homomorphism_property(table: LetterMap, alphas: list[dict[int, Any]]) -> None:
    S = state_monoid(LISTS, (0, 1))
    assert check_homomorphism(f_star(extend(table)), S, S, [a.__getitem__ for a in alphas])


@pytest.mark.spec("STREAM-PROP-3.35", evidence="example", part="2=>1")
def test_f_star_of_prefix_sum_is_not_a_homomorphism() -> None:
    """The proof's constant hypotheticals α = s ↦ (s, [1]), β = s ↦ (s, [2]) expose PS."""
    S = state_monoid(free_monoid(), (0,))
    alpha, beta = (lambda s: (s, (1,))), (lambda s: (s, (2,)))
    assert not check_homomorphism(f_star(PS), S, S, [alpha, beta])
    empty = state_monoid(free_monoid(), ())  # S = ∅: every f_* is a homomorphism (the unstated hypothesis)
    assert check_homomorphism(f_star(PS), empty, empty, [alpha, beta])


# --- exchange and Corollary 3.36 ---------------------------------------------


def _exchange_inputs(machine: Processor, ms: list[tuple[int, ...]]) -> list[Any]:
    return [machine.f(m) for m in ms]


@pytest.mark.spec("STREAM-THM-EXCHANGE", evidence="property")
@given(mealy_machines(alphabet=WIDE), letter_maps, st.lists(st.lists(st.sampled_from(WIDE), max_size=4).map(tuple),
                                                           min_size=1, max_size=3))
def test_exchange_property(machine: Processor, table: LetterMap, ms: list[tuple[int, ...]]) -> None:
    """σ = eval of a machine (any initial output), g a letter map: σ ; pure g ∼ pure g_* ; τ
    on the hypotheticals the machine produces."""
    sigma, g = eval_(machine), extend(table)
    tau = exchange_target(sigma, g, LISTS)
    lhs = compose(sigma, pure(g, LISTS, LISTS, "g"))
    rhs = compose(pure(f_star(g), sigma.M, tau.M, "g*"), tau)
    assert check_equivalent(lhs, rhs, _exchange_inputs(machine, ms))


@pytest.mark.spec("STREAM-THM-EXCHANGE", evidence="exhaustive")
def test_exchange_exhaustive() -> None:
    for machine in TWO_STATE:
        sigma = eval_(machine)
        for table in small_letter_maps():
            g = extend(table)
            tau = exchange_target(sigma, g, LISTS)
            lhs = compose(sigma, pure(g, LISTS, LISTS, "g"))
            rhs = compose(pure(f_star(g), sigma.M, tau.M, "g*"), tau)
            assert check_equivalent(lhs, rhs, _exchange_inputs(machine, SMALL))


@pytest.mark.spec("STREAM-COR-3.36", evidence="property")
@given(mealy_machines(alphabet=WIDE, initial_output=False), letter_maps,
       st.lists(st.lists(st.sampled_from(WIDE), max_size=4).map(tuple), min_size=1, max_size=3))
def test_eval_exchange_property(machine: Processor, table: LetterMap, ms: list[tuple[int, ...]]) -> None:
    g = extend(table)
    lhs = seq(pure(machine.f, LISTS, state_monoid(LISTS, (machine.s_eps,))), eval_(machine), pure(g, LISTS, LISTS))
    states = state_monoid(LISTS, (machine.s_eps,))
    rhs = seq(pure(machine.f, LISTS, states), pure(f_star(g), states, states), eval_g_star(machine, LISTS, "g"))
    assert check_equivalent(lhs, rhs, ms)


@pytest.mark.spec("STREAM-COR-3.36", evidence="exhaustive")
def test_eval_exchange_exhaustive() -> None:
    for machine in TWO_STATE:
        for table in small_letter_maps():
            g = extend(table)
            head = pure(machine.f, LISTS, state_monoid(LISTS, (machine.s_eps,)))
            lhs = seq(head, eval_(machine), pure(g, LISTS, LISTS))
            rhs = seq(head, pure(f_star(g), head.N, head.N), eval_g_star(machine, LISTS, "g"))
            assert check_equivalent(lhs, rhs, SMALL)


@pytest.mark.spec("STREAM-COR-3.36", evidence="example")
def test_eval_exchange_needs_empty_initial_output() -> None:
    """With o_ε ≠ ε, eval_{g_*} σ drops g(o_ε): Corollary 3.36's hypothesis matters."""
    machine = all_mealy(1, (0, 1), ((),)).__next__()
    machine = Processor(machine.f, machine.s_eps, (1,), machine.M, machine.N, "μ")
    g = extend({0: (0,), 1: (1,)})
    head = pure(machine.f, LISTS, state_monoid(LISTS, (machine.s_eps,)))
    lhs = seq(head, eval_(machine), pure(g, LISTS, LISTS))
    rhs = seq(head, pure(f_star(g), head.N, head.N), eval_g_star(machine, LISTS, "g"))
    verdict = check_equivalent(lhs, rhs, [()])
    assert not verdict
