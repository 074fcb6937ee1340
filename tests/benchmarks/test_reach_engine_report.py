"""The reachability engine benchmark on a tiny graph: its JSON results file and the
README table generated from it (a real run: the engine, the recompute, the checks)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks import reach_engine_bench, report

pytestmark = pytest.mark.spark


def test_a_tiny_run_writes_results_and_the_report_renders_them(spark: Any, tmp_path: Path) -> None:
    out = tmp_path / "reach.json"
    reach_engine_bench.main(["--sizes", "200", "--repeats", "1", "--out", str(out)])
    results = json.loads(out.read_text())
    assert results["benchmark"] == "reach_engine_bench" and results["params"]["sizes"] == [200]
    (row,) = results["rows"]
    assert row["nominal_edges"] == 200 and 0 < row["edges"] <= 200 and 0 < row["live"] <= row["edges"] + 1
    assert row["insert_jobs"] > 0 and row["recompute_per_insert"] == row["recompute_s"] / row["insert_s"]
    table = report.reach_engine_markdown(results, "reach.json")
    assert f"| {row['edges']:,} | {row['live']:,} |" in table
    assert "--graph powerlaw --repeats 1 --sizes 200" in table
