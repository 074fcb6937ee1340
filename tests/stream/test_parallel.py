"""§3.5 Parallel composition: products, merge, splitters, Proposition 3.45, Pairs."""

from __future__ import annotations

from itertools import product as cartesian
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.algebra.monoid import (
    bag_tensor,
    bags,
    check_homomorphism,
    cyclic,
    direct_product,
    free_monoid,
    permutations3,
    set_tensor,
    zset_tensor,
)
from reference.algebra.multiset import Multiset
from reference.algebra.zset import ZSet
from reference.streams.equivalence import check_batching_invariant, check_equivalent
from reference.streams.functions import check_stream_function, prefix_sum
from reference.streams.parallel import (
    check_splitter,
    merge,
    pairs,
    pairs_function,
    parallel_pure,
    product,
    product_fn,
    product_stream_function,
)
from reference.streams.preliminaries import monoids_of_order
from reference.streams.processors import Processor, pure, run
from reference.streams.ticks import list_stratified_difference
from tests.stream.machines import LISTS, all_mealy, inputs, mealy_machines, words

B = bags()
BB = direct_product(B, B)
small_bags = st.lists(st.integers(0, 5), max_size=5).map(Multiset.from_iterable)
bag_pairs = st.tuples(small_bags, small_bags)


def double(m: Multiset) -> Multiset:
    return Multiset.from_iterable(2 * x for x in m.elements())


def parity_split() -> Processor:
    """The stateless splitter of Remark 3.44: evens left, odds right."""
    return pure(lambda m: (Multiset.from_iterable(x for x in m.elements() if x % 2 == 0),
                           Multiset.from_iterable(x for x in m.elements() if x % 2 == 1)), B, BB, "split")


def round_robin_split() -> Processor:
    """The stateful splitter of Remark 3.44 (lists, alternating outputs)."""
    L = free_monoid()
    LL = direct_product(L, L)

    def f(m: tuple[int, ...]) -> Any:
        def step(turn: int) -> tuple[int, tuple[tuple[int, ...], tuple[int, ...]]]:
            left = tuple(x for i, x in enumerate(m) if (turn + i) % 2 == 0)
            right = tuple(x for i, x in enumerate(m) if (turn + i) % 2 == 1)
            return ((turn + len(m)) % 2, (left, right))
        return step

    return Processor(f, 0, ((), ()), L, LL, "round-robin")


@pytest.mark.spec("STREAM-REM-3.39", evidence="example")
def test_remark_3_39_generators_commute() -> None:
    """(m, ε)(ε, n) = (ε, n)(m, ε) although neither List nor S3 is commutative."""
    M, N = free_monoid(), permutations3()
    MN = direct_product(M, N)
    for m, n in cartesian([(1,), (1, 2)], [(1, 0, 2), (0, 2, 1)]):
        x, y = (m, N.identity), (M.identity, n)
        assert MN.op(x, y) == MN.op(y, x) == (m, n)


# --- the three propositions after Definition 3.40 ----------------------------


def _finite_homs() -> list[tuple[Any, Any, int, int, dict[int, int]]]:
    finite = [(m, n) for n in (1, 2, 3) for m in monoids_of_order(n)]
    out = []
    for (M, sm), (N, sn) in cartesian(finite, repeat=2):
        for values in cartesian(range(sn), repeat=sm):
            f = dict(enumerate(values))
            if check_homomorphism(f.__getitem__, M, N, list(range(sm)), decided=True):
                out.append((M, N, sm, sn, f))
    return out


@pytest.mark.spec("STREAM-PROP-3.40-WD", evidence="exhaustive")
@pytest.mark.spec("STREAM-PROP-3.40-HOM", evidence="exhaustive")
def test_product_of_homomorphisms_exhaustive() -> None:
    """f × g for every pair of homomorphisms between monoids of order ≤ 2 (decided), and the
    relation-respecting equation on all (m1, n1), (m2, n2)."""
    homs = [h for h in _finite_homs() if h[2] <= 2]
    for (M, N, sm, _, f), (P, Q, sp, _, g) in cartesian(homs, repeat=2):
        fg = product_fn(f.__getitem__, g.__getitem__)
        carrier = list(cartesian(range(sm), range(sp)))
        assert check_homomorphism(fg, direct_product(M, P), direct_product(N, Q), carrier, decided=True)


@pytest.mark.spec("STREAM-DEF-3.40", evidence="property")
@pytest.mark.spec("STREAM-PROP-3.40-WD", evidence="property")
@pytest.mark.spec("STREAM-PROP-3.40-HOM", evidence="property")
@given(st.lists(st.tuples(inputs, small_bags), min_size=1, max_size=3))
def test_product_of_homomorphisms_property(xs: list[tuple[tuple[int, ...], Multiset]]) -> None:
    f = lambda w: tuple(x + 1 for x in w)  # noqa: E731
    fg = product_fn(f, double)
    assert check_homomorphism(fg, direct_product(LISTS, B), direct_product(LISTS, B), xs)


@pytest.mark.spec("STREAM-PROP-3.40-SF", evidence="property")
@given(st.lists(st.tuples(st.lists(st.integers(-3, 3), max_size=3).map(tuple),
                          st.lists(st.tuples(st.frozensets(st.integers(0, 2), max_size=2),
                                             st.frozensets(st.integers(0, 2), max_size=2)), max_size=2).map(tuple)),
                min_size=1, max_size=3))
def test_product_of_stream_functions_property(xs: list[Any]) -> None:
    """Prefix sum × the list stratified difference (Proposition 3.56)."""
    assert check_stream_function(product_stream_function(prefix_sum(), list_stratified_difference()), xs)


@pytest.mark.spec("STREAM-PROP-3.40-SF", evidence="exhaustive")
def test_product_of_stream_functions_exhaustive() -> None:
    """⟦σ⟧ × ⟦τ⟧ for every 1-state machine and the first 16 2-state machines (emitting [] or [1]),
    inputs of length ≤ 1 per side."""
    from reference.streams.processors import stream_function_of

    one = list(all_mealy(1, (0, 1), ((), (1,))))
    two = list(all_mealy(2, (0, 1), ((), (1,))))[:16]
    pairs_ = [(w, v) for w in words((0, 1), 1) for v in words((0, 1), 1)]
    for s, t in cartesian(one, two):
        assert check_stream_function(product_stream_function(stream_function_of(s), stream_function_of(t)), pairs_)


# --- Proposition 3.41 --------------------------------------------------------


@pytest.mark.spec("STREAM-DEF-3.41", evidence="property")
@pytest.mark.spec("STREAM-PROP-3.41", evidence="property")
@given(mealy_machines(), mealy_machines(), inputs, inputs)
def test_product_processor_semantics(sigma: Processor, tau: Processor, m: tuple[int, ...], n: tuple[int, ...]) -> None:
    assert run(product(sigma, tau))((m, n)) == (run(sigma)(m), run(tau)(n))


@pytest.mark.spec("STREAM-PROP-3.41", evidence="exhaustive")
def test_product_processor_semantics_exhaustive() -> None:
    """All pairs of 2-state machines emitting [] or [1] (the first 64 × 64), inputs ≤ 1 per side,
    every batching of the pair."""
    two = list(all_mealy(2, (0, 1), ((), (1,))))[:64]
    xs = [(w, v) for w in words((0, 1), 1) for v in words((0, 1), 2)]
    for sigma, tau in cartesian(two, repeat=2):
        prod = product(sigma, tau)
        assert all(run(prod)(x) == (run(sigma)(x[0]), run(tau)(x[1])) for x in xs)


# --- merge, splitters, Proposition 3.45 --------------------------------------


@pytest.mark.spec("STREAM-PROP-3.43", evidence="exhaustive")
def test_merge_is_a_homomorphism_exhaustive() -> None:
    """Decided on Z_1..Z_5 and every commutative monoid of order ≤ 3; on S3 (not commutative)
    it fails, as the definition's hypothesis says."""
    for k in range(1, 6):
        Z = cyclic(k)
        assert check_homomorphism(merge(Z), direct_product(Z, Z), Z, list(cartesian(range(k), repeat=2)), decided=True)
    for n in (1, 2, 3):
        for M in monoids_of_order(n):
            if all(M.op(a, b) == M.op(b, a) for a in range(n) for b in range(n)):
                assert check_homomorphism(merge(M), direct_product(M, M), M,
                                          list(cartesian(range(n), repeat=2)), decided=True)
    s3 = permutations3()
    a, b = (1, 0, 2), (0, 2, 1)
    assert not check_homomorphism(merge(s3), direct_product(s3, s3), s3, [(a, s3.identity), (s3.identity, b)])


@pytest.mark.spec("STREAM-DEF-3.42", evidence="property")
@pytest.mark.spec("STREAM-PROP-3.43", evidence="property")
@given(st.lists(bag_pairs, min_size=1, max_size=4))
def test_merge_is_a_homomorphism_on_bags(xs: list[tuple[Multiset, Multiset]]) -> None:
    assert check_homomorphism(merge(B), BB, B, xs)


@pytest.mark.spec("STREAM-DEF-3.44", evidence="example")
@pytest.mark.spec("STREAM-REM-3.44", evidence="example")
def test_splitters() -> None:
    """Definition 3.44 and Remark 3.44: the parity splitter is a (stateless) splitter; a lossy
    one is rejected; the round-robin processor of the remark is stateful, its semantics is not
    a homomorphism, and on List[N] it is *not* a splitter: merge (concatenation) reorders, and
    merge needs a commutative monoid (Definition 3.42), which lists are not."""
    xs = [Multiset.of(1, 2, 3, 4), Multiset(), Multiset.of(5, 5)]
    assert check_splitter(parity_split(), xs)
    lossy = pure(lambda m: (m, Multiset()) if len(m) < 3 else (Multiset(), Multiset()), B, BB, "lossy")
    assert not check_splitter(lossy, xs)
    rr, L = round_robin_split(), free_monoid()
    assert run(rr)((1, 2, 3)) == ((1, 3), (2,))
    assert not check_homomorphism(run(rr), L, direct_product(L, L), [(1,), (2,)])
    verdict = check_splitter(rr, [(1, 2, 3)])
    assert not verdict and verdict.counterexample is not None
    assert verdict.counterexample["sigma_out"] == (1, 3, 2)


@pytest.mark.spec("STREAM-PROP-3.45", evidence="property")
@given(st.lists(small_bags, min_size=1, max_size=2))
def test_parallel_pure_property(xs: list[Multiset]) -> None:
    assert check_equivalent(pure(double, B, B, "double"), parallel_pure(parity_split(), double, "double"), xs)


@pytest.mark.spec("STREAM-PROP-3.45", evidence="exhaustive")
def test_parallel_pure_exhaustive() -> None:
    """Every bag over {0, 1, 2} with at most 4 elements, every batching; f ranges over the maps
    x ↦ c·x for c ∈ {0, 1, 2} (lifted to bags)."""
    xs = [Multiset.from_iterable(w) for n in range(5) for w in cartesian(range(3), repeat=n)]
    for c in range(3):
        f = lambda m, c=c: Multiset.from_iterable(c * x for x in m.elements())  # noqa: E731
        assert check_equivalent(pure(f, B, B), parallel_pure(parity_split(), f), xs)


# --- Pairs (Proposition 3.48) ------------------------------------------------


@pytest.mark.spec("STREAM-PROP-3.48", evidence="example", part="not-hom")
def test_pairs_is_not_a_homomorphism() -> None:
    t = bag_tensor()
    m1, n1 = Multiset.of(1), Multiset.of(2)
    F = pairs_function(t).F
    assert F((m1, n1)) == Multiset.of((1, 2)) != Multiset() == F((m1, Multiset())) | F((Multiset(), n1))


@pytest.mark.spec("STREAM-PROP-3.48", evidence="exhaustive", part="not-hom")
@pytest.mark.spec("STREAM-PROP-3.48", evidence="exhaustive", part="stream-function")
def test_pairs_exhaustive() -> None:
    """Sets over {0, 1} (P ⊗ P): Pairs is not a homomorphism, and (1), (2a), (2b) hold for
    every p, a, b ∈ P({0,1})² (decided)."""
    t = set_tensor()
    subsets = [frozenset(s) for s in ([], [0], [1], [0, 1])]
    carrier = list(cartesian(subsets, repeat=2))
    sf = pairs_function(t)
    assert not check_homomorphism(sf.F, sf.M, sf.N, carrier, decided=True)
    assert check_stream_function(sf, carrier, decided=True)


@pytest.mark.spec("STREAM-PROP-3.48", evidence="property", part="stream-function")
@given(st.lists(bag_pairs, min_size=1, max_size=3),
       st.lists(st.tuples(st.dictionaries(st.integers(0, 2), st.integers(-2, 2), max_size=2).map(ZSet),
                          st.dictionaries(st.integers(0, 2), st.integers(-2, 2), max_size=2).map(ZSet)),
                min_size=1, max_size=3))
def test_pairs_stream_function_property(bb: list[Any], zz: list[Any]) -> None:
    assert check_stream_function(pairs_function(bag_tensor()), bb)
    assert check_stream_function(pairs_function(zset_tensor()), zz)


@pytest.mark.spec("STREAM-DEF-3.49", evidence="property")
@given(st.lists(bag_pairs, min_size=1, max_size=2))
def test_pairs_processor_implements_pairs(xs: list[tuple[Multiset, Multiset]]) -> None:
    """Definition 3.49: ⟦pairs⟧ = Pairs (the compact processor of §2), on every batching."""
    t = bag_tensor()
    p = pairs(t)
    for x in xs:
        assert run(p)(x) == pairs_function(t).F(x)
    assert check_batching_invariant(p, xs)


@pytest.mark.spec("STREAM-PROP-3.48", evidence="example", part="not-hom")
def test_pairs_is_a_homomorphism_on_a_trivial_tensor() -> None:
    """The unstated hypothesis of 'not a homomorphism': with M trivial (bags over no elements)
    every m ⊗ n is ε and Pairs is the zero map, a homomorphism."""
    sf = pairs_function(bag_tensor())
    carrier = [(Multiset(), Multiset.from_iterable(w)) for w in ([], [1], [1, 2], [2, 2])]
    assert check_homomorphism(sf.F, sf.M, sf.N, carrier)
