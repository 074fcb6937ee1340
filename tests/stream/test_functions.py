"""§3.1 Stream functions: Definition 3.13, the two propositions deriving (2) from (1),
Examples 3.14-3.15 and Theorem 3.18."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import product as cartesian

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.algebra.monoid import (
    Monoid,
    booleans,
    check_homomorphism,
    check_idempotent,
    check_left_cancellative,
    cyclic,
    free_monoid,
    powerset,
    zset_tensor,
)
from reference.algebra.zset import ZSet
from reference.streams.finite import (
    check_left_cancellative_proposition,
    solutions_of_1,
    stream_update,
)
from reference.streams.functions import (
    PS,
    StreamFunction,
    check_condition_1,
    check_condition_2a,
    check_condition_2b,
    check_stream_function,
    decompose,
    delta_PS,
    homomorphism_as_stream_function,
    prefix_sum,
    prefix_sum_compact,
    update_for_idempotent,
    update_for_left_cancellative,
)
from reference.streams.parallel import pairs_function
from reference.streams.preliminaries import (
    has_trivial_units,
    monoids_of_order,
    right_zero_band,
    table_monoid,
)
from reference.streams.processors import check_processor, run

int_lists = st.lists(st.integers(-4, 4), max_size=4).map(tuple)

FINITE = [(m, n) for n in (1, 2, 3) for m in monoids_of_order(n)]


def _functions(size_m: int, size_n: int) -> Iterator[dict[int, int]]:
    for values in cartesian(range(size_n), repeat=size_m):
        yield dict(enumerate(values))


def _solutions(F: dict[int, int], M: Monoid[int], N: Monoid[int], sm: int, sn: int) -> dict[tuple[int, int], list[int]]:  # noqa: N803
    """Per (p, a): every x with F(p)·x = F(pa) (condition (1))."""
    return {(p, a): [x for x in range(sn) if N.op(F[p], x) == F[M.op(p, a)]] for p in range(sm) for a in range(sm)}


def _all_updates(sol: dict[tuple[int, int], list[int]], limit: int = 5000) -> Iterator[dict[tuple[int, int], int]]:
    cells = list(sol)
    for n, picks in enumerate(cartesian(*(sol[c] for c in cells))):
        if n >= limit:
            return
        yield dict(zip(cells, picks, strict=True))


def _sf(F: dict[int, int], dF: dict[tuple[int, int], int], M: Monoid[int], N: Monoid[int]) -> StreamFunction:  # noqa: N803
    return StreamFunction(F.__getitem__, lambda p, a: dF[(p, a)], M, N)


# --- Definition 3.13 ---------------------------------------------------------


@pytest.mark.spec("STREAM-DEF-3.13", evidence="example")
def test_condition_checkers_find_each_failure() -> None:
    lists = free_monoid()
    ok = prefix_sum()
    xs = [(), (1,), (2, 3)]
    assert check_stream_function(ok, xs)
    no_1 = StreamFunction(PS, lambda p, a: PS(a), lists, lists)  # forgets the running sum
    assert check_condition_1(no_1, xs).counterexample == {
        "condition": "(1)", "p": (1,), "a": (1,), "lhs": (1, 2), "rhs": (1, 1)}
    no_2a = StreamFunction(lambda xs: frozenset(xs), lambda p, a: frozenset(p) | frozenset(a), lists, powerset())
    assert check_condition_1(no_2a, xs) and not check_condition_2a(no_2a, [(1,)])
    no_2b = StreamFunction(lambda xs: frozenset(xs), lambda p, a: frozenset(a) if len(a) < 2 else frozenset(p + a),
                           lists, powerset())
    assert check_condition_1(no_2b, xs) and check_condition_2a(no_2b, xs)
    assert not check_condition_2b(no_2b, [(1,), (2,)])


# --- the left-cancellative proposition ---------------------------------------


@pytest.mark.spec("STREAM-PROP-3.13-LC", evidence="exhaustive")
def test_left_cancellative_proposition_refuted_exhaustively() -> None:
    """The literal reading (Im(F) a left-cancellative monoid with its own identity) fails on
    Z_2 → {ε} ∪ Z_2; the search over all monoids of order ≤ 3 finds it, and it is replayed."""
    verdict = check_left_cancellative_proposition(FINITE, submonoid=False)
    assert not verdict and verdict.counterexample is not None
    assert verdict.counterexample["F"] == {0: 1, 1: 2}
    M = cyclic(2)
    N = table_monoid("ε+Z2", ((0, 1, 2), (1, 1, 2), (2, 2, 1)))
    F = {0: 1, 1: 2}
    assert check_left_cancellative(N, [1, 2], decided=True)  # Im(F) = {e, g} ≅ Z_2
    assert all(xs for xs in solutions_of_1(F, (M, 2), (N, 3)).values())  # (1) is satisfiable
    assert stream_update(F, (M, 2), (N, 3)) is None  # (1) and (2) are not


@pytest.mark.spec("STREAM-CLAIM-3.13-LC-SUBMONOID", evidence="exhaustive")
def test_left_cancellative_submonoid_reading_exhaustive() -> None:
    verdict = check_left_cancellative_proposition(FINITE, submonoid=True)
    assert verdict.holds and verdict.cases == 472


@pytest.mark.spec("STREAM-DEC-LC-CANCELLABLE", evidence="exhaustive")
def test_left_cancellative_exhaustive() -> None:
    """All monoids M of order ≤ 3, all left-cancellative N of order ≤ 3 (the finite ones
    are the groups), all F : M → N and the (unique) ΔF satisfying (1): (2) holds."""
    checked = 0
    for (M, sm), (N, sn) in cartesian(FINITE, repeat=2):
        if not check_left_cancellative(N, list(range(sn)), decided=True):
            continue
        for F in _functions(sm, sn):
            sol = _solutions(F, M, N, sm, sn)
            if any(not xs for xs in sol.values()):
                continue
            for dF in _all_updates(sol):
                sf = update_for_left_cancellative(_sf(F, dF, M, N))
                assert check_condition_2a(sf, list(range(sm)), decided=True)
                assert check_condition_2b(sf, list(range(sm)), decided=True)
                checked += 1
    assert checked > 100


@pytest.mark.spec("STREAM-DEC-LC-CANCELLABLE", evidence="property")
@given(st.lists(int_lists, min_size=1, max_size=3),
       st.lists(st.tuples(st.dictionaries(st.integers(0, 2), st.integers(-2, 2), max_size=2).map(ZSet),
                          st.dictionaries(st.integers(0, 2), st.integers(-2, 2), max_size=2).map(ZSet)),
                min_size=1, max_size=3))
def test_left_cancellative_property(xs: list[tuple[int, ...]], zz: list[tuple[ZSet, ZSet]]) -> None:
    """Prefix sum into lists and Pairs into Z-sets (both left-cancellative): ΔF
    satisfying (1) satisfies (2)."""
    ps = update_for_left_cancellative(prefix_sum())
    assert check_condition_1(ps, xs) and check_condition_2a(ps, xs) and check_condition_2b(ps, xs)
    pz = update_for_left_cancellative(pairs_function(zset_tensor()))
    assert check_condition_1(pz, zz) and check_condition_2a(pz, zz) and check_condition_2b(pz, zz)


@pytest.mark.spec("STREAM-PROP-3.13-LC", evidence="example")
def test_left_cancellative_needs_cancellation_in_N() -> None:
    """The unstated hypothesis: Im(F) = {⊤} ⊆ B is a (trivial) left-cancellative monoid, ΔF ≡ ⊤
    satisfies (1), and the proof's conclusion fails for that ΔF ((2a): ΔF(p, ε) = ⊤).
    The statement survives here (ΔF ≡ ⊥ works)."""
    lists, B = free_monoid(), booleans()
    top = StreamFunction(lambda p: True, lambda p, a: True, lists, B)
    xs = [(), (1,), (1, 2)]
    assert check_condition_1(top, xs)
    failure = check_condition_2a(update_for_left_cancellative(top), xs)
    assert not failure and failure.counterexample == {"condition": "(2a)", "p": (), "got": True}
    assert check_stream_function(StreamFunction(lambda p: True, lambda p, a: False, lists, B), xs)


# --- the idempotent proposition ----------------------------------------------


def _z2_to_band() -> tuple[Monoid[int], Monoid[int], dict[int, int]]:
    return cyclic(2), right_zero_band(), {0: 1, 1: 2}


@pytest.mark.spec("STREAM-PROP-3.13-IDEM", evidence="exhaustive")
def test_idempotent_proposition_refuted_exhaustively() -> None:
    """M = Z_2, N = right-zero band {ε, e1, e2}, F(0) = e1, F(1) = e2: Im(F) ∪ {ε} is
    idempotent, some ΔF satisfies (1), and *none* of the 3^4 functions ΔF satisfies (1) and (2)."""
    M, N, F = _z2_to_band()
    assert check_idempotent(N, [0, 1, 2], decided=True)
    cells = [(p, a) for p in range(2) for a in range(2)]
    with_1 = with_all = 0
    for values in cartesian(range(3), repeat=4):
        sf = _sf(F, dict(zip(cells, values, strict=True)), M, N)
        if check_condition_1(sf, [0, 1], decided=True):
            with_1 += 1
            if check_stream_function(sf, [0, 1], decided=True):
                with_all += 1
    assert with_1 > 0 and with_all == 0


@pytest.mark.spec("STREAM-PROP-3.13-IDEM", evidence="example")
def test_idempotent_construction_fails_on_a_group() -> None:
    """The proof's ΔF' on the same F: (2b) fails at p = 0, a = b = 1 (ab = ε with a, b ≠ ε)."""
    M, N, F = _z2_to_band()
    sf = _sf(F, {(p, a): F[(p + a) % 2] for p in range(2) for a in range(2)}, M, N)
    assert check_condition_1(sf, [0, 1], decided=True)
    verdict = check_condition_2b(update_for_idempotent(sf), [0, 1], decided=True)
    assert not verdict
    assert verdict.counterexample is not None
    assert (verdict.counterexample["a"], verdict.counterexample["b"]) == (1, 1)


@pytest.mark.spec("STREAM-DEC-IDEM-UNITS", evidence="exhaustive")
def test_idempotent_construction_with_trivial_units_exhaustive() -> None:
    """All M of order ≤ 3 with trivial units, all idempotent N of order ≤ 3, all F and all ΔF
    satisfying (1) (the first 300 per F in a fixed enumeration order): ΔF' satisfies
    (1), (2a), (2b)."""
    checked = 0
    for (M, sm), (N, sn) in cartesian(FINITE, repeat=2):
        if not has_trivial_units(M, range(sm)) or not check_idempotent(N, list(range(sn)), decided=True):
            continue
        for F in _functions(sm, sn):
            sol = _solutions(F, M, N, sm, sn)
            if any(not xs for xs in sol.values()):
                continue
            for dF in _all_updates(sol, limit=300):
                assert check_stream_function(update_for_idempotent(_sf(F, dF, M, N)), list(range(sm)), decided=True)
                checked += 1
    assert checked > 100


@pytest.mark.spec("STREAM-DEC-IDEM-UNITS", evidence="property")
@given(st.lists(int_lists, min_size=1, max_size=3))
def test_idempotent_construction_on_lists(xs: list[tuple[int, ...]]) -> None:
    """F(xs) = the set of prefix sums (monotone), with the irregular update ΔF(p, a) = F(pa):
    (1) holds, (2a) fails, and the construction repairs it."""
    lists, P = free_monoid(), powerset()
    F = StreamFunction(lambda w: frozenset(PS(w)), lambda p, a: frozenset(PS(p + a)), lists, P)
    assert check_condition_1(F, xs)
    repaired = update_for_idempotent(F)
    assert check_stream_function(repaired, xs)


# --- Examples 3.14, 3.15 -----------------------------------------------------


@pytest.mark.spec("STREAM-EX-3.14", evidence="property")
@given(st.lists(int_lists, min_size=1, max_size=3))
def test_example_3_14(xs: list[tuple[int, ...]]) -> None:
    """A homomorphism (List[f] with f(x) = 2x) is a stream function with Δf(p, b) = f(b)."""
    lists = free_monoid()
    f = homomorphism_as_stream_function(lambda w: tuple(2 * x for x in w), lists, lists)
    assert check_stream_function(f, xs)


@pytest.mark.spec("STREAM-EX-3.15", evidence="example")
def test_example_3_15() -> None:
    assert PS((1, 2, 3)) == (1, 3, 6)
    assert PS((1,)) + PS((2, 3)) == (1, 2, 5) != PS((1, 2, 3))
    assert delta_PS((1,), (2, 3)) == (3, 6)
    assert not check_homomorphism(PS, free_monoid(), free_monoid(), [(1,), (2, 3)])
    assert check_stream_function(prefix_sum(), [(), (1,), (2, 3), (-1, 4, 0)])


# --- Theorem 3.18 ------------------------------------------------------------


@pytest.mark.spec("STREAM-THM-3.18", evidence="example")
def test_decomposition_worked_example() -> None:
    """The paper's decomposition of prefix sum with S = Z."""
    sigma = prefix_sum_compact()
    for s in (0, 10):
        assert sigma.f((1,))(s) == (s + 1, (s + 1,))
        assert sigma.f((2, 3))(s) == (s + 5, (s + 2, s + 5))
        assert sigma.f((1, 2, 3))(s) == (s + 6, (s + 1, s + 3, s + 6))
    assert sigma.o_eps + sigma.f((1, 2, 3))(sigma.s_eps)[1] == (1, 3, 6)


@pytest.mark.spec("STREAM-THM-3.18", evidence="property")
@given(st.lists(int_lists, min_size=1, max_size=3), int_lists)
def test_decomposition_property(xs: list[tuple[int, ...]], m: tuple[int, ...]) -> None:
    """The generic construction: f is a homomorphism into State[M, N] (compared on the
    states ``xs``) and F(m) = o_ε · out(f(m)(s_ε))."""
    sf = prefix_sum()
    sigma = decompose(sf)
    assert check_processor(sigma, xs, states=xs)
    assert run(sigma)(m) == PS(m)


@pytest.mark.spec("STREAM-THM-3.18", evidence="example")
def test_decomposition_of_pairs() -> None:
    """The generic construction on Pairs into Z-sets (a commutative, non-free monoid):
    f is a homomorphism into State[M, N], and run gives Pairs of the product, by hand:
    Pairs(({0}, {1:2}) · ({1:-1}, ∅)) = ({0} + {1:-1}) ⊗ {1:2} = {(0,1):2, (1,1):-2}."""
    zz = [(ZSet({0: 1}), ZSet({1: 2})), (ZSet({1: -1}), ZSet())]
    pz = decompose(pairs_function(zset_tensor()))
    assert check_processor(pz, zz, states=zz)
    both = pz.M.op(zz[0], zz[1])
    assert run(pz)(both) == ZSet({(0, 1): 2, (1, 1): -2})


@pytest.mark.spec("STREAM-THM-3.18", evidence="exhaustive")
@pytest.mark.spec("STREAM-THM-3.22", evidence="exhaustive")
def test_decomposition_exhaustive() -> None:
    """Every stream function (F, ΔF) between monoids of order ≤ 3 (ΔF: the first 200 per F):
    f is a homomorphism into State[M, N] (decided on all states) and run = F."""
    checked = 0
    for (M, sm), (N, sn) in cartesian(FINITE, repeat=2):
        carrier = list(range(sm))
        for F in _functions(sm, sn):
            sol = _solutions(F, M, N, sm, sn)
            if any(not xs for xs in sol.values()):
                continue
            for dF in _all_updates(sol, limit=200):
                sf = _sf(F, dF, M, N)
                if not check_stream_function(sf, carrier, decided=True):
                    continue
                sigma = decompose(sf)
                assert check_processor(sigma, carrier, states=carrier)
                assert all(run(sigma)(m) == F[m] for m in carrier)
                checked += 1
    assert checked > 100


