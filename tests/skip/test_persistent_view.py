"""SKIP-DEC-PERSISTENT-VIEW: C • Δ and the view it leads to are persistent. They equal
what the copying version computes (a new dict of every key), every earlier version keeps
its values after later deltas, and a delta shares the keys it does not touch."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.algebra.multiset import Multiset
from reference.algebra.persistent import PMap
from reference.reduce import (
    Collection,
    Delta,
    Reducer,
    apply_delta,
    builtin,
    check_valid,
    reduce,
    update_or_recompute,
    update_view,
    values_at,
)
from tests.skip.strategies import VALUES, collections, submultiset_of

SUM = builtin("sum").reducer
MIN = builtin("min").reducer  # partial: its remove declines, the key is recomputed


def copying_apply_delta(C: Collection, delta: Delta) -> dict[Any, Multiset]:
    """C • Δ as it was computed before SKIP-DEC-PERSISTENT-VIEW: a new dict of every key."""
    check_valid(C, delta)
    result = {k: M for k, M in C.items() if not M.is_empty()}
    for k in delta.keys():
        result[k] = (values_at(C, k) - delta.removed(k)) | delta.added(k)
        if result[k].is_empty():
            del result[k]
    return result


def copying_update_view(R: Reducer[Any, Any], view: Mapping[Any, Any], delta: Delta,
                        C_next: Collection) -> dict[Any, Any]:
    """The view update as a copying engine writes it: a new dict, touched keys rewritten."""
    result = dict(view)
    for k in delta.keys():
        if k not in C_next:
            result.pop(k, None)
        else:
            result[k] = update_or_recompute(R, result.get(k, R.initial), delta, k, C_next[k])
    return result


@st.composite
def deltas_for(draw: st.DrawFn, C: Collection) -> Delta:
    """A valid delta for ``C`` (Δ⁻(k) ⊆ C(k)) over keys old and new."""
    bags = st.lists(VALUES, max_size=4).map(Multiset.from_iterable)
    minus = {k: draw(submultiset_of(M)) for k, M in C.items() if draw(st.booleans())}
    plus = draw(st.dictionaries(st.sampled_from(("a", "b", "c", "d")), bags, max_size=3))
    return Delta(plus=plus, minus={k: M for k, M in minus.items() if not M.is_empty()})


@pytest.mark.spec("SKIP-DEC-PERSISTENT-VIEW", evidence="property")
@given(collections, st.sampled_from((SUM, MIN)), st.data())
def test_persistent_collection_and_view_equal_the_copying_ones_at_every_version(
        C0: dict[str, Multiset], R: Reducer[Any, Any], data: st.DataObject) -> None:
    C: Collection = C0
    view: Mapping[Any, Any] = reduce(R, C0)
    copy_C, copy_view = copying_apply_delta(C0, Delta()), dict(view)
    history: list[tuple[Collection, Mapping[Any, Any], dict[Any, Multiset], dict[Any, Any]]] = []
    for _ in range(data.draw(st.integers(1, 5))):
        delta = data.draw(deltas_for(copy_C))
        C_next = apply_delta(C, delta)
        view = update_view(R, view, delta, C_next)
        C = C_next
        copy_C = copying_apply_delta(copy_C, delta)
        copy_view = copying_update_view(R, copy_view, delta, copy_C)
        assert isinstance(C, PMap) and isinstance(view, PMap)
        assert C == copy_C and copy_C == C and dict(C) == copy_C
        assert view == copy_view == reduce(R, copy_C)  # sum and min are correct (SKIP-DEF-11)
        history.append((C, view, dict(copy_C), dict(copy_view)))
    for C_t, view_t, expected_C, expected_view in history:  # earlier versions are unchanged
        assert dict(C_t) == expected_C and dict(view_t) == expected_view


@pytest.mark.spec("SKIP-DEC-PERSISTENT-VIEW", evidence="example")
def test_a_delta_writes_the_keys_it_touches_and_shares_the_rest() -> None:
    n = 20_000
    C = apply_delta({k: Multiset.of(k, 1) for k in range(n)}, Delta())  # the persistent collection
    view = update_view(SUM, reduce(SUM, C), Delta(), C)
    delta = Delta(plus={5: Multiset.of(4), n: Multiset.of(9)}, minus={5: Multiset.of(1), 7: Multiset.of(7, 1)})
    C2 = apply_delta(C, delta)
    view2 = update_view(SUM, view, delta, C2)
    # the touched keys: 5 rewritten, 7 emptied (it leaves the view), n new
    assert C2[5] == Multiset.of(5, 4) and 7 not in C2 and C2[n] == Multiset.of(9)
    assert view2[5] == 9 and 7 not in view2 and view2[n] == 9 and len(view2) == n
    # the earlier versions are unchanged ...
    assert C[5] == Multiset.of(5, 1) and C[7] == Multiset.of(7, 1) and n not in C and len(C) == n
    assert view[5] == 6 and view[7] == 8 and n not in view
    # ... and untouched keys' multisets and accumulators are the very same objects
    assert all(C2[k] is C[k] for k in range(8, n, 997))
    assert all(view2[k] is view[k] for k in range(8, n, 997))
    # the public values: read-only mappings equal to dicts, unhashable
    assert view2 == reduce(SUM, C2) and C2 == {k: M for k, M in C2.items()}
    with pytest.raises(TypeError):
        hash(C2)
    with pytest.raises(TypeError):
        C2[5] = Multiset()  # type: ignore[index]
