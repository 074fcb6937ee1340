"""The shipped engine adapters (engines/) and the results page, checked without downloading
anything: the page is built from runs of the reference's mutants, whose faults are known."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from conformance import conform, released_engines
from conformance.adapters.in_process import InProcess
from conformance.cases_model import Case, case_file_text
from conformance.implementations import resolve
from conformance.loader import load_cases
from conformance.protocols import CaseResult, Handshake
from engines import cost_causes, results_data, results_page
from engines.engine_run import EngineRun

CASES = load_cases()
IDS = {c.id for c in CASES}


def test_every_shipped_engine_has_an_adapter_a_dependency_list_and_live_expectations() -> None:
    shipped = released_engines.shipped()
    assert {"skip", "skip-per-key", "d2ts", "pathway", "pathway-custom", "pydbsp", "flink",
            "flink-custom"} <= set(shipped)
    for name, engine in shipped.items():
        deps = {"npm": "package.json", "pip": "requirements.txt", "cargo": "Cargo.toml"}[engine.installer]
        assert (engine.folder / deps).is_file(), name
        assert any((engine.folder / f).is_file() for f in ("adapter.mjs", "adapter.py", "src/main.rs")), name
        assert engine.expectations is not None and engine.expectations.is_file(), name
        raw = json.loads(engine.expectations.read_text(encoding="utf-8"))
        stale = [e["id"] for e in raw["known_failures"] if e["id"] not in IDS]
        assert stale == [], f"{name}: known failures naming no case: {stale}"
        assert all(e["reason"].strip() for e in raw["known_failures"]), name
        cost_causes.read(raw.get("cost_causes"))  # every cost cause states the factor it explains


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


def test_a_pip_engine_needing_a_newer_python_gets_its_environment_from_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = released_engines.shipped()["pydbsp"]
    assert engine.python == (3, 12) and released_engines.shipped()["pathway"].python is None
    assert released_engines.interpreter(None) == sys.executable
    assert released_engines.interpreter(sys.version_info[:2]) == sys.executable  # recent enough: this one
    newer = (sys.version_info[0], sys.version_info[1] + 1)
    monkeypatch.setenv("INCSPEC_ENGINE_PYTHON", str(tmp_path / "python-newer"))
    assert released_engines.interpreter(newer) == str(tmp_path / "python-newer")
    monkeypatch.delenv("INCSPEC_ENGINE_PYTHON")
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing on the PATH, no pyenv
    with pytest.raises(released_engines.EngineNotInstalled, match="INCSPEC_ENGINE_PYTHON"):
        released_engines.interpreter(newer)


def reduce_cases(tmp_path: Path) -> Path:
    folder = tmp_path / "cases"
    if not folder.exists():
        (folder / "reduce").mkdir(parents=True)
        for case in CASES:
            if case.area == "reduce":
                (folder / "reduce" / f"{case.id}.json").write_text(case_file_text(case.to_json()))
    return folder


def mutant_run(name: str, expectations: Path | None, tmp_path: Path) -> EngineRun:
    return results_page.run_engine(name, InProcess(resolve(f"mutant/{name}")), expectations, reduce_cases(tmp_path))


def entry(run: EngineRun) -> dict[str, Any]:
    """The run as the results data holds it, which the page is written from."""
    return results_data.record(run, f"incspec conform --impl mutant/{run.name}", "today")


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
        + [{"id": passing, "reason": "once broken"}]}))
    run = mutant_run("reduce-emptied-key-kept", expectations, tmp_path)
    found = {c.text: c for c in results_page.causes(entry(run))}
    assert len(found["keeps-emptied-keys: a key without values stays"].results) == len(listed)
    assert [r["id"] for r in found["listed as a known failure, but passes: fixed?"].results] == [passing]
    assert [r["id"] for c in found.values() if c.text.startswith("not listed (fail)") for r in c.results] == [unlisted]
    page = results_page.page(results_data.data([run], {"reduce-emptied-key-kept": "incspec conform --impl mutant/x"},
                                               "today"))
    assert "## reduce-emptied-key-kept" in page and "| keeps-emptied-keys: a key without values stays | " in page
    assert f"`{listed[0]}`" in page  # one example per cause
    assert "| reduce | " in page and "incspec conform --impl mutant/x" in page


@dataclasses.dataclass
class Inflated:
    """A fake engine: the reference, reporting ``factor`` times its reducer calls."""

    factor: int
    inner: InProcess = dataclasses.field(default_factory=lambda: InProcess(resolve("reference")))

    def handshake(self) -> Handshake:
        return dataclasses.replace(self.inner.handshake(), name=f"reference-x{self.factor}")

    def run(self, cases: Sequence[Case]) -> Iterator[CaseResult]:
        for result in self.inner.run(cases):
            yield dataclasses.replace(result, observations=[self.inflate(o) for o in result.observations])

    def inflate(self, observation: Any) -> Any:
        if not isinstance(observation, dict) or "reducer_calls" not in observation.get("work", {}):
            return observation
        work = observation["work"]
        return {**observation, "work": {**work, "reducer_calls": work["reducer_calls"] * self.factor}}

    def close(self) -> None:
        self.inner.close()


TWICE = {"factor": 2, "cause": "calls-twice"}
THRICE = {"factor": 3, "cause": "replaces-whole"}


def cost_groups(factor: int, causes: list[dict[str, Any]], tmp_path: Path) -> dict[str, int]:
    """The cost causes of the fake engine's page, with their case counts."""
    expectations = tmp_path / f"known-{factor}-{len(causes)}.json"
    expectations.write_text(json.dumps({"known_failures": [], "cost_causes": {"reducer_calls": causes}}))
    run = results_page.run_engine("fake", Inflated(factor), expectations, reduce_cases(tmp_path))
    overruns = [r["overrun"]["reducer_calls"] for r in entry(run)["results"] if r["cost"] == "fail"]
    assert overruns and max(m / b for m, b in overruns) == factor  # the fake's overrun is factor× at worst
    return {c.text: len(c.results) for c in results_page.causes(entry(run)) if c.cost}


def test_a_cost_overrun_is_explained_only_up_to_the_factors_of_its_known_causes(tmp_path: Path) -> None:
    """Attribution by the measured factor: a 6× overrun is not add-called-twice's (2×), whatever its
    counter; with a second known cause of 3×, both explain it; a 2× overrun needs only the first."""
    beyond = cost_groups(6, [TWICE], tmp_path)
    assert list(beyond) == ["not explained (cost): reducer_calls above the 2× its bound that known causes explain"]
    both = cost_groups(6, [TWICE, THRICE], tmp_path)
    assert set(both) == {"calls-twice [reducer_calls: 2×]", "replaces-whole [reducer_calls: 3×]"}
    assert set(cost_groups(2, [TWICE, THRICE], tmp_path)) == {"calls-twice [reducer_calls: 2×]"}


def test_the_attribution_reads_the_worst_factor_and_refuses_a_cause_without_one() -> None:
    causes = {"reducer_calls": [TWICE, THRICE]}
    assert cost_causes.attribute(causes, {"reducer_calls": (5, 2)}) == ["calls-twice [reducer_calls: 2×]",
                                                                        "replaces-whole [reducer_calls: 3×]"]
    assert cost_causes.attribute(causes, {"reducer_calls": (1, 0)})[0].startswith("not explained")  # a bound of 0
    assert cost_causes.attribute(causes, {"keys_touched": (2, 1)})[0].startswith("not explained (cost): keys_touched")
    with pytest.raises(ValueError, match="factor"):
        cost_causes.read({"reducer_calls": [{"cause": "twice, by the counter's name alone"}]})


def test_a_correct_engine_has_no_causes_and_an_absent_one_says_why(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    run = results_page.run_engine("reference", InProcess(resolve("reference")), None, None)
    assert results_page.causes(entry(run)) == []
    assert "No failures." in results_page.page(results_data.data([run], {}, "today"))
    monkeypatch.setenv("INCSPEC_ENGINE_CACHE", str(tmp_path))
    absent = results_page.shipped_runs(["d2ts"], install=False, timeout=5)
    assert absent[0].problem == "not installed (incspec engines install d2ts)"

    def broken(engine: released_engines.Engine) -> None:
        raise subprocess.CalledProcessError(1, ["npm", "install"])

    failed = results_page.shipped_runs(["d2ts"], install=True, timeout=5, install_one=broken)
    assert failed[0].problem.startswith("could not be installed")
    assert "Not run: could not be installed" in results_page.page(results_data.data(failed, {}, "today"))


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


def test_the_engine_readmes_counts_are_those_of_the_results_data() -> None:
    """The counts the engines' READMEs give, against engines/results.json (a rerun changing them
    fails here until the README says the new ones)."""
    engines = {e["name"]: e for e in results_data.read()["engines"]}
    d2ts = " ".join((released_engines.ENGINES / "d2ts" / "README.md").read_text(encoding="utf-8").split())
    fixpoint, zset = engines["d2ts"]["summary"]["fixpoint"], engines["d2ts"]["summary"]["zset"]
    runnable, listed = fixpoint["cases"] - fixpoint["unsupported"], fixpoint["xfail"]
    assert f"`index-compaction` ({listed} of the {runnable} runnable cases)" in d2ts
    assert f"{runnable - 1} of the {runnable} cases pass ({listed - 1} of the {listed} listed show `xpass`)" in d2ts
    assert f"({zset['unsupported']} cases unsupported). All {zset['pass']} other zset cases pass." in d2ts
    pydbsp = " ".join((released_engines.ENGINES / "pydbsp" / "README.md").read_text(encoding="utf-8").split())
    summary = engines["pydbsp"]["summary"]
    assert (f"every runnable zset ({summary['zset']['pass']}) and fixpoint ({summary['fixpoint']['pass']}) "
            "case passes") in pydbsp
    assert summary["total"]["fail"] == summary["total"]["errored"] == summary["total"]["xfail"] == 0
    assert summary["zset"]["unsupported"] == 0 and summary["zset"]["skipped"] == 0
    assert f"`ranks` ({summary['fixpoint']['unsupported']} fixpoint cases, unsupported)" in pydbsp
    flink = " ".join((released_engines.ENGINES / "flink" / "README.md").read_text(encoding="utf-8").split())
    for name in ("flink", "flink-custom"):
        reduce = engines[name]["summary"]["reduce"]
        assert (f"{reduce['pass']} of the {reduce['cases']} reduce cases pass; the {reduce['xfail']} others "
                "are the known failures") in flink
        assert reduce["fail"] == reduce["errored"] == reduce["xpass"] == 0
    # skip-per-key: the largest overrun is the product of the stated factors, and the README's example
    per_key = engines["skip-per-key"]
    worst = max((r["overrun"]["reducer_calls"] for r in per_key["results"] if "overrun" in r),
                key=lambda mb: mb[0] / mb[1] if mb[1] else float("inf"))
    factors = [c["factor"] for c in per_key["cost_causes"]["reducer_calls"]]
    assert worst[0] / worst[1] == factors[0] * factors[1]
    skip = " ".join((released_engines.ENGINES / "skip" / "README.md").read_text(encoding="utf-8").split())
    assert (f"is {worst[0]} times its bound of {worst[1]}, {worst[0] // worst[1] // factors[0]} times once halved"
            in skip)
    assert f"{factors[0]} for add-called-twice, {factors[1]} for array-replaced-whole" in skip


def test_an_exploration_is_kept_in_the_results_data_and_shown_on_the_page(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``incspec engines explore`` records per engine what exploring found (or why it did not run);
    the page shows it, and rerunning the cases keeps it."""
    from engines import exploration

    monkeypatch.setenv("INCSPEC_ENGINE_CACHE", str(tmp_path))
    absent = exploration.explore_engine("d2ts", 1.0, 5.0, "today")
    assert absent == {"run": "today", "problem": "not installed (incspec engines install d2ts)"}
    found = {"run": "today", "command": "incspec conform --engine fake --explore DIR --budget 60", "budget": 60,
             "problem": "", "areas": [{"area": "reduce", "plans": ["sum", "count"], "examples": 90, "diverged": 7,
                                       "budget_ended": True, "divergences": [
                 {"signature": "reduce / count / apply: view other values", "steps": 3, "known": "",
                  "case": "engines/fake/explored/fake/reduce/explored-fake-count.8ffb840a.json",
                  "message": "step 2: expected 1, got 2"}]}]}
    run = results_page.run_engine("reference", InProcess(resolve("reference")), None, reduce_cases(tmp_path))
    content = exploration.record(results_data.data([run], {}, "today"), "reference", found)
    page = results_page.page(content)
    assert "| reduce | sum, count | 90 | 7 | 1 | yes |" in page
    assert ("| reduce / count / apply: view other values | "
            "`engines/fake/explored/fake/reduce/explored-fake-count.8ffb840a.json` | 3 | none: new |") in page
    rerun = results_data.with_kept_sections(results_data.data([run], {}, "later"), content)
    assert rerun["engines"][0]["exploration"] == found
    content = exploration.record(content, "reference", absent)
    assert "not run: not installed (incspec engines install d2ts)" in results_page.page(content)


def test_a_traced_cause_replaces_the_explorations_guess_on_the_page(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An exploration guesses a divergence's cause by plan ("perhaps ..."); once the divergence is
    traced (``engines/NAME/explored/traced.json``), the page states the traced cause instead."""
    from engines import exploration

    case = "engines/fake/explored/fake/reduce/explored-fake-count.8ffb840a.json"
    guess = "perhaps emptied-key-kept (a known failure of the same plan, another first difference)"
    found = {"run": "today", "command": "incspec conform --engine fake --explore DIR", "budget": 60, "problem": "",
             "areas": [{"area": "reduce", "plans": ["count"], "examples": 9, "diverged": 1, "budget_ended": True,
                        "divergences": [{"signature": "reduce / count: errored", "steps": 2, "known": guess,
                                         "case": case, "message": "Error: boom"}]}]}
    run = results_page.run_engine("reference", InProcess(resolve("reference")), None, reduce_cases(tmp_path))
    content = exploration.record(results_data.data([run], {}, "today"), "reference", found)
    monkeypatch.setattr(released_engines, "ENGINES", tmp_path)
    assert f"| 2 | {guess} |" in results_page.page(content)
    traced = tmp_path / "reference" / "explored" / "traced.json"
    traced.parent.mkdir(parents=True)
    traced.write_text(json.dumps({case: "emptied-key-kept: traced, passes with the fix"}), encoding="utf-8")
    page = results_page.page(content)
    assert "| 2 | emptied-key-kept: traced, passes with the fix |" in page and "perhaps" not in page


def test_every_traced_cause_names_a_divergence_the_results_data_holds() -> None:
    """A shipped ``traced.json`` names only shrunk cases that exist and that the engine's recorded
    exploration found (a stale entry, once exploration is rerun, fails here)."""
    explored = {e["name"]: e.get("exploration", {}) for e in results_data.read()["engines"]}
    checked = 0
    for name in released_engines.shipped():
        for case in results_page.traced_causes(name):
            assert (released_engines.ROOT / case).is_file(), case
            found = [d["case"] for a in explored.get(name, {}).get("areas", []) for d in a["divergences"]]
            assert case in found, (name, case)
            checked += 1
    assert checked >= 6  # d2ts's six explored divergences


def test_a_scaling_verdict_is_kept_in_the_results_data_and_shown_on_the_page(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``incspec engines scaling`` records per engine each probe's verdict and step times (or why it
    did not run); the page shows them at the end of the engine's section, and rerunning the cases
    keeps them."""
    from conformance import scaling
    from engines import scaling_verdicts

    monkeypatch.setenv("INCSPEC_ENGINE_CACHE", str(tmp_path))
    absent = scaling_verdicts.probe_engine("d2ts", "today")
    assert absent == {"run": "today", "problem": "not installed (incspec engines install d2ts)"}
    reduce_probe, reach_probe = scaling.CHANGES_PROBES
    flat = scaling.ProbeResult(reduce_probe, (scaling.Timing(100, 0.002), scaling.Timing(10_000, 0.003)),
                               scaling.THRESHOLD)
    growing = scaling.ProbeResult(reach_probe, (scaling.Timing(100, 0.001), scaling.Timing(10_000, 0.140)),
                                  scaling.THRESHOLD)
    undeclared = scaling.ProbeResult(reach_probe, (), scaling.THRESHOLD, undeclared=scaling.CHANGES_ONLY)
    timed_out = scaling.ProbeResult(reduce_probe, (scaling.Timing(100, 0.002, 0.0125),), scaling.THRESHOLD,
                                    problem="size 10000: timed out after 10 s")
    entries = [scaling_verdicts.probe_entry(r) for r in (flat, growing, undeclared, timed_out)]
    assert [(e["verdict"], e["growth"]) for e in entries] == [
        ("ok", 1.5), ("cost fail", 140.0), ("not declared", None), ("not judged", None)]
    found = {"run": "today", "command": "incspec conform --engine fake --scaling --timeout 120", "problem": "",
             "probes": entries}
    run = results_page.run_engine("reference", InProcess(resolve("reference")), None, reduce_cases(tmp_path))
    content = results_data.with_section(results_data.data([run], {}, "today"), "reference", "scaling", found)
    page = results_page.page(content)
    assert "| reduce-sum | reduce | ok | ×1.5 | 100: 2.000 ms, 10000: 3.000 ms |" in page
    assert "| reach-edge | fixpoint | cost fail | ×140.0 | 100: 1.000 ms, 10000: 140.000 ms |" in page
    assert f"| reach-edge | fixpoint | not declared | - | the engine does not declare {scaling.CHANGES_ONLY} |" in page
    assert "| reduce-sum | reduce | not judged | - | size 10000: timed out after 10 s; 100: 2.000 ms (spread 12.500) |" in page
    rerun = results_data.with_kept_sections(results_data.data([run], {}, "later"), content)
    assert rerun["engines"][0]["scaling"] == found
    content = results_data.with_section(content, "reference", "scaling", absent)
    assert "not run: not installed (incspec engines install d2ts)" in results_page.page(content)
