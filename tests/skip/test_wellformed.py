"""Well-formedness (three notions), incremental correctness and Theorem 2
(SKIP §4.1, §5), the implications between the notions, and the refuted
converses with their counterexamples."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest
from hypothesis import event, given

from reference.algebra.multiset import Multiset
from reference.reduce import (
    BUILTINS,
    Delta,
    builtin,
    check_globally_well_formed,
    check_incremental_correctness,
    check_reducer,
    check_remove_add_commutative,
    check_skipdoc_well_formed,
    check_total,
    check_well_formed,
    decide_incremental_correctness,
    fold,
    ill_formedness_witness,
    incorrect_update,
    reachable_accumulators,
    reduce_at,
    theorem_2_witness,
    update,
    well_formedness_failure,
)
from reference.reduce import Reducer as ReducerType
from reference.skip.carriers import Table, multisets_up_to
from tests.skip.census import census
from tests.skip.strategies import TinyReducer, tiny_reducers


def verdicts(t: TinyReducer) -> dict[str, bool]:
    R, A, V = t.reducer, t.accumulators, t.values
    return {
        "commutative": check_reducer(R, A, V, exhaustive=True).holds,
        "total": check_total(R, A, V, exhaustive=True).holds,
        "well_formed": check_well_formed(R, V, t.n, exhaustive=True).holds,
        "globally": check_globally_well_formed(R, A, V, exhaustive=True).holds,
        "skipdoc": check_skipdoc_well_formed(R, A, V, exhaustive=True).holds,
        "incremental": check_incremental_correctness(R, V, t.n + 1, 1).holds,
    }


# --- Def. 6 and the three notions -------------------------------------------------------


@pytest.mark.spec("SKIP-DEF-6", evidence="example")
def test_reducer_checker_names_the_operation_that_does_not_commute() -> None:
    affine = builtin("affine_noncommutative")
    verdict = check_reducer(affine.reducer, affine.accumulators, affine.values)
    assert not verdict.holds and (verdict.counterexample or {})["operation"] == "add"
    for name in ("sum", "min", "min_sorted", "product_nonzero_rationals"):
        b = builtin(name)
        assert check_reducer(b.reducer, b.accumulators, b.values).holds, name
    # Z_2 x Z_2, ⊕ = ⊖ = addition mod 2: 2 accumulators x 1 pair {0, 1}, for ⊕ and for ⊖
    xor2: ReducerType[int, int] = ReducerType(0, lambda a, v: (a + v) % 2, lambda a, v: (a + v) % 2)
    verdict = check_reducer(xor2, (0, 1), (0, 1), exhaustive=True)
    assert verdict.holds and verdict.decided and verdict.cases == 2 * 2


@pytest.mark.spec("SKIP-DEF-7", evidence="example")
def test_def_7_counterexample_for_an_ill_formed_sum() -> None:
    verdict = check_well_formed(builtin("sum_bad_remove").reducer, (0, 1, 2), 3)
    assert not verdict.holds
    assert verdict.counterexample == {"M": Multiset(), "v": 1, "a": 0, "result": -1}


@pytest.mark.spec("SKIP-DEF-7", evidence="exhaustive")
def test_def_7_is_decided_on_tiny_carriers() -> None:
    """Every total reducer on Z_2 x Z_2 and Z_3 x Z_1: the reachable set closes within
    n additions, so each verdict that holds is decided (a failing one carries its
    counterexample), and it agrees with a direct reading of Def. 7 over all
    multisets with |M| <= n."""
    for row in census(partial=False):
        R = row.reducer
        assert row.well_formed.decided or not row.well_formed.holds
        direct = all(
            R.remove(R.add(fold(R.add, R.initial, M), v), v) == fold(R.add, R.initial, M)
            for M in multisets_up_to(range(row.m), row.n) for v in range(row.m)
        )
        if row.commutative:
            assert row.well_formed.holds == direct


@pytest.mark.spec("SKIP-DEF-7-GLOBAL", evidence="example")
def test_global_law_counterexample_at_an_unreachable_accumulator() -> None:
    b = builtin("sum_monus_int")
    verdict = check_globally_well_formed(b.reducer, b.accumulators, b.values)
    assert verdict.counterexample == {"a": -2, "v": 0, "result": 0}


@pytest.mark.spec("SKIP-DEF-7-SKIPDOC", evidence="example")
def test_skip_contract_names_the_equation_that_fails() -> None:
    b = builtin("sum_monus_nat")
    verdict = check_skipdoc_well_formed(b.reducer, b.accumulators, b.values)
    assert verdict.counterexample == {
        "a": 0, "v": 1, "law": "add(remove(accum, v), v) = accum", "result": 1}
    m = builtin("min")  # declines where Skip's contract allows it
    assert check_skipdoc_well_formed(m.reducer, m.accumulators, m.values).holds


# --- implications between the notions ----------------------------------------------------


@pytest.mark.spec("SKIP-PROP-SKIPDOC-IMPLIES-GLOBAL", evidence="exhaustive")
@pytest.mark.spec("SKIP-PROP-GLOBAL-IMPLIES-DEF-7", evidence="exhaustive")
def test_skipdoc_implies_global_implies_reachable_on_tiny_carriers() -> None:
    """Every reducer on Z_2 x Z_2 and Z_3 x Z_1, total and partial (10,475)."""
    for partial in (False, True):
        for row in census(partial):
            assert not row.skipdoc or row.globally
            assert not row.globally or row.well_formed.holds


@pytest.mark.spec("SKIP-PROP-SKIPDOC-IMPLIES-GLOBAL", evidence="property")
@pytest.mark.spec("SKIP-PROP-GLOBAL-IMPLIES-DEF-7", evidence="property")
@given(tiny_reducers())
def test_skipdoc_implies_global_implies_reachable(t: TinyReducer) -> None:
    v = verdicts(t)
    assert not v["skipdoc"] or v["globally"]
    assert not v["globally"] or v["well_formed"]


@pytest.mark.spec("SKIP-PROP-SKIPDOC-IMPLIES-GLOBAL", evidence="example")
@pytest.mark.spec("SKIP-PROP-GLOBAL-IMPLIES-DEF-7", evidence="example")
def test_implications_on_the_builtins() -> None:
    for b in BUILTINS.values():
        skipdoc = check_skipdoc_well_formed(b.reducer, b.accumulators, b.values).holds
        globally = check_globally_well_formed(b.reducer, b.accumulators, b.values).holds
        reachable = check_well_formed(b.reducer, b.values, 3).holds
        assert (not skipdoc or globally) and (not globally or reachable), b.name


@pytest.mark.spec("SKIP-CLAIM-DEF-7-IMPLIES-GLOBAL", evidence="example")
def test_reachable_well_formedness_does_not_imply_the_global_law() -> None:
    """sum_monus_int: well-formed and incrementally correct, yet the global law fails."""
    b = builtin("sum_monus_int")
    R = b.reducer
    assert check_well_formed(R, b.values, 4).holds
    assert check_incremental_correctness(R, b.values, 4, 2).holds
    assert set(reachable_accumulators(R, b.values, 4).witnesses) == set(range(9))  # 0..8
    failure = check_globally_well_formed(R, b.accumulators, b.values)
    assert not failure.holds
    a = (failure.counterexample or {})["a"]
    assert a < 0 and a not in reachable_accumulators(R, b.values, 4).witnesses


@pytest.mark.spec("SKIP-CLAIM-DEF-7-IMPLIES-GLOBAL", evidence="exhaustive")
@pytest.mark.spec("SKIP-REM-3-DRAFT", evidence="exhaustive")
def test_reachable_only_reducers_exist_on_tiny_carriers() -> None:
    """On Z_2 x Z_2 and Z_3 x Z_1 (decided): reducers that satisfy Def. 7 and Def. 11
    but not the global law, each failing it at an unreachable accumulator."""
    separating = [r for r in census(partial=False)
                  if r.commutative and r.well_formed.holds and not r.globally]
    assert len(separating) == 315
    for row in separating:
        assert row.incremental.holds
        failure = check_globally_well_formed(row.reducer, range(row.n), range(row.m))
        reach = reachable_accumulators(row.reducer, range(row.m), row.n)
        assert (failure.counterexample or {})["a"] not in reach.witnesses


@pytest.mark.spec("SKIP-CLAIM-GLOBAL-IMPLIES-SKIPDOC", evidence="example")
def test_global_law_does_not_imply_the_skip_contract() -> None:
    for name, a, v, result in (("sum_monus_nat", 0, 1, 1),
                               ("min_sorted", Multiset(), 1, Multiset.of(1))):
        b = builtin(name)
        assert check_globally_well_formed(b.reducer, b.accumulators, b.values).holds
        assert check_incremental_correctness(b.reducer, b.values, 3, 2).holds
        failure = check_skipdoc_well_formed(b.reducer, b.accumulators, b.values)
        assert failure.counterexample == {
            "a": a, "v": v, "law": "add(remove(accum, v), v) = accum", "result": result}


@pytest.mark.spec("SKIP-CLAIM-GLOBAL-IMPLIES-SKIPDOC", evidence="exhaustive")
def test_global_without_skipdoc_on_tiny_partial_reducers() -> None:
    """Finite carriers need a declining ⊖ to separate the two (see the next check):
    among all partial reducers on Z_2 x Z_2 and Z_3 x Z_1 some are global but not Skip's."""
    separating = [r for r in census(partial=True) if r.globally and not r.skipdoc]
    assert separating
    assert all(r.incremental.holds for r in separating if r.commutative)


@pytest.mark.spec("SKIP-PROP-FINITE-GLOBAL-IMPLIES-SKIPDOC", evidence="exhaustive")
def test_on_finite_carriers_global_implies_skipdoc_for_total_reducers() -> None:
    rows = census(partial=False)
    assert all(r.skipdoc for r in rows if r.globally)
    assert sum(r.globally for r in rows) > 0


@pytest.mark.spec("SKIP-PROP-FINITE-GLOBAL-IMPLIES-SKIPDOC", evidence="property")
@given(tiny_reducers())
def test_on_finite_carriers_global_implies_skipdoc(t: TinyReducer) -> None:
    """For a total ⊖ only: a declining ⊖ can be global but not Skip's (see the census)."""
    v = verdicts(t)
    event(f"{t.family}: total={v['total']}, globally={v['globally']}")
    assert not (v["total"] and v["globally"]) or v["skipdoc"]


# --- Theorem 2 ---------------------------------------------------------------------------


@pytest.mark.spec("SKIP-DEF-11", evidence="example")
def test_def_11_decided_on_finite_carriers() -> None:
    xor = builtin("xor")  # A = 0..7 is closed under ^ with V = 0..3
    verdict = decide_incremental_correctness(xor.reducer, range(8), xor.values)
    assert verdict.holds and verdict.decided
    bad = ReducerType(0, lambda a, v: (a + v) % 3, lambda a, v: (a - 2 * v) % 3)
    failure = decide_incremental_correctness(bad, range(3), range(3))
    assert failure.counterexample == {
        "collection": {"k": Multiset.of(1)}, "delta": Delta(plus={}, minus={"k": Multiset.of(1)}),
        "key": "k", "recomputed": 0, "updated": 2}
    assert not check_incremental_correctness(bad, range(3), 1, 0).holds
    with pytest.raises(ValueError, match="pairwise commutative"):
        decide_incremental_correctness(builtin("affine_noncommutative").reducer, range(3), (0, 1))


@pytest.mark.spec("SKIP-DEF-11", evidence="exhaustive")
def test_def_11_decision_agrees_with_enumeration_on_tiny_carriers() -> None:
    """The two checkers of Def. 11 (bounded enumeration, exact decision) agree on every
    pairwise commutative reducer of the census, total and partial; failures found by
    the decision are genuine incorrect updates."""
    for partial in (False, True):
        for row in census(partial):
            if not row.commutative:
                continue
            decided = row.incremental_decided
            assert decided is not None and decided.holds == row.incremental.holds
            if decided.holds:
                assert decided.decided
            else:
                c = decided.counterexample or {}
                assert incorrect_update(row.reducer, c["collection"], c["delta"]) is not None


@pytest.mark.spec("SKIP-THM-2", evidence="exhaustive", part="1=>2")
@pytest.mark.spec("SKIP-THM-2", evidence="exhaustive", part="2=>1")
def test_theorem_2_on_every_reducer_of_tiny_carriers() -> None:
    """Every reducer with pairwise commutative ⊕ and ⊖ on Z_2 x Z_2 and Z_3 x Z_1
    (2387 of 2699): Def. 7 iff Def. 11, both decided, with both constructive
    witnesses checked on every ill-formed one."""
    rows = [r for r in census(partial=False) if r.commutative]
    assert len(rows) == 2387
    ill_formed = 0
    for row in rows:
        decided = row.incremental_decided
        assert decided is not None
        assert row.well_formed.holds == decided.holds, row.reducer
        if not row.well_formed.holds:
            ill_formed += 1
            law = well_formedness_failure(row.reducer, row.well_formed)
            assert law is not None and law.M is not None
            witness = theorem_2_witness(row.reducer, law.M, law.v)
            assert witness is not None and witness.recomputed != witness.updated
            c = decided.counterexample or {}
            failure = incorrect_update(row.reducer, c["collection"], c["delta"])
            assert failure is not None
            back = ill_formedness_witness(row.reducer, failure)
            assert back is not None and back.M is not None
            assert back.a == fold(row.reducer.add, row.reducer.initial, back.M)
            assert row.reducer.remove(row.reducer.add(back.a, back.v), back.v) != back.a
    assert 0 < ill_formed < len(rows)


@pytest.mark.spec("SKIP-THM-2", evidence="property", part="1=>2")
@given(tiny_reducers())
def test_well_formed_implies_incrementally_correct(t: TinyReducer) -> None:
    """1 => 2, and its contrapositive constructively: an incorrect update yields the
    reachable accumulator where Def. 7 fails. Outside the hypotheses (⊕ or ⊖ not
    pairwise commutative) the implication may fail, but a witness, when one is
    returned, is still a genuine failure of Def. 7."""
    R = t.reducer
    v = verdicts(t)
    event(f"{t.family}: commutative={v['commutative']}, well-formed={v['well_formed']}")
    if v["commutative"] and v["well_formed"]:
        assert v["incremental"]
    if not v["incremental"]:
        failure = check_incremental_correctness(R, t.values, t.n + 1, 1).counterexample or {}
        found = incorrect_update(R, failure["collection"], failure["delta"])
        assert found is not None
        law = ill_formedness_witness(R, found)
        if v["commutative"]:
            assert law is not None
        if law is not None:
            assert law.M is not None and law.a == fold(R.add, R.initial, law.M)
            assert R.remove(R.add(law.a, law.v), law.v) != law.a


@pytest.mark.spec("SKIP-THM-2", evidence="property", part="2=>1")
@given(tiny_reducers())
def test_incrementally_correct_implies_well_formed(t: TinyReducer) -> None:
    """2 => 1 by contraposition, constructively: an ill-formed reducer gets the proof's
    collection and delta, on which update differs from recomputation (within the
    hypotheses; outside them the witness may not expose it, and then none is returned)."""
    R = t.reducer
    v = verdicts(t)
    event(f"{t.family}: commutative={v['commutative']}, incremental={v['incremental']}")
    if v["commutative"] and v["incremental"]:
        assert v["well_formed"]
    if not v["well_formed"]:
        law = well_formedness_failure(R, check_well_formed(R, t.values, t.n))
        assert law is not None and law.M is not None
        witness = theorem_2_witness(R, law.M, law.v)
        if v["commutative"]:
            assert witness is not None
            C, delta, k = witness.collection, witness.delta, witness.key
            assert reduce_at(R, C, k) == R.add(law.a, law.v)
            assert witness.updated == update(R, reduce_at(R, C, k), delta, k) == law.result
            assert witness.recomputed == law.a != witness.updated
        if witness is not None:
            assert not v["incremental"]
            assert witness.recomputed != witness.updated


@pytest.mark.spec("SKIP-THM-2", evidence="example", part="2=>1")
def test_theorem_2_witness_for_sum_bad_remove() -> None:
    R = builtin("sum_bad_remove").reducer
    law = well_formedness_failure(R, check_well_formed(R, (0, 1, 2), 3))
    assert law is not None and law.M is not None
    witness = theorem_2_witness(R, law.M, law.v)
    assert witness is not None
    assert witness.collection == {"k": Multiset.of(1)}
    assert witness.delta == Delta(plus={}, minus={"k": Multiset.of(1)})
    assert (witness.recomputed, witness.updated) == (0, -1)


@pytest.mark.spec("SKIP-THM-2", evidence="example", part="1=>2")
def test_theorem_2_witness_back_from_an_incorrect_update() -> None:
    R = builtin("sum_bad_remove").reducer
    C = {"k": Multiset.of(3, 5, 7)}
    delta = Delta(plus={"k": Multiset.of(2)}, minus={"k": Multiset.of(5)})
    failure = incorrect_update(R, C, delta)
    assert failure is not None and (failure.recomputed, failure.updated) == (12, 7)
    law = ill_formedness_witness(R, failure)
    assert law == type(law)(Multiset.of(3, 7), 10, 5, 5)  # (10 + 5) - 2*5 = 5 ≠ 10


@pytest.mark.spec("SKIP-THM-2-DRAFT", evidence="exhaustive", part="1=>2")
@pytest.mark.spec("SKIP-THM-2-DRAFT", evidence="exhaustive", part="2=>1")
def test_draft_theorem_2_on_tiny_carriers() -> None:
    """1 => 2 holds on every commutative reducer of the census; 2 => 1 fails on 315."""
    rows = [r for r in census(partial=False) if r.commutative]
    assert all(r.incremental.holds for r in rows if r.globally)
    refuting = [r for r in rows if r.incremental.holds and not r.globally]
    assert len(refuting) == 315


@pytest.mark.spec("SKIP-THM-2-DRAFT", evidence="property", part="1=>2")
@given(tiny_reducers())
def test_draft_theorem_2_forward(t: TinyReducer) -> None:
    """1 => 2 of the draft: a globally well-formed reducer (within Def. 6) is
    well-formed in the sense of Def. 7, hence incrementally correct."""
    v = verdicts(t)
    event(f"{t.family}: commutative={v['commutative']}, globally={v['globally']}")
    if v["commutative"] and v["globally"]:
        assert v["incremental"]
        assert v["well_formed"]


@pytest.mark.spec("SKIP-THM-2-DRAFT", evidence="example", part="2=>1")
@pytest.mark.spec("SKIP-REM-3-DRAFT", evidence="example")
def test_draft_theorem_2_converse_fails_on_sum_monus_int() -> None:
    b = builtin("sum_monus_int")
    assert check_incremental_correctness(b.reducer, b.values, 4, 2).holds
    assert not check_globally_well_formed(b.reducer, b.accumulators, b.values).holds


@pytest.mark.spec("SKIP-CLAIM-THM-2-WITHOUT-COMMUTATIVITY", evidence="example")
def test_inverse_without_commutativity_is_not_enough() -> None:
    b = builtin("affine_noncommutative")
    R = b.reducer
    assert check_globally_well_formed(R, range(-20, 21), range(-5, 6)).holds
    failure = incorrect_update(R, {"k": Multiset.of(0, 1)}, Delta(minus={"k": Multiset.of(0)}))
    assert failure is not None and (failure.recomputed, failure.updated) == (1, 0)


@pytest.mark.spec("SKIP-CLAIM-THM-2-WITHOUT-COMMUTATIVITY", evidence="exhaustive")
def test_inverse_without_commutativity_on_permutations_of_z3() -> None:
    """On a finite carrier a global inverse makes every ⊕ v a permutation, so the
    smallest examples act by S_3 on Z_3: every ι and every pair of permutations
    (⊕ 0, ⊕ 1) with ⊖ v = (⊕ v)⁻¹ (108 reducers). All are globally well-formed;
    exactly the non-commuting pairs are not incrementally correct."""
    from itertools import permutations

    perms = list(permutations(range(3)))
    failing = 0
    for p0, p1 in product(perms, repeat=2):
        add = Table(tuple((p0[a], p1[a]) for a in range(3)))
        inverse = [{p[a]: a for a in range(3)} for p in (p0, p1)]
        remove = Table(tuple((inverse[0][a], inverse[1][a]) for a in range(3)))
        for initial in range(3):
            R = ReducerType(initial, add, remove)
            assert check_globally_well_formed(R, range(3), range(2), exhaustive=True).holds
            commutative = check_reducer(R, range(3), range(2), exhaustive=True).holds
            correct = check_incremental_correctness(R, range(2), 4, 1).holds
            assert correct == commutative, (p0, p1, initial)
            failing += not correct
    assert failing > 0


# --- Remarks 1 and 3 ------------------------------------------------------------------------


@pytest.mark.spec("SKIP-REM-1", evidence="exhaustive")
def test_remove_add_commutativity_for_every_group_action_of_small_cyclic_groups() -> None:
    """Every action of Z_n on itself by a map V = Z_m -> Z_n (a ⊕ v = a + s(v),
    ⊖ its inverse), n <= 4, m <= 3."""
    for n in range(1, 5):
        for m in range(1, 4):
            for shifts in product(range(n), repeat=m):
                R = ReducerType(0, lambda a, v, s=shifts, n=n: (a + s[v]) % n,
                                lambda a, v, s=shifts, n=n: (a - s[v]) % n)
                assert check_remove_add_commutative(R, range(n), range(m)).holds


@pytest.mark.spec("SKIP-REM-1", evidence="example")
@pytest.mark.spec("SKIP-CLAIM-REM-1-PRACTICAL", evidence="example")
def test_remove_add_commutativity_holds_for_groups_but_not_for_every_practical_reducer() -> None:
    for name in ("sum", "count", "xor", "product_nonzero_rationals", "sum_pairs"):
        b = builtin(name)
        assert check_remove_add_commutative(b.reducer, b.accumulators, b.values).holds, name
    sorted_min = builtin("min_sorted")
    failure = check_remove_add_commutative(sorted_min.reducer, sorted_min.accumulators,
                                           sorted_min.values)
    assert failure.counterexample == {"a": Multiset(), "v1": 1, "v2": 1,
                                      "remove_then_add": Multiset.of(1),
                                      "add_then_remove": Multiset()}
    monus = builtin("sum_monus_int")
    assert not check_remove_add_commutative(monus.reducer, monus.accumulators, monus.values).holds
    # ... and both are well-formed and incrementally correct
    for b in (sorted_min, monus):
        assert check_well_formed(b.reducer, b.values, 3).holds
        assert check_incremental_correctness(b.reducer, b.values, 3, 2).holds


@pytest.mark.spec("SKIP-CLAIM-REM-1-PRACTICAL", evidence="exhaustive")
def test_well_formed_reducers_without_remove_add_commutativity_on_tiny_carriers() -> None:
    rows = [r for r in census(partial=False) if r.commutative and r.incremental.holds]
    breaking = [r for r in rows if not check_remove_add_commutative(
        r.reducer, range(r.n), range(r.m)).holds]
    assert breaking and len(breaking) < len(rows)


@pytest.mark.spec("SKIP-REM-3", evidence="example")
def test_every_sampled_accumulator_of_sum_and_product_is_reachable() -> None:
    for name, depth in (("sum", 2), ("product_nonzero_rationals", 5)):
        b = builtin(name)
        reach = reachable_accumulators(b.reducer, b.values, depth).witnesses
        assert set(b.accumulators) <= set(reach), name
        assert (check_well_formed(b.reducer, b.values, depth).holds
                == check_globally_well_formed(b.reducer, b.accumulators, b.values).holds)
    product = reachable_accumulators(builtin("product_nonzero_rationals").reducer,
                                     builtin("product_nonzero_rationals").values, 5).witnesses
    assert product[Fraction(-3, 4)] == Multiset.of(Fraction(-2), Fraction(1, 2), Fraction(1, 2),
                                                   Fraction(1, 2), Fraction(3))


# --- SKIP-DEC-WELL-FORMED: which of the three notions "well-formed" means -------------------


@pytest.mark.spec("SKIP-DEC-WELL-FORMED", evidence="example")
def test_only_def_7_agrees_with_incremental_correctness_on_the_separating_builtins() -> None:
    """sum_monus_int: Def. 7 and Def. 11 hold, the global law and the contract fail at
    a = -2 (unreachable); sum_monus_nat: only the contract fails (add(remove(0, 1), 1) = 1)."""
    expected = {  # name -> (Def. 7, global, Skip contract, Def. 11)
        "sum_monus_int": (True, False, False, True),
        "sum_monus_nat": (True, True, False, True),
        "sum_bad_remove": (False, False, False, False),
    }
    for name, row in expected.items():
        b = builtin(name)
        R = b.reducer
        got = (check_well_formed(R, b.values, 3).holds,
               check_globally_well_formed(R, b.accumulators, b.values).holds,
               check_skipdoc_well_formed(R, b.accumulators, b.values).holds,
               check_incremental_correctness(R, b.values, 3, 2).holds)
        assert got == row, name


@pytest.mark.spec("SKIP-DEC-WELL-FORMED", evidence="exhaustive")
def test_only_def_7_agrees_with_incremental_correctness_on_tiny_carriers() -> None:
    """Every pairwise commutative reducer of the census (2387 total, 6004 with a declining
    ⊖), Def. 11 decided: Def. 7 never disagrees with it; the global law disagrees on
    315 total and 986 partial reducers, Skip's contract on 315 and 1517."""
    disagreements = []
    for partial in (False, True):
        rows = [r for r in census(partial) if r.commutative]
        correct = [r.incremental_decided is not None and r.incremental_decided.holds for r in rows]
        disagreements.append(tuple(
            sum(notion != c for notion, c in zip(verdict, correct, strict=True))
            for verdict in ([r.well_formed.holds for r in rows], [r.globally for r in rows],
                            [r.skipdoc for r in rows])))
    assert disagreements == [(0, 315, 315), (0, 986, 1517)]
