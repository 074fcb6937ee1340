"""The equivalence checker (every batching) and the rewriting machinery."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.algebra.monoid import free_monoid, state_monoid
from reference.streams.equivalence import (
    check_batching_invariant,
    check_equivalent,
    check_equivalent_chain,
    cuts,
)
from reference.streams.functions import prefix_sum_compact
from reference.streams.processors import Processor, pure
from reference.streams.rewriting import (
    Atom,
    Pure,
    RewriteError,
    Seq,
    associate,
    decompose_at,
    denote,
    exchange_at,
    flatten,
    show,
)
from tests.stream.machines import LISTS, inputs, mealy_machines


def batch_counter() -> Processor:
    """Not a stream processor: f counts batches, so f is not a homomorphism."""
    return Processor(lambda m: (lambda s: (s + 1, (s,))), 0, (), LISTS, LISTS, "batch-counter")


@pytest.mark.spec("STREAM-DEF-3.28", evidence="example")
@pytest.mark.spec("STREAM-DEC-BATCHING", evidence="example")
def test_batching_dependent_processor_is_rejected() -> None:
    verdict = check_batching_invariant(batch_counter(), [(1, 2)])
    assert not verdict and verdict.counterexample is not None
    assert verdict.counterexample["whole"] == (0,) and verdict.counterexample["batched"] == (0, 1)
    counted = pure(lambda m: (0,) if m else (), LISTS, LISTS, "first")  # agrees on the whole input only
    verdict = check_equivalent(counted, batch_counter(), [(1, 2)])
    assert not verdict and verdict.counterexample is not None
    assert verdict.counterexample["sigma_whole"] == (0,)


def test_chain_checker_agrees_with_the_pairwise_checker() -> None:
    """check_equivalent_chain (each processor run once per batching) gives the verdicts
    of check_equivalent on each consecutive pair, a failing middle step included."""
    ident = pure(lambda m: m, LISTS, LISTS, "id")
    chain = [ident, batch_counter(), ident, pure(lambda m: m, LISTS, LISTS, "id'")]
    xs = [(1, 2), (), (3,)]
    chained = check_equivalent_chain(chain, xs)
    pairwise = [check_equivalent(a, b, xs) for a, b in zip(chain, chain[1:], strict=False)]
    assert chained == pairwise
    assert [bool(v) for v in chained] == [False, False, True]


@pytest.mark.spec("STREAM-DEF-3.28", evidence="property")
@pytest.mark.spec("STREAM-DEC-BATCHING", evidence="property")
@given(mealy_machines(), st.lists(inputs, min_size=1, max_size=3))
def test_processors_are_batching_invariant(sigma: Processor, xs: list[tuple[int, ...]]) -> None:
    assert check_batching_invariant(sigma, xs)


def test_cuts() -> None:
    lists = free_monoid()
    assert len(list(cuts(lists, (1, 2, 3)))) == 4 + 1
    assert all(lists.prod(c) == (1, 2, 3) for c in cuts(lists, (1, 2, 3)))
    long = tuple(range(12))
    assert all(lists.prod(c) == long for c in cuts(lists, long))
    no_generators = state_monoid(lists, ())
    assert [len(c) for c in cuts(no_generators, "α")] == [1, 2]


def test_rewrites_refuse_non_matching_expressions() -> None:
    ps = prefix_sum_compact()
    e = Seq((Atom(ps), Pure(lambda m: m, LISTS, LISTS, "id")))
    with pytest.raises(RewriteError):
        exchange_at(e, 0)
    with pytest.raises(RewriteError):
        decompose_at(e, 1)
    d = decompose_at(e, 0)
    assert show(d) == "(pure f_compact(PS) ; eval compact(PS) ; pure id)"
    grouped = associate(d, 0, 1)
    assert show(grouped) == "((pure f_compact(PS) ; eval compact(PS)) ; pure id)"
    assert show(flatten(grouped)) == show(d)
    assert check_equivalent(denote(grouped), denote(d), [(1, 2, 3)])
