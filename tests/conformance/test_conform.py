"""``incspec conform``: filters, reports (JSON, Markdown, JUnit XML), exit status, expectations files."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conformance import conform
from conformance.adapters.in_process import InProcess
from conformance.execute import Expectations, execute, exit_status
from conformance.implementations import registered
from conformance.loader import Filter, load_cases, select
from incspec.cli import main as incspec
from reference_impl.mutants import all_mutants
from reference_impl.mutants.reduce_mutants import MUTANTS as REDUCE_MUTANTS

CASES = load_cases()


def test_conform_reference_json_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert incspec(["conform", "--impl", "reference", "--report", "json", "--no-progress"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["implementation"]["name"] == "reference"
    assert report["summary"]["total"]["cases"] == len(CASES) == report["summary"]["total"]["pass"]
    assert {r["status"] for r in report["results"]} == {"pass"}


def test_markdown_and_junit_reports_to_files(tmp_path: Path) -> None:
    md, xml = tmp_path / "r.md", tmp_path / "r.xml"
    status = conform.main(["--impl", "reference", "--area", "reduce", "--no-progress",
                           "--report", f"markdown:{md}", "--report", f"junit:{xml}"])
    assert status == 0
    assert md.read_text().startswith("# Conformance of reference")
    suites = ET.parse(xml).getroot()
    reduce_suite = suites.find("testsuite[@name='reduce']")
    assert reduce_suite is not None and reduce_suite.get("failures") == "0"
    assert int(reduce_suite.get("tests", "0")) == len([c for c in CASES if c.area == "reduce"])


def test_a_failing_must_case_makes_the_exit_status_non_zero(tmp_path: Path) -> None:
    impl = REDUCE_MUTANTS[0].make()
    _, outcomes = execute(InProcess(impl), [c for c in CASES if c.area == "reduce"])
    assert exit_status(outcomes) == 1
    failing = [o.case.id for o in outcomes if o.status == "fail"]
    # listed as known failures with a reason: xfail, and the run is green
    expectations = Expectations({i: "collapses duplicates" for i in failing})
    _, again = execute(InProcess(impl), [c for c in CASES if c.area == "reduce"], expectations)
    assert [o.case.id for o in again if o.status == "xfail"] == failing
    assert {o.status for o in again} <= {"pass", "xfail", "unsupported"} and exit_status(again) == 0
    # a known failure that passes is reported, and fails the run (a stale expectations file)
    passing = next(o.case.id for o in outcomes if o.status == "pass")
    _, stale = execute(InProcess(impl), [c for c in CASES if c.id == passing],
                       Expectations({passing: "was broken once"}))
    assert [o.status for o in stale] == ["xpass"] and exit_status(stale) == 1


def test_expectations_file_format(tmp_path: Path) -> None:
    path = tmp_path / "mine.json"
    path.write_text(json.dumps({"implementation": "mine",
                                "known_failures": [{"id": "reduce.x.00000000", "reason": "why"}]}))
    assert Expectations.read(path).known_failures == {"reduce.x.00000000": "why"}


def test_filters() -> None:
    must_reduce = select(CASES, Filter(areas=["reduce"], levels=["must"]))
    assert must_reduce and all(c.area == "reduce" and c.level == "must" for c in must_reduce)
    declining = select(CASES, Filter(features=["declining-remove"]))
    assert declining and all("declining-remove" in c.features for c in declining)
    one = CASES[0]
    assert select(CASES, Filter(ids=[one.id])) == [one]
    assert one in select(CASES, Filter(ids=[f"{one.area}.*"]))


def test_mutants_command_prints_a_full_kill_score(capsys: pytest.CaptureFixture[str]) -> None:
    """The command's output (every mutant's kill is asserted in test_reference_and_mutants)."""
    status = incspec(["conform", "--mutants", "--area", "stream"])
    out = capsys.readouterr().out
    stream_mutants = [m for m in all_mutants() if m.area == "stream"]
    assert "SURVIVED" not in out and status == 0
    assert out.count("KILLED") == len(stream_mutants) > 0
    assert out.strip().splitlines()[-1] == f"kill score: {len(stream_mutants)}/{len(stream_mutants)}"


def test_unknown_implementation_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert incspec(["conform", "--impl", "no_such_module:impl", "--no-progress"]) == 2
    assert "cannot load implementation" in capsys.readouterr().err


def test_spark_is_resolved_by_name_only_at_run_time() -> None:
    """``--impl spark`` is a registered entry point, naming a module the suite never imports itself."""
    assert registered()["spark"] == "spark_impl.conformance_adapter:implementation"
    source = "\n".join(p.read_text() for p in Path(conform.__file__).parent.rglob("*.py"))
    assert "import spark_impl" not in source and "from spark_impl" not in source


def test_a_malformed_observation_is_errored_not_a_crash() -> None:
    from conformance.execute import judge
    from conformance.protocols import CaseResult

    zset_case = next(c for c in CASES if c.area == "zset")
    verdict = judge(zset_case, CaseResult(zset_case.id, "result", ({"output": [["x", "heavy"]]},)))
    status, message = verdict.status, verdict.message
    assert status == "errored" and "malformed observation" in message


def test_a_hung_in_process_engine_is_reported_and_the_run_goes_on() -> None:
    import threading

    from reference_impl.implementation import (
        ReferenceImplementation,
        ReferenceReduceEngine,
    )

    release = threading.Event()
    loads: list[int] = []

    class HangsOnFirstLoad(ReferenceReduceEngine):
        def load(self, collection):  # type: ignore[no-untyped-def]
            loads.append(1)
            if len(loads) == 1:
                release.wait(30)  # hangs until the test ends
            return super().load(collection)

    class HangingOnce(ReferenceImplementation):
        def reduce_engine(self) -> ReferenceReduceEngine:
            return HangsOnFirstLoad()

    cases = [c for c in CASES if c.area == "reduce"][:3]
    _, outcomes = execute(InProcess(HangingOnce(), timeout=2.0), cases)
    release.set()
    assert [o.status for o in outcomes] == ["errored", "pass", "pass"]
    assert "timed out" in outcomes[0].message


def test_an_engine_module_in_the_current_directory_is_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The installed ``incspec`` script does not put the working directory on the path;
    ``--impl myengine:implementation`` from the engine's folder must still work."""
    import sys

    (tmp_path / "my_scratch_engine.py").write_text(
        "from reference_impl.implementation import implementation\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    assert incspec(["conform", "--impl", "my_scratch_engine:implementation", "--area", "stream",
                    "--no-progress"]) == 0
    monkeypatch.delitem(sys.modules, "my_scratch_engine")
    assert incspec(["conform", "--impl", "not_here:implementation", "--no-progress"]) == 2
    assert "PYTHONPATH" in capsys.readouterr().err


def test_a_known_failure_that_names_no_case_is_reported(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An expectations entry whose case changed (so its ID did) is stale: reported, exit status 1."""
    path = tmp_path / "mine.json"
    path.write_text(json.dumps({"known_failures": [{"id": "reduce.sum-worked-example.00000000",
                                                    "reason": "was broken"}]}))
    args = ["conform", "--impl", "reference", "--area", "stream", "--no-progress"]
    assert incspec([*args, "--expectations", str(path)]) == 1
    assert "reduce.sum-worked-example.00000000 is no case" in capsys.readouterr().err
    assert incspec(args) == 0


@pytest.mark.parametrize("text, why", [("", "not JSON"), ('{"known_failures": [{"id": "x"}]}', "KeyError: 'reason'"),
                                       ("[1]", "not an expectations file")])
@pytest.mark.parametrize("explore", [False, True])
def test_a_bad_expectations_file_is_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        text: str, why: str, explore: bool) -> None:
    """An expectations file that is not JSON or not of the format stops ``incspec conform`` with exit
    2 and one line naming the file and what is wrong, not a traceback; a missing one likewise."""
    path = tmp_path / "mine.json"
    path.write_text(text, encoding="utf-8")
    extra = ["--explore", str(tmp_path / "found"), "--examples", "1"] if explore else []
    for given, reason in ((path, why), (tmp_path / "absent.json", "cannot be read")):
        assert conform.main(["--area", "reduce", "--no-progress", "--expectations", str(given), *extra]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith(f"incspec conform: {given}: ") and reason in err[0], err
