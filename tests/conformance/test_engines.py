"""The shipped engine adapters (engines/) and the results page, checked without downloading
anything: the page is built from runs of the reference's mutants, whose faults are known."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conformance import conform, released_engines
from conformance.adapters.in_process import InProcess
from conformance.cases_model import case_file_text
from conformance.implementations import resolve
from conformance.loader import load_cases
from engines import results_page
from engines.engine_run import EngineRun

CASES = load_cases()
IDS = {c.id for c in CASES}


def test_every_shipped_engine_has_an_adapter_a_dependency_list_and_live_expectations() -> None:
    shipped = released_engines.shipped()
    assert {"skip", "skip-per-key", "d2ts", "pathway", "pathway-custom"} <= set(shipped)
    for name, engine in shipped.items():
        deps = "package.json" if engine.installer == "npm" else "requirements.txt"
        assert (engine.folder / deps).is_file(), name
        assert any((engine.folder / f).is_file() for f in ("adapter.mjs", "adapter.py")), name
        assert engine.expectations is not None and engine.expectations.is_file(), name
        raw = json.loads(engine.expectations.read_text(encoding="utf-8"))
        stale = [e["id"] for e in raw["known_failures"] if e["id"] not in IDS]
        assert stale == [], f"{name}: known failures naming no case: {stale}"
        assert all(e["reason"].strip() for e in raw["known_failures"]), name


def test_an_engine_is_installed_into_its_cache_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INCSPEC_ENGINE_CACHE", str(tmp_path))
    engine = released_engines.shipped()["skip"]
    assert engine.cache == tmp_path / "skip" and not engine.installed()
    assert engine.install_commands()[0][:4] == ["npm", "install", "--prefix", str(tmp_path / "skip")]
    assert "{cache}" not in " ".join(engine.command()) and str(tmp_path / "skip") in engine.command()
    with pytest.raises(released_engines.EngineNotInstalled, match="incspec engines install skip"):
        released_engines.command("skip")
    assert conform.main(["--engine", "skip", "--no-progress"]) == 2
    pip = released_engines.shipped()["pathway"]
    assert [c[1:3] for c in pip.install_commands()] == [["-m", "venv"], ["-m", "pip"]]


def mutant_run(name: str, expectations: Path | None, tmp_path: Path) -> EngineRun:
    reduce_cases = tmp_path / "cases"
    if not reduce_cases.exists():
        (reduce_cases / "reduce").mkdir(parents=True)
        for case in CASES:
            if case.area == "reduce":
                (reduce_cases / "reduce" / f"{case.id}.json").write_text(case_file_text(case.to_json()))
    return results_page.run_engine(name, InProcess(resolve(f"mutant/{name}")), expectations, reduce_cases)


def failing(run: EngineRun) -> list[str]:
    return [o.case.id for o in run.outcomes if o.status == "fail"]


def test_the_page_groups_failures_by_their_cause_with_one_example(tmp_path: Path) -> None:
    plain = mutant_run("reduce-emptied-key-kept", None, tmp_path)
    fails = failing(plain)
    assert len(fails) >= 3
    listed, unlisted = fails[:-1], fails[-1]
    passing = next(o.case.id for o in plain.outcomes if o.status == "pass")
    expectations = tmp_path / "known.json"
    expectations.write_text(json.dumps({
        "known_failures": [{"id": i, "reason": "keeps-emptied-keys: a key without values stays"} for i in listed]
        + [{"id": passing, "reason": "once broken"}],
        "cost_causes": {"reducer_calls": "calls twice"}}))
    run = mutant_run("reduce-emptied-key-kept", expectations, tmp_path)
    found = {c.text: c for c in results_page.causes(run)}
    assert len(found["keeps-emptied-keys: a key without values stays"].outcomes) == len(listed)
    assert [o.case.id for o in found["listed as a known failure, but passes: fixed?"].outcomes] == [passing]
    assert [o.case.id for c in found.values() if c.text.startswith("not listed (fail)") for o in c.outcomes] == [unlisted]
    page = results_page.page([run], {"reduce-emptied-key-kept": "incspec conform --impl mutant/x"}, "today")
    assert "## reduce-emptied-key-kept" in page and "| keeps-emptied-keys: a key without values stays | " in page
    assert f"`{listed[0]}`" in page  # one example per cause
    assert "| reduce | " in page and "incspec conform --impl mutant/x" in page


def test_cost_failures_are_grouped_by_counter_with_the_stated_cause(tmp_path: Path) -> None:
    expectations = tmp_path / "known.json"
    expectations.write_text(json.dumps({"known_failures": [],
                                        "cost_causes": {"reducer_calls": "recomputes every key"}}))
    run = mutant_run("reduce-recompute-every-key", expectations, tmp_path)
    found = {c.text: c for c in results_page.causes(run)}
    assert "recomputes every key" in found
    assert all(o.cost == "fail" for o in found["recomputes every key"].outcomes)


def test_a_correct_engine_has_no_causes_and_an_absent_one_says_why(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    run = results_page.run_engine("reference", InProcess(resolve("reference")), None, None)
    assert results_page.causes(run) == []
    assert "No failures." in results_page.page([run], {}, "today")
    monkeypatch.setenv("INCSPEC_ENGINE_CACHE", str(tmp_path))
    absent = results_page.shipped_runs(["d2ts"], install=False, timeout=5)
    assert absent[0].problem == "not installed (incspec engines install d2ts)"

    def broken(engine: released_engines.Engine) -> None:
        raise subprocess.CalledProcessError(1, ["npm", "install"])

    failed = results_page.shipped_runs(["d2ts"], install=True, timeout=5, install_one=broken)
    assert failed[0].problem.startswith("could not be installed")
    assert "Not run: could not be installed" in results_page.page(failed, {}, "today")


def test_the_engines_command_lists_and_refuses_an_unknown_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """``incspec engines`` (engines/cli.py), without installing anything."""
    from engines import cli

    monkeypatch.setenv("INCSPEC_ENGINE_CACHE", str(tmp_path))
    assert cli.main(["list"]) == 0
    listed = capsys.readouterr().out
    assert all(f"{name} " in listed for name in released_engines.shipped()) and "not installed" in listed
    assert cli.main(["install", "no-such-engine"]) == 2
    assert "unknown engine 'no-such-engine'" in capsys.readouterr().err
    assert cli.main([]) == 2
