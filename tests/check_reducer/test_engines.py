"""The laws and the engines, in process: hand-computed instances, decisions on
finite domains, the float counterexample, partial reducers, the Theorem 2 witness."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from check_reducer import exhaustive, property_search
from check_reducer.domains import float_domain, int_domain, parse_domain
from check_reducer.laws import DECLINED, LAW_BY_KEY, Equality, Sides
from check_reducer.search import Bounds, Problem
from check_reducer.verdicts import all_verdicts, theorem2_witness
from reference.reduce import Reducer

SUM: Reducer[int, int] = Reducer(0, lambda a, v: a + v, lambda a, v: a - v, "sum")
SIGN_BUG: Reducer[int, int] = Reducer(0, lambda a, v: a + v, lambda a, v: a + v, "sign_bug")
FLOAT_SUM: Reducer[float, float] = Reducer(0.0, lambda a, v: a + v, lambda a, v: a - v, "fsum")
MIN: Reducer[float, float] = Reducer(math.inf, min, lambda a, v: None if v <= a else a, "min")


def problem(R: Reducer[Any, Any], values: str, accs: str, **eq: float) -> Problem:
    return Problem(R, parse_domain(values), parse_domain(accs), Equality(**eq), Bounds())


def test_law_sides_on_hand_computed_instances() -> None:
    # SKIP §6.1's worked example: C(k) = {3, 5, 7}, remove 5, add 2: both sides are 12
    outcome = LAW_BY_KEY["def11"].evaluate(SUM, {"M0": (3, 7), "D": (5,), "P": (2,)})
    assert outcome == Sides((("reduce_R(C • Δ)(k)", 12), ("update_R(reduce_R(C)(k), Δ, k)", 12)))
    # the sign bug: C(k) = {1}, remove 1: recompute 0, incremental (0 + 1) + 1 = 2
    outcome = LAW_BY_KEY["def11"].evaluate(SIGN_BUG, {"M0": (), "D": (1,), "P": ()})
    assert isinstance(outcome, Sides) and [v for _, v in outcome.values] == [0, 2]
    # (0.3 + 0.2) + 0.1 = 0.6 but (0.3 + 0.1) + 0.2 = 0.6000000000000001
    outcome = LAW_BY_KEY["def2-add"].evaluate(FLOAT_SUM, {"a": 0.3, "v1": 0.2, "v2": 0.1})
    assert isinstance(outcome, Sides)
    assert [v for _, v in outcome.values] == [0.6, 0.6000000000000001]
    assert not Equality().holds(outcome)
    assert Equality(rel_tol=1e-9).holds(outcome)  # the weaker tolerance mode accepts it
    # a declining remove makes the instance vacuous
    assert LAW_BY_KEY["def7"].evaluate(MIN, {"M": (3.0,), "v": 1.0}) == DECLINED


def test_exhaustive_decides_on_finite_domains() -> None:
    xor: Reducer[int, int] = Reducer(0, lambda a, v: a ^ v, lambda a, v: a ^ v, "xor")
    results = {r.law: r for r in exhaustive.run(problem(xor, "int[0..7]", "int[0..7]"))}
    assert all(r.status == "holds" for r in results.values())
    assert results["def2-add"].decided and results["def2-add"].cases == 8 * 8 * 8
    assert results["def7"].decided  # the 8 reachable accumulators × 8 values
    assert results["def7"].cases == 64
    assert results["def11"].decided  # by the reference's decide_incremental_correctness
    # the decision procedure refutes too: a sign bug on a finite carrier closed under ⊕ and ⊖
    bad: Reducer[int, int] = Reducer(0, lambda a, v: (a + v) % 4, lambda a, v: (a + v) % 4)
    refuted = exhaustive.run(problem(bad, "int[0..3]", "int[0..3]"),
                             (LAW_BY_KEY["def11"],))[0]
    assert refuted.status == "fails" and refuted.finding is not None
    assert "decide_incremental_correctness" in refuted.searched
    recomputed, incremental = refuted.finding.sides.values()  # type: ignore[union-attr]
    assert recomputed != incremental
    # over an infinite domain the same engine only samples: never decided
    sampled = {r.law: r for r in exhaustive.run(problem(SUM, "int", "int"))}
    assert not any(r.decided for r in sampled.values())


def test_exhaustive_finds_the_float_counterexample_deterministically() -> None:
    p = problem(FLOAT_SUM, "float", "float")
    result = exhaustive.check_law(LAW_BY_KEY["def2-add"], p)
    assert result.status == "fails" and result.finding is not None and result.finding.sides
    lhs, rhs = result.finding.sides.values()
    assert lhs != rhs and math.isclose(lhs, rhs)
    assert set(result.finding.args.values()) <= set(float_domain().probe)


def test_hypothesis_finds_float_non_associativity_and_shrinks_it() -> None:
    p = problem(FLOAT_SUM, "float", "float")
    result = property_search.check_law(LAW_BY_KEY["def2-add"], p, examples=200, seed=0)
    assert result.status == "fails" and result.finding is not None and result.finding.sides
    a, v1, v2 = (result.finding.args[k] for k in ("a", "v1", "v2"))
    assert (a + v1) + v2 != (a + v2) + v1
    assert all(math.isfinite(x) for x in (a, v1, v2))  # the default float domain has no NaN/inf


def test_float_failure_is_explained_by_exact_arithmetic() -> None:
    p = problem(FLOAT_SUM, "float", "float")
    lines = all_verdicts(p, exhaustive.run(p))
    explanation = " ".join(lines["def2-add"].explanation)
    assert "float rounding" in explanation and "exact rationals" in explanation
    assert "only by rounding" in explanation
    # and in exact arithmetic the same reducer is fine: the sum over rationals holds
    q = Problem(Reducer(Fraction(0), FLOAT_SUM.add, FLOAT_SUM.remove), parse_domain("fraction"),
                parse_domain("fraction"), Equality(), Bounds())
    assert all(r.status == "holds" for r in exhaustive.run(q))


def test_partial_min_holds_on_every_answer_it_gives_and_declines_others() -> None:
    p = problem(MIN, "float", "float[inf]")
    results = exhaustive.run(p) + property_search.run(p, examples=100, seed=1)
    assert all(r.status == "holds" for r in results)
    assert all(r.declined > 0 for r in results if r.law not in ("def2-add", "pure"))


def test_theorem2_witness_is_built_from_a_def7_counterexample() -> None:
    # no SKIP-DEF-11 search ran: the witness comes from the proof's construction
    p = problem(SIGN_BUG, "int[0..2]", "int")
    results = [exhaustive.check_law(LAW_BY_KEY[k], p) for k in ("def2-add", "def7")]
    lines = all_verdicts(p, results)
    w = theorem2_witness(p, lines)
    assert w is not None and "proof of SKIP-THM-2" in w.source
    M, v = lines["def7"].finding.args["M"], lines["def7"].finding.args["v"]  # type: ignore[union-attr]
    assert w.args == {"M0": tuple(M), "D": (v,), "P": ()}
    assert w.recomputed != w.incremental


def test_stronger_law_explanation_shows_the_unreachable_accumulator() -> None:
    floor: Reducer[int, int] = Reducer(0, lambda a, v: max(a, 0) + v, lambda a, v: a - v)
    p = problem(floor, "int[0..3]", "int")
    lines = all_verdicts(p, exhaustive.run(p))
    assert lines["def11"].status == "holds" and lines["def7"].status == "holds"
    assert lines["def7-global"].status == "fails"
    a = lines["def7-global"].finding.args["a"]  # type: ignore[union-attr]
    assert a < 0
    text = " ".join(lines["def7-global"].explanation)
    assert "Incrementally correct within the search" in text and "was not reached by any fold" in text


def test_int_domain_bounds() -> None:
    d = int_domain(-2, 2)
    assert d.elements() == (0, 1, -1, 2, -2) and d.is_finite
    assert d.preconditions("x") == ["-2 <= x <= 2"]


def test_no_rounding_story_for_a_failure_that_is_not_rounding() -> None:
    # min over floats whose remove never declines: wrong in exact arithmetic too
    keep: Reducer[float, float] = Reducer(math.inf, min, lambda a, v: a, "min_keeps")
    p = problem(keep, "float", "float[inf]")
    lines = all_verdicts(p, exhaustive.run(p))
    assert lines["def11"].status == "fails"
    assert not any("rounding" in text for text in lines["def11"].explanation)
