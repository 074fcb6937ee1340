"""Usage errors exit 2 with a clear message, never a raw traceback only: bad targets,
import failures, missing or unknown domains, a search killed at the total time limit (a
hang in native code) or out of memory. A reducer that raises or hangs (in Python) where a
runtime goes is not well-formed: exit 1, with the input that did it."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from check_reducer.cli import main

FIXTURES = Path(__file__).resolve().parent / "fixtures"
BAD = f"{FIXTURES / 'bad_reducers.py'}"
QUICK = ["--no-symbolic", "--examples", "20"]


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    status = main(argv + ["--json"])
    return status, json.loads(capsys.readouterr().out)


def error_line(report: dict[str, Any]) -> dict[str, Any]:
    errors = [line for line in report["lines"] if line["status"] == "error"]
    assert errors, "expected a line with status error"
    first: dict[str, Any] = errors[0]
    return first


@pytest.mark.parametrize("target, message", [
    ("no_colon_here", "must be path/to/file.py:name"),
    (f"{FIXTURES / 'missing.py'}:r", "no such file"),
    (f"{FIXTURES / 'import_fails.py'}:r", "RuntimeError: this module cannot be imported"),
    ("json:no_such_name", "has no attribute"),
    (f"{BAD}:not_a_reducer", "is not a reducer"),
    (f"{BAD}:pair", "a triple must be (initial, add, remove)"),
])
def test_bad_targets_exit_2_with_a_message(target: str, message: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    status, report = run([target, *QUICK], capsys)
    assert status == 2
    assert report["error"]["kind"] == "usage"
    assert message in report["error"]["message"]


def test_missing_domains_are_asked_for(capsys: pytest.CaptureFixture[str]) -> None:
    status, report = run([f"{BAD}:untyped", *QUICK], capsys)
    assert status == 2
    message = report["error"]["message"]
    assert "cannot infer the value domain" in message and "--values DOMAIN" in message
    # the accumulator domain comes from type(initial); given the values, the check runs
    status, report = run([f"{BAD}:untyped", "--values", "int[-2..2]", *QUICK], capsys)
    assert status == 0 and report["domains"]["accumulators"]["spec"] == "int"


def test_unknown_domain_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    status, report = run([f"{BAD}:untyped", "--values", "complex", *QUICK], capsys)
    assert status == 2 and "unknown domain 'complex'" in report["error"]["message"]


def test_an_exception_in_the_reducer_is_reported_with_its_input(capsys: pytest.CaptureFixture[str]) -> None:
    status, report = run([f"{BAD}:divides", "--values", "int[0..2]", *QUICK], capsys)
    assert status == 1  # a runtime removes 0 from C(k) = {0}: remove(0, 0) raises
    line = error_line(report)
    assert line["key"] == "def2-remove"  # the first law that calls remove
    assert line["met"] and line["counts"] and report["witness_line"] == "def11"
    assert line["counterexample"]["error"].startswith("ZeroDivisionError")
    args = line["counterexample"]["args"]
    assert "0" in (args["v1"], args["v2"])


@pytest.mark.serial
def test_a_python_level_hang_hits_the_per_call_limit_and_names_the_input(
        capsys: pytest.CaptureFixture[str]) -> None:
    # The per-call limit, not the total one, ends the hang: a run killed at --timeout exits 2
    # with an error (see the native hang below), so exit 1 and no error say the run ended on
    # its own, whatever the machine's load. The per-call limit is wall time: 0.5 s is far above
    # any call of a well-behaved add or remove on a busy machine.
    status, report = run([f"{BAD}:hangs_in_python", "--values", "int[0..3]", "--call-timeout", "0.5",
                          "--engines", "exhaustive", "--timeout", "300"], capsys)
    assert status == 1 and report["error"] is None  # remove(2, 2) hangs, and a runtime meets it
    line = error_line(report)
    assert line["counterexample"]["error"].startswith("CallTimeout")
    assert "2" in json.dumps(line["counterexample"]["args"])


@pytest.mark.serial
def test_a_hang_in_add_is_caught_everywhere_add_is_called(capsys: pytest.CaptureFixture[str]) -> None:
    # besides the law instances, the exhaustive engine calls add to close ι under ⊕ over the
    # finite V: that call is under the per-call limit too, so the run ends on its own (exit 1,
    # no error) and is not killed at --timeout (exit 2, an error of kind timeout)
    status, report = run([f"{BAD}:hangs_in_add", "--values", "int[0..9]", "--call-timeout", "0.5",
                          "--engines", "exhaustive", "--timeout", "300"], capsys)
    assert status == 1 and report["error"] is None  # add(0, 5) hangs: a runtime adds 5
    line = error_line(report)
    assert line["counterexample"]["error"].startswith("CallTimeout")
    assert "5" in json.dumps(line["counterexample"]["args"])


@pytest.mark.serial
def test_a_native_hang_is_killed_by_the_total_time_limit(capsys: pytest.CaptureFixture[str]) -> None:
    # 12 s leave the child time to start and reach its first law (named in the message) on a
    # busy machine: it takes 1-2 s on a quiet one, and 4 s were too few under load
    start = time.monotonic()
    status, report = run([f"{BAD}:hangs_in_native_code", "--values", "int[0..1]", "--timeout", "12",
                          *QUICK], capsys)
    assert status == 2
    assert report["error"]["kind"] == "timeout"
    assert "was killed" in report["error"]["message"] and "SKIP-DEF-2" in report["error"]["message"]
    assert time.monotonic() - start >= 12  # killed at the limit, not before


def test_memory_is_limited(capsys: pytest.CaptureFixture[str]) -> None:
    status, report = run([f"{BAD}:explodes", "--values", "int[0..1]", "--memory-mb", "300",
                          "--engines", "exhaustive"], capsys)
    assert status == 2
    error = error_line(report)["counterexample"]["error"]
    assert error.startswith("MemoryError: out of memory under the search's memory limit (--memory-mb)")


def test_the_reducers_prints_do_not_corrupt_the_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, report = run([f"{BAD}:chatty", *QUICK], capsys)
    assert status == 0 and report["error"] is None


def test_unknown_engine_and_bad_option(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["x.py:r", "--engines", "oracle"]) == 2
    assert main(["x.py:r", "--examples", "many"]) == 2
    capsys.readouterr()


def test_an_add_that_returns_none_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    status, report = run([f"{BAD}:forgot_return", *QUICK], capsys)
    assert status == 2 and "add must return the new accumulator" in report["error"]["message"]


@pytest.mark.serial
def test_a_slow_reducer_gets_a_partial_search_within_the_time_limit(
        capsys: pytest.CaptureFixture[str]) -> None:
    # exit 0 and no error: the search stopped itself and reported before the kill at --timeout
    # (a killed run exits 2 with an error); 12 s leave room for a slow start on a busy machine
    status, report = run([f"{BAD}:slow_sum", "--no-symbolic", "--timeout", "12"], capsys)
    assert status == 0 and report["error"] is None
    searched = [e["searched"] for line in report["lines"] for e in line["engines"]]
    assert any(s.endswith("stopped at the time limit") for s in searched)


def test_a_property_no_chosen_engine_can_search_is_not_reported_as_holding(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # CrossHair has no symbolic encoding of fractions: every line is "not checked", exit 2
    monkeypatch.chdir(FIXTURES.parents[2])
    argv = ["examples/reducers/product.py:Product", "--values", "fraction[nonzero]",
            "--engines", "crosshair"]
    status, report = run(argv, capsys)
    assert status == 2 and report["error"] is None
    assert {line["status"] for line in report["lines"]} == {"not checked"}
    assert main(argv) == 2
    text = capsys.readouterr().out
    assert "exit status 2: 5 of the properties could not be searched by the chosen engines" in text


# --- bad input gets a one-line message naming the flag or value (no crash) -----------------

CONTAINERS = f"{FIXTURES.parents[2] / 'examples' / 'reducers' / 'containers.py'}"


@pytest.mark.parametrize("flag, text, says", [
    ("--acc", "{[], [0]}", "write the values as a list literal, e.g. '[[], [0]]'"),
    ("--acc", "dict[int]", "dict[K,D] takes a key domain and a value domain"),
    ("--values", "int[3..1]", "empty range"),
    ("--acc", "list[int", "unbalanced brackets"),
    ("--values", "{}", "an empty domain"),
])
def test_a_domain_flag_that_cannot_be_read_is_named(flag: str, text: str, says: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    status, report = run([f"{CONTAINERS}:sorted_list", flag, text, *QUICK], capsys)
    assert status == 2 and report["error"]["kind"] == "usage"  # not "crashed"
    message = report["error"]["message"]
    assert message.startswith(f"{flag} {text!r}: ") and says in message


def test_a_list_literal_is_a_finite_domain_of_unhashable_values(
        capsys: pytest.CaptureFixture[str]) -> None:
    status, report = run([f"{CONTAINERS}:sorted_list", "--acc", "[[], [0], [1, 0]]",
                          "--values", "int[0..1]", *QUICK], capsys)
    # the unsorted [1, 0] breaks the global law, which no fold reaches: a warning
    assert report["error"] is None and status == 0 and "def7-global" in report["warnings"]
    assert report["domains"]["accumulators"]["spec"] == "[[], [0], [1, 0]]"


def test_unhashable_accumulators_over_finite_values_do_not_crash(
        capsys: pytest.CaptureFixture[str]) -> None:
    # the exhaustive engine closes ι under ⊕ over the finite V: a dict initial was a crash
    status, report = run([f"{CONTAINERS}:dict_histogram", "--values", "int[0..1]", *QUICK], capsys)
    assert report["error"] is None and status == 0
    statuses = {line["key"]: line["status"] for line in report["lines"]}
    assert statuses["def7"] == statuses["def11"] == "holds"


def test_a_domain_of_the_wrong_type_is_said(capsys: pytest.CaptureFixture[str]) -> None:
    # --acc zset[...] for a reducer whose accumulators are dicts: it raises on Z-sets; the
    # report runs, names the calls, and says the domain's type is not initial's. No fold
    # reaches a Z-set: the raises are warnings, and the reducer is well-formed
    status, report = run([f"{CONTAINERS}:dict_histogram", "--values", "int[0..2]",
                          "--acc", "zset[int[0..2]]", *QUICK], capsys)
    assert report["error"] is None and status == 0 and report["warnings"]
    assert any("holds values of type ZSet, but initial is a dict" in note
               and "--acc 'dict[int,int]'" in note for note in report["domains"]["notes"])
    line = error_line(report)
    assert line["counterexample"]["call"]["function"] in ("add", "remove")


def test_missing_domain_advice_fits_the_accumulator(capsys: pytest.CaptureFixture[str],
                                                    tmp_path: Path) -> None:
    source = tmp_path / "untyped_list.py"
    source.write_text("r = ([], lambda a, v: a + [v], lambda a, v: a[:-1])\n")
    status, report = run([f"{source}:r", "--values", "int[0..1]", *QUICK], capsys)
    assert status == 2
    assert "--acc 'list[int]'" in report["error"]["message"]
    assert "(e.g. --acc int)" not in report["error"]["message"]
