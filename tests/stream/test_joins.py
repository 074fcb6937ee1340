"""§2 and §3.6: independent inputs, the partitioning lemma, Theorem 3.51 and the whole
optimisation of §2 replayed step by step."""

from __future__ import annotations

from itertools import combinations_with_replacement
from itertools import product as cartesian
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.algebra.monoid import bag_tensor, check_homomorphism, direct_product, set_tensor
from reference.algebra.multiset import Multiset
from reference.streams.equivalence import check_equivalent
from reference.streams.joins import (
    check_hash_hypothesis,
    check_independent_images,
    filter_,
    independent,
    join,
    k_partitioned_join,
    lemma_sides,
    optimisation_derivation,
    partitioned_join,
    split,
)
from reference.streams.processors import pure, run
from reference.streams.rewriting import check_derivation

T = bag_tensor()
MN = direct_product(T.left, T.right)
pred = lambda a, b: a[1] == b[0]  # noqa: E731  E(x, y) ∧ E(y, z)
hash_left = lambda e: e[1] % 2  # noqa: E731  E_{-,i}: target parity
hash_right = lambda e: e[0] % 2  # noqa: E731  E_{i,-}: source parity

edges = st.tuples(st.integers(0, 3), st.integers(0, 3))
edge_bags = st.lists(edges, max_size=4).map(Multiset.from_iterable)
inputs = st.tuples(edge_bags, edge_bags)


def split_processor(hash_a: Any = hash_left, hash_b: Any = hash_right) -> Any:
    return pure(split(T, hash_a, hash_b), MN, direct_product(MN, MN), "split")


@pytest.mark.spec("STREAM-DEF-3.50", evidence="example")
def test_independent_inputs_definition() -> None:
    j = join(T, pred)
    a = (Multiset.of((1, 2)), Multiset.of((2, 3)))  # parity 0 side
    b = (Multiset.of((1, 3)), Multiset.of((3, 1)))  # parity 1 side
    assert independent(j, a, b)
    c = (Multiset.of((7, 2)), Multiset())  # joins with a's right edge (2, 3)
    assert not independent(j, a, c)


@pytest.mark.spec("STREAM-LEM-3.6", evidence="property")
@given(st.lists(inputs, min_size=1, max_size=2))
def test_partition_lemma_property(xs: list[Any]) -> None:
    tau, sigma = split_processor(), join(T, pred)
    assert check_independent_images(tau, sigma, xs)
    lhs, rhs = lemma_sides(tau, sigma)
    assert check_equivalent(lhs, rhs, xs)


@pytest.mark.spec("STREAM-LEM-3.6", evidence="example")
def test_partition_lemma_needs_independence() -> None:
    """A split that ignores the join key breaks independence, and the conclusion with it."""
    tau, sigma = split_processor(lambda e: e[0] % 2, lambda e: e[1] % 2), join(T, pred)
    x = (Multiset.of((0, 1)), Multiset.of((1, 5)))  # partitions 0 and 1, but they join
    assert not check_independent_images(tau, sigma, [x])
    lhs, rhs = lemma_sides(tau, sigma)
    verdict = check_equivalent(lhs, rhs, [x])
    assert not verdict
    assert run(lhs)(x) == Multiset.of(((0, 1), (1, 5))) and run(rhs)(x) == Multiset()


@pytest.mark.spec("STREAM-THM-3.51", evidence="property")
@given(st.lists(inputs, min_size=1, max_size=3))
def test_split_and_filter_are_homomorphisms(xs: list[Any]) -> None:
    """The theorem defines split and filter on generators; they extend to homomorphisms."""
    assert check_homomorphism(split(T, hash_left, hash_right), MN, direct_product(MN, MN), xs)
    tensors = [T.otimes(m, n) for m, n in xs]
    assert check_homomorphism(filter_(T, pred), T.result, T.result, tensors)


@pytest.mark.spec("STREAM-THM-3.51", evidence="property")
@given(st.lists(inputs, min_size=1, max_size=2), st.integers(2, 4))
def test_join_partitioning_property(xs: list[Any], k: int) -> None:
    assert check_equivalent(join(T, pred), partitioned_join(T, pred, hash_left, hash_right), xs)
    assert check_equivalent(join(T, pred), k_partitioned_join(
        T, pred, lambda e: e[1] % k, lambda e: e[0] % k, k), xs)


@pytest.mark.spec("STREAM-THM-3.51", evidence="exhaustive")
def test_join_partitioning_exhaustive() -> None:
    """Sets of edges over {0, 1} (P(V²) ⊗ P(V²)): every pair of edge sets with at most 3 of the
    4 edges each (225 inputs), every batching."""
    S = set_tensor()
    all_edges = list(cartesian(range(2), repeat=2))
    sets = [frozenset(c) for n in range(4) for c in combinations_with_replacement(all_edges, n)]
    sets = list(dict.fromkeys(sets))
    xs = list(cartesian(sets, repeat=2))
    assert len(xs) == 225
    assert check_hash_hypothesis(hash_left, hash_right, pred, all_edges, all_edges).holds
    assert check_equivalent(join(S, pred), partitioned_join(S, pred, hash_left, hash_right), xs)


@pytest.mark.spec("STREAM-THM-3.51", evidence="example")
def test_join_partitioning_hash_hypothesis_matters() -> None:
    """Hashing the left edges by their *source* violates the hypothesis: a counterexample."""
    bad = lambda e: e[0] % 2  # noqa: E731
    assert not check_hash_hypothesis(bad, hash_right, pred, [(0, 1)], [(1, 5)])
    x = (Multiset.of((0, 1)), Multiset.of((1, 5)))
    assert not check_equivalent(join(T, pred), partitioned_join(T, pred, bad, hash_right), [x])


@pytest.mark.spec("STREAM-EX-2.1", evidence="property")
@pytest.mark.spec("STREAM-EX-2.2", evidence="property")
@given(st.lists(inputs, min_size=1, max_size=2))
def test_section_2_optimisation_replayed(xs: list[Any]) -> None:
    """pairs ; pure filter ∼ … ∼ join ∼ … ∼ pure split ; (join × join) ; pure merge, each step."""
    d = optimisation_derivation(T, pred, hash_left, hash_right)
    assert [s.spec_id for s in d.steps] == [
        "STREAM-COR-3.33", "STREAM-COR-3.36", "STREAM-COR-3.31", "STREAM-PROP-3.30",
        "STREAM-DEF-3.44", "STREAM-LEM-3.6"]
    for verdict in check_derivation(d, xs):
        assert verdict, verdict.describe()


@pytest.mark.spec("STREAM-EX-2.1", evidence="example")
@pytest.mark.spec("STREAM-EX-2.2", evidence="example")
def test_section_2_example_values() -> None:
    """Paths of length two in a small graph, before and after the optimisation."""
    e = Multiset.of((1, 2), (2, 3), (3, 4), (2, 2))
    expected = Multiset.of(((1, 2), (2, 3)), ((1, 2), (2, 2)), ((2, 3), (3, 4)), ((2, 2), (2, 3)), ((2, 2), (2, 2)))
    d = optimisation_derivation(T, pred, hash_left, hash_right)
    from reference.streams.rewriting import denote

    assert run(denote(d.start))((e, e)) == expected == run(denote(d.last))((e, e))
    assert "\n".join(d.lines()).count("∼") == 6


@pytest.mark.spec("STREAM-PROP-3.45", evidence="example")
@pytest.mark.spec("STREAM-COR-3.33", evidence="example")
def test_mapreduce_derivation() -> None:
    """§3.5: pairs ∼ pure f_pairs ; eval pairs ∼ split ; (pure f × pure f) ; pure merge ; eval pairs,
    each step checked on edge bags and all their batchings."""
    from reference.streams.derivations import mapreduce
    from reference.streams.parallel import pairs
    from reference.streams.rewriting import Pure, show

    split_stage = Pure(split(T, hash_left, hash_right), MN, direct_product(MN, MN), "split")
    d = mapreduce(pairs(T), split_stage)
    assert show(d.last) == "(pure split ; (pure f_pairs × pure f_pairs) ; pure merge ; eval pairs)"
    xs = [(Multiset.of((1, 2), (2, 2)), Multiset.of((2, 3), (3, 1))), (Multiset(), Multiset.of((0, 0)))]
    for verdict in check_derivation(d, xs):
        assert verdict, verdict.describe()


@pytest.mark.spec("STREAM-LEM-3.6", evidence="exhaustive")
def test_partition_lemma_exhaustive() -> None:
    """τ = pure split (parity of the join key), σ = join over sets of edges on {0, 1}: every pair
    of edge sets with at most 3 of the 4 edges (225 inputs), every batching."""
    S = set_tensor()
    SMN = direct_product(S.left, S.right)
    tau = pure(split(S, hash_left, hash_right), SMN, direct_product(SMN, SMN), "split")
    sigma = join(S, pred)
    all_edges = list(cartesian(range(2), repeat=2))
    sets = list(dict.fromkeys(frozenset(c) for n in range(4) for c in combinations_with_replacement(all_edges, n)))
    xs = list(cartesian(sets, repeat=2))
    assert check_independent_images(tau, sigma, xs)
    lhs, rhs = lemma_sides(tau, sigma)
    assert check_equivalent(lhs, rhs, xs)
