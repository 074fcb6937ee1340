"""The observable view (SKIP-DEC-VIEW)."""

from __future__ import annotations

import pytest
from hypothesis import given

from reference.algebra.multiset import Multiset
from reference.reduce import (
    Delta,
    apply_delta,
    builtin,
    collection_of,
    reduce,
    reduce_at,
    total_view,
    view_changes,
)
from tests.skip.strategies import collection_and_delta, collections

SUM = builtin("sum").reducer


@pytest.mark.spec("SKIP-DEC-VIEW", evidence="example")
def test_observable_view_omits_empty_keys_and_total_view_is_derived() -> None:
    C = {"zero": Multiset.of(1, -1), "empty": Multiset(), "k": Multiset.of(3, 5, 7)}
    observed = reduce(SUM, C)
    assert observed == {"zero": 0, "k": 15}  # "empty" has no entry
    total = total_view(SUM, observed)
    assert total("empty") == total("zero") == total("never-seen") == 0 == SUM.initial
    # the total view cannot tell "zero" ({1, -1}) from "empty" (∅); the observed view can
    assert ("zero" in observed, "empty" in observed) == (True, False)


@pytest.mark.spec("SKIP-DEC-VIEW", evidence="property")
@given(collections)
def test_total_view_is_derivable_from_the_observable_view(C: dict[str, Multiset]) -> None:
    observed = reduce(SUM, C)
    assert set(observed) == {k for k, M in C.items() if not M.is_empty()}
    total = total_view(SUM, observed)
    for k in ("a", "b", "c", "absent"):
        assert total(k) == reduce_at(SUM, C, k)


@pytest.mark.spec("SKIP-DEC-VIEW", evidence="property")
@given(collection_and_delta())
def test_emitted_changes_turn_the_old_view_into_the_new(
    case: tuple[dict[str, Multiset], Delta]
) -> None:
    C, delta = case
    before, after = reduce(SUM, C), reduce(SUM, apply_delta(C, delta))
    changes = view_changes(before, after)
    rebuilt = {k: a for k, a in before.items() if changes.get(k, a) is not None}
    rebuilt.update({k: a for k, a in changes.items() if a is not None})
    assert rebuilt == after
    assert all(k in before for k, a in changes.items() if a is None)
    # only what changed is emitted: an unchanged key, or one absent before and after, is not
    assert all(before.get(k) != after.get(k) for k in changes)


@pytest.mark.spec("SKIP-DEC-VIEW", evidence="example")
def test_a_key_that_empties_leaves_the_view() -> None:
    C = collection_of({"k": [2], "j": [1]})
    C_next = apply_delta(C, Delta(minus={"k": Multiset.of(2)}, plus={"j": Multiset.of(1)}))
    assert view_changes(reduce(SUM, C), reduce(SUM, C_next)) == {"k": None, "j": 2}
