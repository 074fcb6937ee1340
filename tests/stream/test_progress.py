"""§5.2: streaming progress as preservation of the terminator (a left zero)."""

from __future__ import annotations

from itertools import product as cartesian
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.algebra.monoid import (
    check_homomorphism,
    check_monoid_laws,
    free_monoid,
    hom_on_generators,
)
from reference.streams.functions import check_stream_function
from reference.streams.progress import (
    Term,
    check_left_zero,
    check_streaming_progress,
    left_zero,
    terminated,
    terminated_prefix_sum,
    terminated_sum_at_end,
    terminated_words,
)

LISTS = free_monoid()
T = terminated(LISTS)
SMALL = terminated_words((-1, 0, 1), 2)  # 26 elements
terminated_lists = st.tuples(st.lists(st.integers(-4, 4), max_size=4).map(tuple), st.booleans())


@pytest.mark.spec("STREAM-DEF-5.2-PROGRESS", evidence="exhaustive")
def test_terminated_lists_form_a_monoid_with_a_left_zero() -> None:
    assert check_monoid_laws(T, SMALL)
    assert check_left_zero(T, SMALL)
    assert T.op(((1,), False), ((2,), True)) == ((1, 2), True)
    assert T.op(((1,), True), ((2,), False)) == ((1,), True)
    assert all(T.equal(T.prod(T.generators_of(x)), x) for x in SMALL)


@pytest.mark.spec("STREAM-EX-5.2-PROGRESS", evidence="example")
def test_prefix_sum_progresses_and_sum_at_end_does_not() -> None:
    """By hand: PS([1, 2]·0) = ([1, 3], ⊤) = PS([1, 2])·0; the sum-at-end function gives
    ([3], ⊤) on the terminated input but ([], ⊥)·0 = ([], ⊤) otherwise."""
    ps, total = terminated_prefix_sum(LISTS), terminated_sum_at_end(LISTS)
    x = ((1, 2), False)
    assert ps.F(T.op(x, left_zero(T))) == ((1, 3), True) == T.op(ps.F(x), left_zero(T))
    assert total.F(T.op(x, left_zero(T))) == ((3,), True)
    assert T.op(total.F(x), left_zero(T)) == ((), True)
    verdict = check_streaming_progress(total.F, T, T, [x])
    assert not verdict and verdict.counterexample == {"x": x, "lhs": ((3,), True), "rhs": ((), True)}


@pytest.mark.spec("STREAM-EX-5.2-PROGRESS", evidence="exhaustive")
def test_progress_exhaustive_on_small_lists() -> None:
    """Both are stream functions (decided on the 26 terminated lists over {-1,0,1} of
    length <= 2, pairs and triples); prefix sum preserves 0 on all of them; sum-at-end
    fails on exactly the unterminated ones (it outputs [Σ xs] only once terminated,
    the empty list included: ([0], ⊤) ≠ ([], ⊤))."""
    ps, total = terminated_prefix_sum(LISTS), terminated_sum_at_end(LISTS)
    assert check_stream_function(ps, SMALL)
    assert check_stream_function(total, SMALL)
    assert check_streaming_progress(ps.F, T, T, SMALL)
    failing = [x for x in SMALL if not check_streaming_progress(total.F, T, T, [x])]
    assert failing == [x for x in SMALL if not x[1]]  # every unterminated input


@pytest.mark.spec("STREAM-EX-5.2-PROGRESS", evidence="property")
@given(st.lists(terminated_lists, min_size=1, max_size=3))
def test_progress_property(xs: list[Term]) -> None:
    ps = terminated_prefix_sum(LISTS)
    assert check_stream_function(ps, xs)
    assert check_streaming_progress(ps.F, T, T, xs)
    assert not check_streaming_progress(terminated_sum_at_end(LISTS).F, T, T, [(x, False) for x, _ in xs])


def _homomorphisms() -> list[tuple[Term, Term, Any]]:
    """The maps ``Term[List[{a}]] → Term[List[{a, b}]]`` defined on the generators
    ``[a]`` and ``0`` with images among the terminated words over {a, b} of length <= 2,
    kept when they are homomorphisms on the terminated words over {a} of length <= 3
    (the relations ``0·x = 0`` rule some out)."""
    source_words = terminated_words(("a",), 3)
    images = terminated_words(("a", "b"), 2)
    kept = []
    for image_a, image_zero in cartesian(images, repeat=2):
        table = {(("a",), False): image_a, ((), True): image_zero}
        f = hom_on_generators(T, T, lambda g, table=table: table[g])
        if check_homomorphism(f, T, T, source_words):
            kept.append((image_a, image_zero, f))
    return kept


@pytest.mark.spec("STREAM-CLAIM-5.2-HOM-PROGRESS", evidence="exhaustive", part="1=>2")
@pytest.mark.spec("STREAM-CLAIM-5.2-HOM-PROGRESS", evidence="exhaustive", part="2=>1")
def test_homomorphisms_progress_iff_they_preserve_zero() -> None:
    """For every homomorphism found: f(x·0) = f(x)·0 on all source words iff f(0) = 0;
    both outcomes occur."""
    source_words = terminated_words(("a",), 3)
    outcomes = set()
    homs = _homomorphisms()
    for _, image_zero, f in homs:
        progress = bool(check_streaming_progress(f, T, T, source_words))
        assert progress == T.equal(image_zero, left_zero(T))
        outcomes.add(progress)
    assert outcomes == {True, False} and len(homs) > 10
