"""The report for people: a short table, the counterexamples, the Theorem 2 witness,
what was searched, and the exit status; and the --json format's shape."""

from __future__ import annotations

import json

import pytest

from check_reducer.cli import main
from tests.check_reducer.gallery import ROOT, valid


def test_text_report_of_a_broken_reducer(capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    assert main(["examples/reducers/broken.py:sum_remove_adds", "--no-symbolic",
                 "--examples", "30"]) == 1
    text = capsys.readouterr().out
    table = text.split("Counterexamples")[0]
    assert "SKIP-DEF-11         incremental correctness (update = recompute)" in table
    assert table.count("FAILS") == 4 and table.count("holds within search") == 3
    # the Theorem 2 witness: C(k) = {0, 1}, remove 1: recompute 0, incremental 2; the key
    # keeps 0, so it stays in the view (SKIP-DEC-EMPTIED-KEY)
    assert "C      = {'k': {|0, 1|}}" in text and "Δ⁻     = {'k': {|1|}}" in text
    assert "reduce_R(C • Δ)(k)             = 0" in text
    assert "update_R(reduce_R(C)(k), Δ, k) = 2" in text
    assert "What was searched (finding no counterexample is not a proof)" in text
    assert "  verdict:      NOT WELL-FORMED: SKIP-DEF-11 [def11] fails where a runtime goes" in text
    # the global law and Skip's contract fail at a = 0 (initial), removing a value it holds:
    # a runtime meets them there, so they count too (no warnings)
    assert text.rstrip().endswith(
        "exit status 1: not well-formed: a counterexample a runtime meets was found (SKIP-DEF-11 "
        "[def11])")


def test_json_report_shape(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    assert main(["examples/reducers/xor.py:xor", "--values", "int[0..7]", "--acc", "int[0..7]",
                 "--no-symbolic", "--examples", "30", "--json"]) == 0
    report = valid(json.loads(capsys.readouterr().out))
    assert report["format"] == "incspec-check-reducer/2" and report["exit_status"] == 0
    assert report["verdict"] == "well-formed" and report["warnings"] == [] and not report["strict"]
    assert [(line["id"], line["key"]) for line in report["lines"]] == [
        ("SKIP-DEF-2", "def2-add"), ("SKIP-DEF-2", "def2-remove"), ("SKIP-DEF-7", "def7"),
        ("SKIP-DEF-7-GLOBAL", "def7-global"), ("SKIP-DEF-7-SKIPDOC", "def7-skipdoc"),
        ("SKIP-DEF-11", "def11"), ("SKIP-DEF-6", "pure")]
    engines = report["lines"][0]["engines"]
    assert [e["engine"] for e in engines] == ["exhaustive", "hypothesis"]
    assert engines[0]["decided"] and engines[0]["cases"] == 512
    assert report["theorem2_witness"] is None
    # finite domains closed under ⊕ and ⊖: the reference's decision procedure decides Def. 11
    (def11,) = [line for line in report["lines"] if line["key"] == "def11"]
    assert def11["decided"]
    assert "decide_incremental_correctness" in def11["engines"][0]["searched"]


@pytest.mark.parametrize("argv", [
    ["examples/reducers/broken.py:sum_remove_adds"],  # fails, with a Theorem 2 witness
    ["examples/reducers/min_max.py:Min", "--values", "float", "--acc", "float[inf]"],  # partial
    ["examples/reducers/nope.py:r"],  # a usage error
])
def test_every_json_report_follows_the_schema(argv: list[str], capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    main(argv + ["--no-symbolic", "--examples", "30", "--json"])
    valid(json.loads(capsys.readouterr().out))


def test_text_report_labels_the_tolerance_mode_as_weaker(capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    assert main(["examples/reducers/float_sum.py:float_sum", "--values", "float[-10.0..10.0]",
                 "--acc", "float[-10.0..10.0]", "--rel-tol", "1e-9", "--abs-tol", "1e-9",
                 "--no-symbolic", "--examples", "30"]) == 0
    text = capsys.readouterr().out
    assert "equality:     TOLERANCE MODE (weaker than the spec's =)" in text
    table = text.split("What was searched")[0]
    assert table.count("holds within search UP TO TOLERANCE") == 6  # the six laws
    assert table.count("holds (decided)") + table.count("holds within search\n") == 1  # pure: exact
    assert text.rstrip().endswith(
        "exit status 0: well-formed on reachable accumulators and pure, within the search, UP TO "
        "TOLERANCE (weaker than the spec's =)")


def test_a_remove_that_always_declines_is_reported_as_vacuous(
        capsys: pytest.CaptureFixture[str]) -> None:
    # correct (the runtime always recomputes) but never exercised: the report must say so
    target = f"{ROOT / 'tests' / 'check_reducer' / 'fixtures' / 'bad_reducers.py'}:remove_forgot_return"
    argv = [target, "--values", "int[0..2]", "--no-symbolic", "--examples", "20"]
    assert main(argv + ["--json"]) == 0
    lines = {line["key"]: line for line in valid(json.loads(capsys.readouterr().out))["lines"]}
    for key in ("def2-remove", "def7", "def7-global", "def7-skipdoc"):
        assert any(text.startswith("Vacuous") for text in lines[key]["explanation"]), key
    assert not any(text.startswith("Vacuous") for text in lines["def2-add"]["explanation"])
    assert main(argv) == 0
    table = capsys.readouterr().out.split("What was searched")[0]
    assert table.count("holds within search VACUOUSLY (all ") == 4
    assert table.count("is a return statement missing?") == 1  # shown once for the four lines


# --- messages -----------------------------------------------------------------------------

MISBEHAVING = "examples/reducers/misbehaving.py"
QUICK = ["--no-symbolic", "--examples", "30"]


def text_of(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    main(argv + QUICK)
    return capsys.readouterr().out


def test_a_raise_names_the_function_and_its_arguments(capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    text = text_of([f"{MISBEHAVING}:raises_on_three", "--values", "int[0..3]"], capsys)
    assert "RAISED in remove" in text.split("Counterexamples")[0]
    assert "remove(3, 3) raised ValueError: three is not supported" in text  # SKIP-DEF-7's
    assert "remove raised on an instance a runtime meets: fix remove." in text
    # a note already shown under another line is referred to, not counted ("2 more as above")
    assert "the notes under SKIP-DEF-2 [def2-remove] above apply here too" in text
    assert "Witness: the counterexample under SKIP-DEF-11 [def11] above" in text
    assert "more as above" not in text


def test_a_hang_is_listed_as_hung(capsys: pytest.CaptureFixture[str],
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    text = text_of([f"{MISBEHAVING}:hangs_on_two", "--values", "int[0..3]",
                    "--call-timeout", "0.5"], capsys)
    table = text.split("Counterexamples")[0]
    assert table.count("HUNG in remove") == 6 and "RAISED" not in table
    assert "remove(2, 2) HUNG: no answer within the per-call time limit of 0.5 s" in text
    searched = text.split("What was searched")[1]
    assert "HUNG" in searched and "RAISED" not in searched


def test_a_raise_only_where_no_runtime_goes_suggests_declining(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    text = text_of(["examples/reducers/containers.py:sorted_list_raises"], capsys)
    assert "remove([], 0) raised ValueError" in text
    assert "removing {|0, 0|} from it is not a valid delta within the search" in text
    assert ("make remove return None there (decline: the runtime recomputes the key) instead "
            "of raising") in text
    assert "Narrowing the domains cannot remove this instance: it is at a = initial" in text
    assert "narrow the domain" not in text


def test_the_report_explains_the_def11_notation_and_how_each_counterexample_was_chosen(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    text = text_of(["examples/reducers/broken.py:sum_remove_adds"], capsys)
    assert "(C(k) = M0 ⊎ D, Δ⁻(k) = D, Δ⁺(k) = P: M0 stays, D is removed, P is added)" in text
    assert "(the first in the exhaustive engine's smallest-first order)" in text
    assert "minimal" not in text
    # Hypothesis alone: its finds are shrunk, and called so
    text = text_of(["examples/reducers/broken.py:sum_remove_adds", "--engines", "hypothesis"],
                   capsys)
    assert "(shrunk by Hypothesis)" in text and "minimal" not in text


def test_the_theorem2_heading_only_under_its_hypothesis(capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    text = text_of(["examples/reducers/broken.py:sum_remove_adds"], capsys)
    assert "Theorem 2 witness (SKIP-THM-2;" in text  # ⊕ and ⊖ commute: Thm 2 applies
    text = text_of(["examples/reducers/containers.py:append_list"], capsys)  # ⊕ does not commute
    assert "Theorem 2 witness" not in text and "and back (1 ⇒ 2)" not in text
    assert "An incorrect update (" in text and "SKIP-THM-2 does not apply" in text


def test_a_remove_that_declines_everywhere_is_not_said_to_decline_on_some(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    text = text_of(["examples/reducers/partial.py:always_recompute"], capsys)
    assert "remove declined on every instance searched" in text
    assert "declines on some inputs" not in text
    text = text_of(["examples/reducers/partial.py:nonneg_sum"], capsys)
    assert "remove declines on some inputs" in text


# --- the exit status is the paper's verdict; --strict counts the warnings -------------------


def test_the_stronger_laws_are_warnings_unless_strict(capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # incrementally correct; the global law and Skip's contract fail at a = -1, which no fold
    # of non-negative values reaches
    monkeypatch.chdir(ROOT)
    argv = ["examples/reducers/stronger_laws.py:floor_at_zero", "--values", "int[0..3]",
            "--acc", "int", *QUICK]
    assert main(argv + ["--json"]) == 0
    report = valid(json.loads(capsys.readouterr().out))
    assert report["verdict"] == "well-formed" and report["witness_line"] is None
    assert report["warnings"] == ["def7-global", "def7-skipdoc"]
    lines = {line["key"]: line for line in report["lines"]}
    assert not lines["def7-global"]["counts"] and lines["def7-global"]["met"] is not True
    assert lines["def7"]["counts"] and lines["def7"]["met"] is None  # holds: no instance shown
    assert main(argv + ["--strict", "--json"]) == 1
    report = valid(json.loads(capsys.readouterr().out))
    assert report["strict"] and report["verdict"] == "ill-formed" and report["warnings"] == []
    assert report["witness_line"] == "def7-global"
    assert main(argv + ["--strict"]) == 1
    text = capsys.readouterr().out
    assert "  verdict:      NOT WELL-FORMED under --strict: SKIP-DEF-7-GLOBAL [def7-global]" in text
    assert "(--strict: every line counts)" in text


def test_a_stronger_law_failing_where_a_runtime_goes_counts(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # the sign bug breaks the global law at the reachable a = 0 (initial): there it says what
    # SKIP-DEF-7 says, and counts; Skip's contract removes 1 from a collection folding to 0
    monkeypatch.chdir(ROOT)
    assert main(["examples/reducers/broken.py:sum_remove_adds", *QUICK, "--json"]) == 1
    report = valid(json.loads(capsys.readouterr().out))
    lines = {line["key"]: line for line in report["lines"]}
    assert lines["def7-global"]["met"] is True and lines["def7-global"]["counts"]
    assert report["witness_line"] == "def11" and report["theorem2_witness"] is not None
