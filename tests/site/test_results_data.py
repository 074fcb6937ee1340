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
