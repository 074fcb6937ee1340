"""The registry of built-in reducers (SKIP-DEC-BUILTINS): stable names, and
every expected verdict recomputed from the reference checkers."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.algebra.multiset import Multiset
from reference.reduce import (
    BUILTINS,
    ILL_FORMED,
    WELL_FORMED,
    builtin,
    check_globally_well_formed,
    check_incremental_correctness,
    check_reducer,
    check_skipdoc_well_formed,
    check_total,
    check_well_formed,
    incorrect_update,
)
from tests.skip.strategies import collection_and_delta

NAMES = {
    "sum", "count", "min", "max", "min_sorted", "max_sorted", "product_nonzero_rationals",
    "xor", "sum_pairs", "sum_monus_int", "sum_monus_nat",
    "sum_bad_remove", "min_never_declines", "min_declines_below", "affine_noncommutative",
}


@pytest.mark.spec("SKIP-DEC-BUILTINS", evidence="example")
def test_names_are_stable_and_ill_formed_ones_are_labelled() -> None:
    assert set(BUILTINS) == NAMES
    assert set(ILL_FORMED) == {"sum_bad_remove", "min_never_declines", "min_declines_below",
                               "affine_noncommutative"}
    assert set(WELL_FORMED) | set(ILL_FORMED) == NAMES
    for name in ILL_FORMED:
        assert builtin(name).description.startswith(("ILL-FORMED", "NOT A REDUCER"))
    with pytest.raises(KeyError, match="known"):
        builtin("median")
    assert builtin("max_sorted").observe(Multiset.of(1, 4, 4)) == 4


@pytest.mark.spec("SKIP-DEC-BUILTINS", evidence="exhaustive")
@pytest.mark.parametrize("name", sorted(NAMES))
def test_expected_verdicts(name: str) -> None:
    """Each verdict on the entry's carriers: Def. 6, totality, the three notions of
    well-formedness (|M| <= 3), and Def. 11 (|C(k)| <= 3, |Δ⁺(k)| <= 2)."""
    b = builtin(name)
    R, A, V = b.reducer, b.accumulators, b.values
    got = (
        check_reducer(R, A, V).holds,
        check_total(R, A, V).holds,
        check_well_formed(R, V, 3).holds,
        check_globally_well_formed(R, A, V).holds,
        check_skipdoc_well_formed(R, A, V).holds,
        check_incremental_correctness(R, V, 3, 2).holds,
    )
    e = b.expected
    assert got == (e.reducer, e.total, e.well_formed, e.globally_well_formed,
                   e.skipdoc_well_formed, e.incrementally_correct)


@pytest.mark.spec("SKIP-DEC-BUILTINS", evidence="property")
@given(st.sampled_from(WELL_FORMED), st.data())
def test_well_formed_builtins_update_correctly_on_random_collections(
    name: str, data: st.DataObject
) -> None:
    C, delta = data.draw(collection_and_delta(st.sampled_from(builtin(name).values)))
    assert incorrect_update(builtin(name).reducer, C, delta) is None
