"""Value semantics: a reducer that updates its argument in place must not be reported
holding everywhere (both sides of each law would be one object). add/remove are called
on copies, a change of an argument is a finding of its own (the ``pure`` line,
SKIP-DEF-6: ⊕, ⊖ are functions A × V → A) with the values before the call, and every
law is judged as for the copying reducer."""

from __future__ import annotations

import json
from typing import Any

import pytest

from check_reducer.cli import main
from check_reducer.domains import parse_domain
from check_reducer.laws import LAWS, Equality
from check_reducer.purity import Guard, copy_in, freeze, guarded, same_value
from check_reducer.search import Bounds, Problem
from check_reducer.symbolic import module_source
from reference.algebra.zset import ZSet
from reference.reduce import Reducer
from tests.check_reducer.gallery import GALLERY, valid

MUTATING = f"{GALLERY / 'mutating.py'}:mutating_histogram"
QUICK = ["--no-symbolic", "--examples", "50", "--json"]


def lines_of(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    status = main(argv)
    report = valid(json.loads(capsys.readouterr().out))
    assert report["error"] is None
    return status, {line["key"]: line for line in report["lines"]}


def test_copies_and_structural_equality() -> None:
    h: dict[int, int] = {0: 1}
    assert copy_in(h) == h and copy_in(h) is not h
    assert copy_in(3) == 3 and copy_in(ZSet({1: 1})) is not None
    t = (1, "a", ZSet({1: 1}))
    assert copy_in(t) is t  # immutable: not copied
    assert same_value({0: 1}, {0: 1}) and not same_value({0: 1}, {0: 2})

    class Plain:  # identity equality: compared by state
        def __init__(self, x: int) -> None:
            self.x = x
    assert same_value(Plain(1), Plain(1)) and not same_value(Plain(1), Plain(2))
    assert freeze({0: [1, 2]}) == freeze({0: [1, 2]}) and hash(freeze({0: {1}})) is not None


def test_the_guard_keeps_the_caller_s_value_and_records_the_change() -> None:
    def bump(h: dict[int, int], v: int) -> dict[int, int]:
        h[v] = h.get(v, 0) + 1
        return h
    guard = Guard(bump, bump)
    start: dict[int, int] = {}
    assert guard.add(start, 0) == {0: 1}
    assert start == {}  # the caller's value is untouched
    assert guard.mutation is not None
    assert guard.mutation.call.function == "add" and guard.mutation.before == {}
    assert guard.mutation.after == {0: 1}
    R = guarded(Reducer({}, bump, bump))
    assert guarded(R) is R  # idempotent


def test_a_mutating_histogram_is_not_reported_holding(capsys: pytest.CaptureFixture[str]) -> None:
    """A histogram updated in place: under value semantics remove forgets duplicates, and Def. 7 fails at
    M = {0}, v = 0; the values shown are the ones before each call."""
    status, lines = lines_of([MUTATING, *QUICK], capsys)
    assert status == 1
    def7 = lines["def7"]
    assert def7["status"] == "fails"
    assert def7["counterexample"]["args"] == {"M": "{|0|}", "v": "0"}
    assert def7["counterexample"]["sides"] == {"(fold(ι,M) ⊕ v) ⊖ v": "{}", "fold(ι,M)": "{0: 1}"}
    pure = lines["pure"]
    assert pure["status"] == "fails" and pure["id"] == "SKIP-DEF-6"
    assert pure["counterexample"]["args"] == {"a": "{}", "v": "0"}
    assert pure["counterexample"]["sides"] == {"accum before add(accum, v)": "{}",
                                               "accum after add(accum, v)": "{0: 1}"}
    assert any("changed an argument in place" in text for text in pure["explanation"])


@pytest.mark.parametrize("engine", ["exhaustive", "hypothesis"])
def test_each_engine_alone_finds_the_failures(engine: str, capsys: pytest.CaptureFixture[str]) -> None:
    # each engine alone, Hypothesis included, finds Def. 7 and Def. 11 failing (not holding)
    status, lines = lines_of([MUTATING, "--engines", engine, "--examples", "100", "--json"], capsys)
    assert status == 1
    for key in ("def7", "def11", "pure"):
        assert lines[key]["status"] == "fails", key


def test_a_mutation_seen_only_while_searching_another_law_is_reported(
        capsys: pytest.CaptureFixture[str], tmp_path: Any) -> None:
    # the declared accumulators hold only {}, where add makes a new dict; add updates a
    # non-empty dict in place, which only the folds of SKIP-DEF-7 and -11 reach
    source = tmp_path / "late.py"
    source.write_text(
        "def _add(h: dict[int, int], v: int) -> dict[int, int]:\n"
        "    if not h:\n"
        "        return {v: 1}\n"
        "    h[v] = h.get(v, 0) + 1\n"
        "    return h\n"
        "def _remove(h: dict[int, int], v: int) -> dict[int, int]:\n"
        "    out = dict(h)\n"
        "    out[v] = out.get(v, 0) - 1\n"
        "    return {k: n for k, n in out.items() if n}\n"
        "class Late:\n"
        "    initial: dict[int, int] = {}\n"
        "    accumulators = [{}]\n"
        "    add = staticmethod(_add)\n"
        "    remove = staticmethod(_remove)\n")
    # (the exhaustive engine searches the accumulators folds reach first, and finds it there
    # itself; Hypothesis draws from the declared accumulators only)
    status, lines = lines_of([f"{source}:Late", "--values", "int[0..1]", "--engines",
                              "hypothesis", *QUICK], capsys)
    assert status == 1
    assert lines["pure"]["status"] == "fails" and lines["pure"]["counts"]
    assert lines["pure"]["found_by"] == ["observed while searching the other laws"]
    assert lines["pure"]["counterexample"]["args"]["a"] != "{}"
    status, lines = lines_of([f"{source}:Late", "--values", "int[0..1]", *QUICK], capsys)
    assert status == 1 and lines["pure"]["found_by"] == ["exhaustive"]
    assert lines["pure"]["counterexample"]["args"]["a"] != "{}"


def test_crosshair_checks_the_copying_reducer_too() -> None:
    R = guarded(Reducer(0, int.__add__, int.__sub__))
    p = Problem(R, parse_domain("int"), parse_domain("int"), Equality(), Bounds())
    assert "R = guarded(load_reducer(" in module_source("pkg.mod:r", p, LAWS)
