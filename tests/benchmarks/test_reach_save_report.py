"""The reach view's save benchmark on a tiny graph: its JSON results file and the
performance page's table generated from it (a real run: the engine, both saves and
restores, their checks)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks import reach_save_bench, report

pytestmark = pytest.mark.spark


@pytest.mark.heavy
def test_a_tiny_run_writes_results_and_the_report_renders_them(spark: Any, tmp_path: Path) -> None:
    out = tmp_path / "save.json"
    reach_save_bench.main(["--sizes", "200", "--repeats", "2", "--out", str(out)])
    results = json.loads(out.read_text())
    assert results["benchmark"] == "reach_save_bench" and results["params"]["sizes"] == [200]
    (row,) = results["rows"]
    assert 0 < row["edges"] <= 200 and row["roots"] == 1 and 0 < row["live"] <= row["edges"] + 1
    # two single-edge inserts: the overlay holds each new edge, its new node in the live set, and
    # the segment marks of the edge's ends, not the tables (whole: every row of the three)
    assert 0 < row["overlay_rows"] < row["whole_rows"] == row["edges"] + row["live"] + row["roots"]
    assert row["whole_per_changes"] == row["save_whole_s"] / row["save_changes_s"]
    table = report.reach_save_markdown(results, "save.json")
    assert f"| {row['edges']:,} | {row['live']:,} | {row['overlay_rows']:,} | {row['whole_rows']:,} |" in table
    assert "--repeats 2 --sizes 200" in table
