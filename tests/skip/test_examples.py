"""The worked examples of SKIP §6, reproduced exactly."""

from __future__ import annotations

import pytest

from reference.algebra.multiset import Multiset
from reference.reduce import (
    apply_delta,
    builtin,
    collection_of,
    delta_of,
    reduce,
    reduce_at,
    update,
    update_or_recompute,
    values_at,
)
from reference.skip.partial import min_remove


@pytest.mark.spec("SKIP-EX-6.1", evidence="example")
def test_sum_worked_example() -> None:
    R = builtin("sum").reducer
    C = collection_of({"k": [3, 5, 7]})
    a_k = reduce(R, C)["k"]
    assert a_k == 0 + 3 + 5 + 7 == 15
    delta = delta_of(minus={"k": [5]}, plus={"k": [2]})
    assert R.remove(a_k, 5) == 10  # (15 - 5)
    assert update(R, a_k, delta, "k") == (15 - 5) + 2 == 12
    assert reduce_at(R, apply_delta(C, delta), "k") == 0 + 3 + 7 + 2 == 12


@pytest.mark.spec("SKIP-EX-6.2", evidence="example")
def test_count_worked_example() -> None:
    R = builtin("count").reducer
    C = collection_of({"k": ["x", "y", "z"]})
    a_k = reduce(R, C)["k"]
    assert a_k == 3
    delta = delta_of(minus={"k": ["y"]}, plus={"k": ["w"]})
    assert update(R, a_k, delta, "k") == (3 - 1) + 1 == 3
    assert reduce_at(R, apply_delta(C, delta), "k") == 3
    assert R.remove(R.add(7, "v"), "v") == 7  # (a + 1) - 1 = a


@pytest.mark.spec("SKIP-EX-6.3", evidence="example")
def test_min_worked_example() -> None:
    R = builtin("min").reducer
    C = collection_of({"k": [3, 5]})
    a_k = reduce(R, C)["k"]
    assert a_k == 3
    # removing 5: the remove operation answers, and 3 is right
    remove_5 = delta_of(minus={"k": [5]})
    assert min_remove(a_k, 5) == 3
    assert update(R, a_k, remove_5, "k") == 3 == reduce_at(R, apply_delta(C, remove_5), "k")
    # removing 3: a_k = 3 alone cannot give 5: {3, 5} and {3, 7} share a_k = 3 but need 5 and 7
    remove_3 = delta_of(minus={"k": [3]})
    other = collection_of({"k": [3, 7]})
    assert reduce(R, other)["k"] == a_k
    assert reduce_at(R, apply_delta(C, remove_3), "k") == 5
    assert reduce_at(R, apply_delta(other, remove_3), "k") == 7
    # strategy 1, recompute: Skip's Min declines and the key is recomputed
    assert min_remove(a_k, 3) is None
    C_next = apply_delta(C, remove_3)
    assert update_or_recompute(R, a_k, remove_3, "k", values_at(C_next, "k")) == 5
    # strategy 2, maintain additional state: the sorted multiset of values
    sorted_min = builtin("min_sorted")
    state = reduce(sorted_min.reducer, C)["k"]
    assert state == Multiset.of(3, 5) and sorted_min.observe(state) == 3
    after = update(sorted_min.reducer, state, remove_3, "k")
    assert after == Multiset.of(5) and sorted_min.observe(after) == 5
