"""The CrossHair engine: it finds the counterexample of a broken reducer, and finds
none for a well-formed one within its stated budget (which is not a proof).

Symbolic runs are marked ``symbolic``; each run is a few seconds per law."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from check_reducer.cli import main
from check_reducer.domains import parse_domain
from check_reducer.laws import LAW_BY_KEY, LAWS, Equality
from check_reducer.search import Bounds, Problem
from check_reducer.symbolic import module_source, parse_call, unsupported
from reference.reduce import Reducer
from tests.check_reducer.gallery import SYMBOLIC as NEEDLES

ROOT = Path(__file__).resolve().parents[2]
#: CrossHair's bound per law is CPU time (--crosshair-per-condition), the load-proof one; its
#: total bound is wall time, so it is set high enough never to bind before the per-law ones on
#: a busy machine (a law the total cuts off is "skipped", which these tests must not see). The
#: search's own --timeout (300 s by default) still bounds the run.
CROSSHAIR_TOTAL = ["--crosshair-total", "200"]
CROSSHAIR_ONLY = ["--engines", "crosshair", *CROSSHAIR_TOTAL]


def crosshair_lines(argv: list[str], capsys: pytest.CaptureFixture[str],
                    per_condition: float = 2.0) -> tuple[int, dict[str, Any]]:
    status = main(argv + CROSSHAIR_ONLY + ["--crosshair-per-condition", str(per_condition), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert report["error"] is None
    return status, {line["key"]: line for line in report["lines"]}


@pytest.mark.symbolic
def test_crosshair_finds_the_sign_bug(capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    status, lines = crosshair_lines(["examples/reducers/broken.py:sum_remove_adds"], capsys)
    assert status == 1
    # What the tool guarantees, whatever the machine's speed: every law fails, each
    # counterexample traces back to CrossHair (the only engine run; a law may be
    # refuted by CrossHair directly or through Theorem 2 from a law CrossHair refuted
    # first, depending on which search finishes first), and each was re-run
    # concretely: its sides are not all equal.
    for key in ("def7", "def7-global", "def7-skipdoc", "def11"):
        line = lines[key]
        assert line["status"] == "fails", key
        assert line["found_by"] and all(f.endswith("crosshair") for f in line["found_by"]), key
        sides = list(line["counterexample"]["sides"].values())
        assert len(sides) >= 2 and len(set(map(str, sides))) > 1, key
    for key in ("def2-add", "def2-remove"):
        assert lines[key]["status"] == "holds"


@pytest.mark.symbolic
def test_crosshair_finds_no_counterexample_for_the_integer_sum(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    # finding none is not a proof, whatever the budget: 1 s per law keeps the test short
    status, lines = crosshair_lines(["examples/reducers/sum_int.py:sum_int"], capsys, per_condition=1.0)
    assert status == 0
    for line in lines.values():
        (engine,) = line["engines"]
        assert engine["engine"] == "crosshair" and engine["status"] == "holds"
        assert "no counterexample found" in engine["searched"] and not line["decided"]


@pytest.mark.symbolic
@pytest.mark.parametrize("example", NEEDLES, ids=[e["target"] for e in NEEDLES])
def test_crosshair_finds_what_the_other_engines_miss(
        example: dict[str, Any], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    status = main([f"examples/reducers/{example['target']}", *example["args"], *CROSSHAIR_TOTAL, "--json"])
    report = json.loads(capsys.readouterr().out)
    assert {line["key"]: line["status"] for line in report["lines"]} == example["lines"]
    assert status == example["exit"]
    lines = {line["key"]: line for line in report["lines"]}
    assert lines["def7"]["found_by"] == ["crosshair"]  # exhaustive and Hypothesis ran, and missed
    assert {e["engine"] for e in lines["def7"]["engines"]} == {"exhaustive", "hypothesis", "crosshair"}
    assert any(by.startswith("SKIP-THM-2 from") or by == "crosshair"
               for by in lines["def11"]["found_by"])


def test_parse_call_reads_crosshair_counterexamples() -> None:
    law = LAW_BY_KEY["def7"]
    assert parse_call("law_def7([2, 1, -1], 0)", law) == {"M": (2, 1, -1), "v": 0}
    law = LAW_BY_KEY["def2-add"]
    assert parse_call('law_def2_add(float("inf"), -0.5, 1e16) (which returns None)', law) == {
        "a": float("inf"), "v1": -0.5, "v2": 1e16}


def test_generated_module_is_first_order_and_typed() -> None:
    R: Reducer[int, int] = Reducer(0, lambda a, v: a + v, lambda a, v: a - v)
    p = Problem(R, parse_domain("int[0..3]"), parse_domain("int"), Equality(), Bounds(bag=2))
    source = module_source("pkg.mod:r", p, LAWS)
    compile(source, "<generated>", "exec")
    assert "def law_def7(M: list[int], v: int) -> None:" in source
    assert "    assert len(M) <= 2" in source and "    assert 0 <= v <= 3" in source
    # a domain without a symbolic encoding is reported, not silently skipped
    q = Problem(R, parse_domain("fraction"), parse_domain("int"), Equality(), Bounds())
    assert unsupported(LAW_BY_KEY["def7"], q) == "M ranges over fraction, which has no symbolic encoding"


def test_no_engine_is_spent_on_a_law_already_refuted(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # every law of the float sum is refuted by the exhaustive engine's sample, which runs
    # first: Hypothesis and CrossHair are given none of them (they would only spend time)
    monkeypatch.chdir(ROOT)
    status = main(["examples/reducers/float_sum.py:float_sum", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert status == 1
    for line in report["lines"]:
        if line["key"] == "pure":  # floats are immutable: add/remove change no argument
            assert line["status"] == "holds"
            continue
        assert line["status"] == "fails" and line["found_by"] == ["exhaustive"]
        later = [e for e in line["engines"] if e["engine"] != "exhaustive"]
        assert [e["engine"] for e in later] == ["hypothesis", "crosshair"]
        for e in later:
            assert e["status"] == "skipped" and e["cases"] == 0
            assert e["searched"] == "not run: exhaustive already found a counterexample"
