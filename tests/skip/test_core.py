"""Collections, folds, reduce, deltas and update (SKIP §2-4): the definitions
and the decisions on invalid deltas and on the fold's enumeration order."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.algebra.multiset import Multiset
from reference.reduce import (
    Delta,
    InvalidDelta,
    Reducer,
    apply_delta,
    builtin,
    check_valid,
    collection_of,
    delta_between,
    delta_of,
    fold,
    fold_seq,
    is_valid,
    reduce_at,
    update,
    values_at,
)
from reference.skip.builtins import affine_add
from reference.skip.carriers import multisets_up_to, submultisets
from tests.skip.strategies import collection_and_delta, collections, multisets

SUM = builtin("sum").reducer


@pytest.mark.spec("SKIP-DEF-1", evidence="example")
def test_collection_maps_absent_keys_to_the_empty_multiset() -> None:
    C = collection_of({"k": [3, 5, 5], "empty": []})
    assert values_at(C, "k") == Multiset.of(3, 5, 5)
    assert "empty" not in C and values_at(C, "empty") == Multiset()
    assert values_at(C, "absent").is_empty()


@pytest.mark.spec("SKIP-DEF-3", evidence="example")
def test_fold_seq_is_a_left_fold() -> None:
    # fold^seq(a, v1 :: s') = fold^seq(a ⋆ v1, s'): the order of application is visible
    # with a non-commutative ⋆.
    assert fold_seq(lambda a, v: f"({a}{v})", "", ["x", "y", "z"]) == "(((x)y)z)"
    assert fold_seq(SUM.add, 7, []) == 7


@pytest.mark.spec("SKIP-DEF-4", evidence="property")
@given(multisets, st.integers(-5, 5), st.data())
def test_fold_over_a_multiset_is_fold_seq_over_any_enumeration(
    M: Multiset, a: int, data: st.DataObject
) -> None:
    """For a pairwise commutative ⋆ (sum; max, with the accumulator visible in the
    result), fold_⋆(a, M) equals fold^seq_⋆(a, s) for a random enumeration s of M."""
    s = data.draw(st.permutations(list(M.elements())))
    assert fold(SUM.add, a, M) == fold_seq(SUM.add, a, s) == a + sum(s)
    assert fold(max, a, M) == fold_seq(max, a, s) == max([a, *s])


@pytest.mark.spec("SKIP-DEC-FOLD-ORDER", evidence="example")
def test_fold_of_a_non_commutative_operation_uses_the_canonical_enumeration() -> None:
    M = Multiset.of(2, 0, 1)
    assert list(M.elements()) == [0, 1, 2]
    assert fold(affine_add, 0, M) == affine_add(affine_add(affine_add(0, 0), 1), 2) == 4
    # another enumeration of the same multiset folds differently: Def. 4 is undefined here
    assert fold_seq(affine_add, 0, [2, 1, 0]) == 10


@pytest.mark.spec("SKIP-DEC-FOLD-ORDER", evidence="property")
@given(st.lists(st.integers(-3, 3), max_size=6))
def test_canonical_enumeration_is_sorted_and_independent_of_insertion_order(xs: list[int]) -> None:
    M, N = Multiset.from_iterable(xs), Multiset.from_iterable(reversed(xs))
    assert list(M.elements()) == sorted(xs) == list(N.elements())
    assert fold(affine_add, 1, M) == fold(affine_add, 1, N) == fold_seq(affine_add, 1, sorted(xs))


@pytest.mark.spec("SKIP-DEF-5", evidence="example")
def test_reduce_folds_each_key() -> None:
    C = collection_of({"k": [3, 5, 7], "j": [1]})
    assert reduce_at(SUM, C, "k") == 15 and reduce_at(SUM, C, "j") == 1
    assert reduce_at(SUM, C, "absent") == 0  # the total view: ι


@pytest.mark.spec("SKIP-DEF-8", evidence="example")
def test_delta_validity_requires_removed_values_to_be_present() -> None:
    C = collection_of({"k": [3, 5, 5]})
    assert is_valid(C, delta_of(minus={"k": [5, 5]}, plus={"j": [1]}))
    assert not is_valid(C, delta_of(minus={"k": [5, 5, 5]}))
    assert not is_valid(C, delta_of(minus={"j": [1]}))


@pytest.mark.spec("SKIP-DEC-INVALID-DELTA", evidence="example")
def test_invalid_delta_is_refused_naming_key_and_value() -> None:
    C = collection_of({"k": [3, 5]})
    with pytest.raises(InvalidDelta) as caught:
        apply_delta(C, delta_of(minus={"k": [5, 5]}))
    error = caught.value
    assert (error.key, error.value, error.available, error.removed) == ("k", 5, 1, 2)
    assert "'k'" in str(error) and "5" in str(error) and "SKIP-DEF-8" in str(error)
    assert C == collection_of({"k": [3, 5]})  # nothing was applied


@pytest.mark.spec("SKIP-DEC-INVALID-DELTA", evidence="property")
@given(collections, st.sampled_from(("a", "b", "c")), st.integers(-3, 3))
def test_removing_one_copy_too_many_is_always_refused(
    C: dict[str, Multiset], k: str, v: int
) -> None:
    too_many = values_at(C, k).multiplicity(v) + 1
    delta = Delta(minus={k: Multiset({v: too_many})})
    assert not is_valid(C, delta)
    with pytest.raises(InvalidDelta) as caught:
        check_valid(C, delta)
    assert (caught.value.key, caught.value.value, caught.value.removed) == (k, v, too_many)


@pytest.mark.spec("SKIP-DEF-9", evidence="property")
@given(collection_and_delta())
def test_delta_application_is_pointwise(case: tuple[dict[str, Multiset], Delta]) -> None:
    C, delta = case
    C_next = apply_delta(C, delta)
    for k in {"a", "b", "c"}:
        assert values_at(C_next, k) == (values_at(C, k) - delta.removed(k)) | delta.added(k)
    assert all(not M.is_empty() for M in C_next.values())


@pytest.mark.spec("SKIP-REM-2", evidence="property")
@given(collections, collections)
def test_delta_between_old_and_new(old: dict[str, Multiset], new: dict[str, Multiset]) -> None:
    delta = delta_between(old, new)
    for k in delta.keys():
        plus, minus = delta.added(k), delta.removed(k)
        assert all(minus.multiplicity(v) == 0 for v in plus.support())  # disjoint
    assert is_valid(old, delta)
    assert apply_delta(old, delta) == {k: M for k, M in new.items() if not M.is_empty()}


@pytest.mark.spec("SKIP-REM-2", evidence="exhaustive")
def test_delta_between_every_pair_of_small_multisets() -> None:
    """Every old(k), new(k) over {0, 1, 2} with at most 3 values (20 x 20 pairs)."""
    small = list(multisets_up_to((0, 1, 2), 3))
    for old in small:
        for new in small:
            delta = delta_between({"k": old}, {"k": new})
            assert delta.removed("k") <= old and apply_delta({"k": old}, delta) == (
                {"k": new} if not new.is_empty() else {}
            )
            assert not (delta.added("k").support() & delta.removed("k").support())


@pytest.mark.spec("SKIP-DEF-10", evidence="example")
def test_update_removes_first_then_adds() -> None:
    trace: list[str] = []
    R = builtin("sum").reducer

    def add(a: int, v: int) -> int:
        trace.append(f"+{v}")
        return R.add(a, v)

    def remove(a: int, v: int) -> int:
        trace.append(f"-{v}")
        return R.remove(a, v)

    result = update(Reducer(0, add, remove), 15, delta_of(plus={"k": [2, 4]}, minus={"k": [5, 3]}), "k")
    assert result == 15 - 5 - 3 + 2 + 4 and trace == ["-3", "-5", "+2", "+4"]


@pytest.mark.spec("SKIP-DEF-10", evidence="exhaustive")
def test_update_of_sum_over_every_small_delta() -> None:
    """update_R(a, Δ, k) = a - ΣΔ⁻(k) + ΣΔ⁺(k), for Δ⁻(k) ⊆ M, |M| <= 3, |Δ⁺(k)| <= 2 over {-1, 0, 2}."""
    values = (-1, 0, 2)
    for M in multisets_up_to(values, 3):
        for removed in submultisets(M):
            for added in multisets_up_to(values, 2):
                delta = Delta(plus={"k": added}, minus={"k": removed})
                a = sum(M.elements())
                assert update(SUM, a, delta, "k") == a - sum(removed.elements()) + sum(added.elements())


@pytest.mark.spec("SKIP-DEC-INVALID-DELTA", evidence="property")
@given(collections, st.dictionaries(st.sampled_from(("a", "b", "c")), multisets, max_size=3),
       st.dictionaries(st.sampled_from(("a", "b", "c")), multisets, max_size=3))
def test_apply_delta_refuses_exactly_when_a_removal_exceeds_the_collection(
    C: dict[str, Multiset], minus: dict[str, Multiset], plus: dict[str, Multiset]
) -> None:
    """Through ``apply_delta`` (what engines and the oracle call), against a rule written
    here with plain counters: refused iff some Δ⁻(k) holds a value more often than C(k)
    (Δ⁺ never excuses it: removals come first); otherwise (C(k) - Δ⁻(k)) + Δ⁺(k) per key.
    C is never modified."""
    def counts(M: Multiset | None) -> Counter[Any]:
        return Counter(M.elements()) if M is not None else Counter()

    before = {k: Multiset.from_iterable(M.elements()) for k, M in C.items()}
    delta = Delta(plus=plus, minus=minus)
    exceeds = any(n > counts(C.get(k))[v] for k, M in minus.items() for v, n in counts(M).items())
    if exceeds:
        with pytest.raises(InvalidDelta):
            apply_delta(C, delta)
    else:
        result = apply_delta(C, delta)
        for k in {*C, *minus, *plus}:
            expected = counts(C.get(k)) - counts(minus.get(k)) + counts(plus.get(k))
            assert counts(result.get(k)) == expected
            assert (k in result) == bool(expected)
    assert C == before
