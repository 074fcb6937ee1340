"""Partial reducers (SKIP-DEC-PARTIAL, §6.3): a declined removal recomputes the
key; min and max both as "recompute on decline" and as "maintain additional
state"; Theorem 2 extended to declining removes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.algebra.multiset import Multiset
from reference.reduce import (
    Delta,
    apply_delta,
    builtin,
    collection_of,
    delta_of,
    incorrect_update,
    reduce,
    reduce_at,
    update,
    update_or_recompute,
    values_at,
)
from tests.skip.census import census
from tests.skip.strategies import collection_and_delta

PARTIAL_AND_STATEFUL = ("min", "max", "min_sorted", "max_sorted")


@pytest.mark.spec("SKIP-DEC-PARTIAL", evidence="example")
def test_declining_removal_recomputes_and_strict_decline_is_wrong() -> None:
    C = collection_of({"k": [3, 3, 5]})
    remove_3 = delta_of(minus={"k": [3]})
    C_next = apply_delta(C, remove_3)
    R = builtin("min").reducer
    # Skip's Min declines on v <= a: a duplicate minimum is recomputed, correctly
    assert update_or_recompute(R, 3, remove_3, "k", values_at(C_next, "k")) == 3
    # declining only when v < a misses the removal of the minimum
    wrong = builtin("min_declines_below").reducer
    single = collection_of({"k": [3, 5]})
    failure = incorrect_update(wrong, single, remove_3)
    assert failure is not None and (failure.recomputed, failure.updated) == (5, 3)
    # a removal that does not touch the minimum is answered without recomputation
    assert update(R, 3, delta_of(minus={"k": [5]}, plus={"k": [4]}), "k") == 3
    # max is the dual
    M = builtin("max").reducer
    assert update_or_recompute(M, 5, delta_of(minus={"k": [5]}), "k", Multiset.of(3)) == 3


@pytest.mark.spec("SKIP-DEC-PARTIAL", evidence="property")
@given(st.sampled_from(PARTIAL_AND_STATEFUL), collection_and_delta())
def test_min_and_max_updates_equal_recomputation(
    name: str, case: tuple[dict[str, Multiset], Delta]
) -> None:
    """Both §6.3 strategies, on random collections and valid deltas, every key; for the
    maintained-state variants also the observed minimum/maximum."""
    C, delta = case
    b = builtin(name)
    assert incorrect_update(b.reducer, C, delta) is None
    C_next = apply_delta(C, delta)
    before = reduce(b.reducer, C)
    for k in delta.keys():
        a_k = before.get(k, b.reducer.initial)
        after = update_or_recompute(b.reducer, a_k, delta, k, values_at(C_next, k))
        expected = min if "min" in name else max
        if not values_at(C_next, k).is_empty():
            assert b.observe(after) == expected(values_at(C_next, k).elements())
        assert after == reduce_at(b.reducer, C_next, k)


@pytest.mark.spec("SKIP-DEC-PARTIAL", evidence="exhaustive")
def test_theorem_2_extends_to_every_partial_reducer_on_tiny_carriers() -> None:
    """Every reducer on Z_2 x Z_2 and Z_3 x Z_1 whose ⊖ may decline (7776), with ⊕
    and (decline-absorbing) ⊖ pairwise commutative: Def. 7 where ⊖ answers iff
    update_or_recompute always equals recomputation, both decided."""
    rows = [r for r in census(partial=True) if r.commutative]
    assert len(rows) > 1000
    for r in rows:
        assert r.incremental_decided is not None
        assert r.well_formed.holds == r.incremental_decided.holds == r.incremental.holds
    assert any(not r.total and r.incremental.holds for r in rows)
    assert any(not r.total and not r.incremental.holds for r in rows)
