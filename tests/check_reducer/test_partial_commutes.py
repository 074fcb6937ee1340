"""SKIP-DEC-PARTIAL-COMMUTES: Def. 2 for a remove that may decline is required where both
orders answer; an order that declines is vacuous (the runtime recomputes the key).

The decision rests on a claim checked here on every reducer of a tiny carrier: with ⊕
pairwise commutative and Def. 7 holding where remove answers, the runtime's answer
(update_R with removals in any enumeration of Δ⁻(k), recomputing on a decline) equals
recomputation, whatever ⊖ does on the instances where one order declines. And the
absorbing reading rejects correct reducers: the checker no longer does."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from check_reducer.cli import main
from check_reducer.domains import parse_domain
from check_reducer.laws import LAW_BY_KEY, Equality
from check_reducer.reachability import standing
from check_reducer.search import Bounds, Problem, evaluate
from reference.algebra.multiset import Multiset
from reference.reduce import (
    Declined,
    Reducer,
    check_pairwise_commutative,
    check_reducer,
    check_well_formed,
    fold,
    fold_seq,
    strict_remove,
)
from reference.skip.carriers import (
    all_operations,
    all_partial_operations,
    enumerations,
    multisets_up_to,
    submultisets,
)
from tests.check_reducer.gallery import GALLERY

N, M = 2, 2  # accumulators Z_2, values Z_2: every ⊕ (16) and every ⊖ that may decline (81)
VALUES = tuple(range(M))


def runtime_answer(R: Reducer[Any, Any], C_k: Multiset, removed: Sequence[Any],
                   added: Multiset) -> Any:
    """What a runtime shows after removing ``removed`` (in this order) and adding ``added``:
    recompute from the values if a removal declines (SKIP-DEC-PARTIAL)."""
    after = (C_k - Multiset.from_iterable(removed)) | added
    try:
        a = fold_seq(strict_remove(R), fold(R.add, R.initial, C_k), removed)
    except Declined:
        return fold(R.add, R.initial, after)
    return fold(R.add, a, added)


def enumeration_independent(R: Reducer[Any, Any], max_size: int) -> bool:
    """Every valid single-key instance (|C(k)| <= max_size, Δ⁻(k) ⊆ C(k), |Δ⁺(k)| <= 1),
    every enumeration of Δ⁻(k): the runtime's answer is the recomputed one."""
    additions = list(multisets_up_to(VALUES, 1))
    for C_k in multisets_up_to(VALUES, max_size):
        for D in submultisets(C_k):
            for P in additions:
                recomputed = fold(R.add, R.initial, (C_k - D) | P)
                if any(runtime_answer(R, C_k, order, P) != recomputed
                       for order in enumerations(D)):
                    return False
    return True


@pytest.mark.spec("SKIP-DEC-PARTIAL-COMMUTES", evidence="exhaustive")
def test_declining_orders_never_change_what_the_runtime_shows() -> None:
    """On Z_2 x Z_2: every reducer whose ⊕ is pairwise commutative and which satisfies
    Def. 7 where remove answers gives the recomputed answer for every valid delta and every
    enumeration of the removals (|C(k)| <= 3): ⊖'s commutativity where one order declines
    is never needed. Some of these reducers fail the absorbing reading of Def. 2."""
    correct = absorbing_rejects = strict_rejects = 0
    for add in all_operations(N, M):
        if not check_pairwise_commutative(add, range(N), VALUES, exhaustive=True).holds:
            continue
        for remove in all_partial_operations(N, M):
            R: Reducer[int, int] = Reducer(0, add, remove)
            if not check_well_formed(R, VALUES, N + 1, exhaustive=True).holds:
                continue
            correct += 1
            assert enumeration_independent(R, max_size=3), remove.rows
            if not check_reducer(R, range(N), VALUES).holds:
                absorbing_rejects += 1
            if not check_pairwise_commutative(_vacuous_on_decline(R), range(N), VALUES).holds:
                strict_rejects += 1
    assert correct > 50
    assert absorbing_rejects > 0  # the absorbing reading would call these ill-formed
    assert strict_rejects == 0  # where both orders answer, they agree


def _vacuous_on_decline(R: Reducer[int, int]) -> Callable[[int, int], Any]:
    """⊖ with a decline mapped to one shared marker, so that an order that declines agrees
    with every other order: Def. 2 then compares only orders that both answer."""
    class _Anything:
        def __eq__(self, other: object) -> bool:
            return True

        def __hash__(self) -> int:
            return 0

    anything = _Anything()

    def remove(a: Any, v: int) -> Any:
        if a is anything:
            return anything
        out = R.remove(a, v)
        return anything if out is None else out
    return remove


@pytest.mark.spec("SKIP-DEC-PARTIAL-COMMUTES", evidence="example")
def test_a_sum_declining_below_zero_commutes_where_both_orders_answer() -> None:
    """The decision's example: remove declines when a - v < 0. At a = 0, v1 = -1, v2 = 1 one
    order answers 0 and the other declines; the absorbing reading calls that a failure of
    Def. 2, the checker calls it vacuous. A runtime meets the instance (C(k) = {-1, 1}) and
    shows the recomputed 0 in both orders."""
    R: Reducer[int, int] = Reducer(0, lambda a, v: a + v,
                                   lambda a, v: a - v if a - v >= 0 else None)
    assert not check_reducer(R, [0], [-1, 1]).holds  # the absorbing reading
    p = Problem(R, parse_domain("int"), parse_domain("int"), Equality(), Bounds())
    instance = {"a": 0, "v1": -1, "v2": 1}
    status, _ = evaluate(p, LAW_BY_KEY["def2-remove"], instance)
    assert status == "declined"
    note = standing(p, LAW_BY_KEY["def2-remove"], instance)
    assert note.met and "C(k) = {|-1, 1|}" in note.text
    C_k = Multiset.of(-1, 1)
    assert runtime_answer(R, C_k, (-1, 1), Multiset()) == 0  # answered: 0 - (-1) - 1
    assert runtime_answer(R, C_k, (1, -1), Multiset()) == 0  # declined: recomputed
    # where both orders answer they agree: a = 5, v1 = 1, v2 = 2
    status, _ = evaluate(p, LAW_BY_KEY["def2-remove"], {"a": 5, "v1": 1, "v2": 2})
    assert status == "holds"


@pytest.mark.spec("SKIP-DEC-PARTIAL-COMMUTES", evidence="example")
def test_the_checker_applies_the_decision(capsys: pytest.CaptureFixture[str]) -> None:
    """The gallery's nonneg_sum: every line holds, so the report does not say that remove
    is not pairwise commutative while saying the reducer is incrementally correct."""
    status = main([f"{GALLERY / 'partial.py'}:nonneg_sum", "--no-symbolic", "--examples", "50",
                   "--json"])
    report = json.loads(capsys.readouterr().out)
    assert status == 0
    lines = {line["key"]: line for line in report["lines"]}
    assert lines["def2-remove"]["status"] == "holds" and lines["def2-remove"]["declined"] > 0
    assert lines["def11"]["status"] == "holds"
    assert "SKIP-DEC-PARTIAL-COMMUTES" in lines["def2-remove"]["statement"]
