"""``engines/results.json``: what ``incspec engines results`` writes next to the results page
from the same run, every case's outcome, read back as the site's engine matrix."""

from __future__ import annotations

import json
from pathlib import Path

from engines import results_data
from tests.conformance.test_engines import mutant_run


def test_the_results_data_holds_every_outcome_of_the_run_and_reads_back(tmp_path: Path) -> None:
    run = mutant_run("reduce-emptied-key-kept", None, tmp_path)
    content = results_data.data([run], {run.name: "incspec conform --impl mutant/x"}, "today")
    path = tmp_path / "results.json"
    results_data.write(path, content)
    back = results_data.read(path)
    assert back == json.loads(json.dumps(content))
    entry = back["engines"][0]
    assert entry["command"] == "incspec conform --impl mutant/x" and entry["implementation"]["name"]
    assert [r["id"] for r in entry["results"]] == [o.case.id for o in run.outcomes]
    assert entry["summary"]["total"]["fail"] == sum(o.status == "fail" for o in run.outcomes) > 0
    # a failure's first differing observation is kept for the site
    assert all("step" in r and "expected" in r for r in entry["results"] if r["status"] == "fail")
    assert len(path.read_text(encoding="utf-8").splitlines()) > len(run.outcomes)  # a line per outcome
    assert results_data.read(tmp_path / "absent.json")["engines"] == []


def test_a_run_of_some_engines_keeps_the_others_entries_with_when_and_how_they_were_obtained(tmp_path: Path) -> None:
    """``incspec engines results --engine NAME``: the engines not run keep their entries (an engine
    that cannot be run here stays on the page as it last ran, and says so)."""
    first = mutant_run("reduce-emptied-key-kept", None, tmp_path)
    second = mutant_run("reduce-recompute-every-key", None, tmp_path)
    earlier = results_data.data([first, second], {}, "monday", provenance="a run elsewhere")
    later = results_data.data([second], {}, "tuesday", kept=earlier, order=[second.name, first.name])
    assert [e["name"] for e in later["engines"]] == [second.name, first.name]
    kept, rerun = later["engines"][1], later["engines"][0]
    assert (kept["run"], kept["provenance"], kept["results"]) == ("monday", "a run elsewhere",
                                                                  earlier["engines"][0]["results"])
    assert (rerun["run"], rerun["provenance"]) == ("tuesday", results_data.PROVENANCE)
    assert later["provenance"].endswith("kept from an earlier file, each with its own provenance and run")


def test_a_cost_failure_records_its_worst_overrun_and_the_causes_explaining_it(tmp_path: Path) -> None:
    run = mutant_run("reduce-recompute-every-key", None, tmp_path)
    failed = [r for r in results_data.record(run, "", "today")["results"] if r["cost"] == "fail"]
    assert failed and all(m > b for r in failed for m, b in r["overrun"].values())
    assert all(r["cost_causes"] and r["cost_causes"][0].startswith("not explained") for r in failed)


def test_an_engine_page_gives_a_cost_failure_s_overrun_and_the_causes_explaining_it() -> None:
    """The site's engine page, from the shipped results data: the worst step's measurement and the
    causes its factor needs (skip-per-key's worst overrun needs both of its known causes)."""
    from site_builder.engine_pages import _failure
    from site_builder.sources import CaseFile

    engine = next(e for e in results_data.read()["engines"] if e["name"] == "skip-per-key")
    result = next(r for r in engine["results"] if r["id"].startswith("reduce.cost-proportional-to-delta."))
    case = CaseFile(f"conformance/cases/reduce/{result['id']}.json", {"id": result["id"], "area": "reduce"})
    text = "\n".join(_failure(engine, result, case, "engines/skip-per-key.md", ""))
    assert "Cost: reducer_calls = 50 against a bound of 1" in text
    causes = [line for line in text.splitlines() if line.startswith("Cost cause: ")]
    assert [c.split(" ")[2] for c in causes] == ["add-called-twice", "array-replaced-whole"]
