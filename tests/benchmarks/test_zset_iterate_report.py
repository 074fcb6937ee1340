"""The Z-set ``iterate`` benchmark on a tiny graph: its JSON results file and the
README table generated from it (a real run: the engine, both recomputes, the checks)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks import report, zset_iterate_bench

pytestmark = pytest.mark.spark


def test_a_tiny_run_writes_results_and_the_report_renders_them(spark: Any, tmp_path: Path) -> None:
    out = tmp_path / "zset.json"
    zset_iterate_bench.main(["--sizes", "40", "--repeats", "1", "--out", str(out)])
    results = json.loads(out.read_text())
    assert results["benchmark"] == "zset_iterate_bench" and results["params"]["sizes"] == [40]
    (row,) = results["rows"]
    assert row["nominal_edges"] == 40 and 0 < row["edges"] <= 40 and 0 < row["live"] <= row["edges"] + 1
    assert row["update_jobs"] > 0 and row["recompute_iterations"] >= 1
    assert row["recompute_per_delete"] == row["recompute_s"] / row["delete_s"]
    table = report.zset_iterate_markdown(results, "zset.json")
    assert f"| {row['edges']:,} | {row['live']:,} |" in table
    assert "--repeats 1 --sizes 40" in table
