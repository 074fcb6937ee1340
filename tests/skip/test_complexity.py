"""Theorem 3: update costs O(|Δ⁻(k)| + |Δ⁺(k)|) calls of ⊖ and ⊕, counted exactly."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.algebra.multiset import Multiset
from reference.reduce import Delta, Reducer, builtin, fold, reduce_at, update
from reference.skip.carriers import multisets_up_to, submultisets
from tests.skip.strategies import submultiset_of


@dataclass
class Counter:
    """Counts the calls of a reducer's operations (test instrumentation only)."""

    adds: int = 0
    removes: int = 0

    def around(self, R: Reducer[Any, Any]) -> Reducer[Any, Any]:
        def add(a: Any, v: Any) -> Any:
            self.adds += 1
            return R.add(a, v)

        def remove(a: Any, v: Any) -> Any:
            self.removes += 1
            return R.remove(a, v)

        return Reducer(R.initial, add, remove, name=R.name)


def calls_of_update(R: Reducer[Any, Any], a_k: Any, delta: Delta, k: Any) -> tuple[int, int]:
    counter = Counter()
    update(counter.around(R), a_k, delta, k)
    return counter.removes, counter.adds


@pytest.mark.spec("SKIP-THM-3", evidence="example")
def test_one_change_costs_one_call_whatever_the_size_of_the_multiset() -> None:
    R = builtin("sum").reducer
    M = Multiset.from_iterable(range(1000))
    delta = Delta(plus={"k": Multiset.of(5000)}, minus={"k": Multiset.of(10)})
    a_k = reduce_at(R, {"k": M}, "k")
    assert calls_of_update(R, a_k, delta, "k") == (1, 1)
    recompute = Counter()
    fold(recompute.around(R).add, R.initial, (M - Multiset.of(10)) | Multiset.of(5000))
    assert (recompute.removes, recompute.adds) == (0, 1000)


@pytest.mark.spec("SKIP-THM-3", evidence="property")
@given(st.sampled_from(("sum", "count", "xor", "min_sorted", "product_nonzero_rationals")),
       st.data())
def test_update_calls_remove_and_add_once_per_delta_value(name: str, data: st.DataObject) -> None:
    b = builtin(name)
    values = st.sampled_from(b.values)
    M = Multiset.from_iterable(data.draw(st.lists(values, max_size=12)))
    removed = data.draw(submultiset_of(M))
    added = Multiset.from_iterable(data.draw(st.lists(values, max_size=6)))
    delta = Delta(plus={"k": added}, minus={"k": removed})
    a_k = reduce_at(b.reducer, {"k": M}, "k")
    assert calls_of_update(b.reducer, a_k, delta, "k") == (len(removed), len(added))


@pytest.mark.spec("SKIP-THM-3", evidence="exhaustive")
def test_update_call_counts_on_every_small_delta() -> None:
    """Every M over {0, 1, 2} with |M| <= 4, every Δ⁻(k) ⊆ M, every |Δ⁺(k)| <= 2, for sum."""
    R = builtin("sum").reducer
    for M in multisets_up_to((0, 1, 2), 4):
        a_k = reduce_at(R, {"k": M}, "k")
        for removed in submultisets(M):
            for added in multisets_up_to((0, 1, 2), 2):
                delta = Delta(plus={"k": added}, minus={"k": removed})
                assert calls_of_update(R, a_k, delta, "k") == (len(removed), len(added))
