"""The reachability engine benchmark on a tiny graph: its JSON results file and the
performance page's table generated from it (a real run: the engine, the recompute, the checks)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks import reach_engine_bench, report

pytestmark = pytest.mark.spark


@pytest.mark.slow  # the benchmark's whole run, every engine and baseline, at its smallest sizes: about a minute
def test_a_tiny_run_writes_results_and_the_report_renders_them(spark: Any, tmp_path: Path) -> None:
    out = tmp_path / "reach.json"
    reach_engine_bench.main(["--sizes", "200", "--repeats", "1", "--out", str(out)])
    results = json.loads(out.read_text())
    assert results["benchmark"] == "reach_engine_bench" and results["params"]["sizes"] == [200]
    (row,) = results["rows"]
    assert row["nominal_edges"] == 200 and 0 < row["edges"] <= 200 and 0 < row["live"] <= row["edges"] + 1
    assert row["insert_jobs"] > 0 and row["recompute_per_insert"] == row["recompute_s"] / row["insert_s"]
    assert row["root_removal_s"] > 0 and row["root_readd_s"] > 0 and row["driver_python_rss_mb"] > 0
    assert 0 < row["driver_heap_retained_mb"] and results["params"]["master"] is None
    table = report.reach_engine_markdown(results, "reach.json")
    assert f"| {row['edges']:,} | {row['live']:,} |" in table
    assert f"| {row['driver_heap_retained_mb']:.0f} |" in table and "share the driver's JVM" in table
    assert "--graph powerlaw --repeats 1 --sizes 200" in table and "root removed s" in table


@pytest.mark.heavy
def test_a_chains_graph_cuts_and_hangs_back_whole_chains(spark: Any, tmp_path: Path) -> None:
    """Chains of 4 nodes hung from the root: an update removes or adds a whole chain
    (its outcome checked by the benchmark itself), the table says so."""
    out = tmp_path / "chains.json"
    reach_engine_bench.main(["--graph", "chains", "--chain-length", "4", "--sizes", "200", "--repeats", "1",
                             "--no-root-removal", "--out", str(out)])
    results = json.loads(out.read_text())
    (row,) = results["rows"]
    assert results["params"]["chain_length"] == 4 and row["changed_per_update"] == 4
    assert "root_removal_s" not in row
    table = report.reach_engine_markdown(results, "chains.json")
    assert "--graph chains --chain-length 4" in table and "a chain of 4 nodes" in table
