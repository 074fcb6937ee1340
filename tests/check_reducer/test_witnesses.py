"""Witnesses a user can act on: reachability notes checked against the folds the search
made, a key that stays in the view, counterexamples at the accumulators folds reach, and
CrossHair's counterexamples shrunk."""

from __future__ import annotations

from typing import Any, NamedTuple

from check_reducer import exhaustive
from check_reducer.domains import parse_domain
from check_reducer.laws import LAW_BY_KEY, Equality
from check_reducer.reachability import Reach
from check_reducer.search import Bounds, EngineResult, Finding, Problem, evaluate
from check_reducer.shrink import shrink
from check_reducer.verdicts import all_verdicts, witness_line
from reference.reduce import Reducer


def problem(R: Reducer[Any, Any], values: str, accs: str) -> Problem:
    return Problem(R, parse_domain(values), parse_domain(accs), Equality(), Bounds())


def capped(a: int, v: int) -> int:
    return min(a + v, 1000)


CAPPED: Reducer[int, int] = Reducer(0, capped, lambda a, v: a - v, "capped_at_1000")


def test_a_note_never_calls_reachable_what_a_fold_reaches() -> None:
    # the cap at 1000: a = 1000 is fold(ι, {1000}); the value sample alone never gets there
    p = problem(CAPPED, "int", "int")
    reach = Reach(p)
    where = reach.standing(LAW_BY_KEY["def7-global"], {"a": 1000, "v": 1})
    assert where.met and "a = 1000 is reachable (fold_⊕(ι, {|1000|}))" in where.text
    # a fold the search made: 2000 needs two values the instance does not mention
    where = reach.standing(LAW_BY_KEY["def7-global"], {"a": 999, "v": 5})
    assert where.reachable and "fold_⊕(ι, {|999|})" in where.text
    reach.learn((600, 400, -1))
    assert reach.standing(LAW_BY_KEY["def7-global"], {"a": 999, "v": 0}).reachable
    # when no fold is found the note says what was searched, not that no runtime meets it
    dicts: Reducer[dict[int, int], int] = Reducer({}, lambda h, v: {**h, v: h.get(v, 0) + 1},
                                                  lambda h, v: h)
    where = Reach(problem(dicts, "int", "dict[int,int]")).standing(
        LAW_BY_KEY["def7-global"], {"a": {0: 0}, "v": 0})
    assert where.met is None and "never meets" not in where.text
    assert "was not reached by any fold" in where.text


def test_the_cap_at_1000_is_ill_formed_and_its_notes_agree() -> None:
    p = problem(CAPPED, "int[0..1500]", "int")
    lines = all_verdicts(p, exhaustive.run(p))
    assert lines["def7"].status == lines["def11"].status == "fails"
    assert lines["def7"].counts and not any(line.warning for line in lines.values()
                                            if line.status == "fails" and line.met)
    for line in lines.values():
        assert not any("is NOT reachable" in text and "1000" in text for text in line.explanation)


def test_a_witness_keeps_the_key_in_the_view() -> None:
    # remove adds: the smallest instance removes the only value (C = {1}, Δ⁻ = {1}), which
    # empties the key; the witness keeps a value, and update still differs from recompute
    sign_bug: Reducer[int, int] = Reducer(0, lambda a, v: a + v, lambda a, v: a + v)
    p = problem(sign_bug, "int", "int")
    lines = all_verdicts(p, exhaustive.run(p))
    args = lines["def11"].finding.args  # type: ignore[union-attr]
    assert args["M0"] or args["P"]  # C • Δ(k) is not empty
    assert "stays in the view" in lines["def11"].shown_by


def test_remove_commutativity_is_searched_at_folded_dicts() -> None:
    # remove forgets a key with count >= 2 only when another key is present: the domain's
    # sample of dicts never holds such a pair, the folds do
    def remove(h: dict[int, int], v: int) -> dict[int, int]:
        out = dict(h)
        if len(out) >= 2 and out.get(v, 0) >= 2:
            del out[v]
        elif v in out:
            out[v] -= 1
            out = {k: n for k, n in out.items() if n}
        return out

    R: Reducer[dict[int, int], int] = Reducer({}, lambda h, v: {**h, v: h.get(v, 0) + 1}, remove)
    p = problem(R, "int[0..1]", "dict[int,int]")
    result = exhaustive.check_law(LAW_BY_KEY["def2-remove"], p)
    assert result.status == "fails" and result.finding is not None
    assert result.finding.built_from is not None  # a = fold(ι, M) with v1, v2 in M
    lines = all_verdicts(p, exhaustive.run(p))
    assert lines["def2-remove"].met and lines["def2-remove"].counts


def test_a_counted_failure_of_commutativity_gets_a_runtime_witness() -> None:
    # SKIP-CLAIM-THM-2-WITHOUT-COMMUTATIVITY's reducer: ⊖ inverts ⊕ everywhere, but ⊕ does not
    # commute at the reachable a = 0. Say the SKIP-DEF-11 search missed it: the witness is
    # built from the SKIP-DEF-2 counterexample (the same values arriving in the other order)
    affine: Reducer[int, int] = Reducer(0, lambda a, v: 2 * a + v, lambda a, v: (a - v) // 2)
    p = problem(affine, "int[0..2]", "int")
    missed = EngineResult("exhaustive", "def11", "holds", "(pretend: nothing found)", cases=1)
    lines = all_verdicts(p, [*(exhaustive.check_law(LAW_BY_KEY[key], p) for key in (
        "def2-add", "def2-remove", "def7", "def7-global", "def7-skipdoc", "pure")), missed])
    assert lines["def7"].status == "holds"
    assert lines["def2-add"].counts and lines["def2-add"].met
    def11 = lines["def11"]
    assert def11.status == "fails" and def11.found_by == ["SKIP-DEF-2 [def2-add] counterexample"]
    assert def11.finding is not None and def11.finding.args["P"]  # the key stays in the view
    assert witness_line(lines) == "def11"


def test_crosshair_style_counterexamples_are_shrunk() -> None:
    # remove forgets any value holding ';': the solver's first find is a long odd string
    forgets: Reducer[str, str] = Reducer("", lambda a, v: a + v,
                                         lambda a, v: a if ";" in v else a[: len(a) - len(v)])
    p = problem(forgets, "str", "str")
    law = LAW_BY_KEY["def7"]
    status, finding = evaluate(p, law, {"M": ("\x02",), "v": "\x02\x00\x01;;<;"})
    assert status == "fails" and finding is not None
    small = shrink(p, law, finding)
    assert small.args == {"M": (), "v": ";"}
    assert evaluate(p, law, small.args)[0] == "fails"
    # a needle cannot be shrunk away: 40961 stays
    needle: Reducer[int, int] = Reducer(0, lambda a, v: a + v,
                                        lambda a, v: a if v == 40961 else a - v)
    q = problem(needle, "int", "int")
    found = Finding({"M": (7, -3), "v": 40961})
    assert shrink(q, law, found).args == {"M": (), "v": 40961}


class Pair(NamedTuple):
    n: int
    total: int


def test_a_plain_tuple_is_not_the_namedtuple_a_fold_builds() -> None:
    # (0, 0) == Pair(0, 0) in Python, but add reads acc.n: a plain tuple is no fold's result,
    # and the note must not call it initial
    R: Reducer[Pair, int] = Reducer(Pair(0, 0), lambda a, v: Pair(a.n + 1, a.total + v),
                                    lambda a, v: Pair(a.n - 1, a.total - v))
    p = problem(R, "int", "tuple[int,int]")
    where = Reach(p).standing(LAW_BY_KEY["def2-add"], {"a": (0, 0), "v1": 0, "v2": 1})
    assert not where.met and "initial" not in where.text
    assert Reach(p).standing(LAW_BY_KEY["def2-add"], {"a": Pair(0, 0), "v1": 0, "v2": 1}).met
