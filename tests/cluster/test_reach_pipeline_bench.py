"""The reach-pipeline benchmark (benchmarks/reach_pipeline_bench.py) runs on the standalone
cluster: a tiny size, its own checks passing (the view against a plain recompute, the one-edge
restart's published changes), and a results file that says what it measured and where."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cluster.conftest import Cluster

pytestmark = [pytest.mark.spark, pytest.mark.cluster]

EDGES = 1_000


def test_a_tiny_run_on_the_cluster_checks_its_view_and_records_the_drivers_heap(
        cluster: Cluster, tmp_path: Path) -> None:
    out = tmp_path / "reach-pipeline.json"
    scenario = cluster.run(["-m", "benchmarks.reach_pipeline_bench", "--master", cluster.url,
                            "--sizes", str(EDGES), "--executor-memory", cluster.standalone.memory,
                            "--out", str(out)], tmp_path, f"file://{tmp_path}/checkpoints")
    assert scenario.returncode == 0, cluster.explain(scenario)
    results = json.loads(out.read_text())
    assert results["params"]["master"] == cluster.url
    [row] = results["rows"]
    # the power-law generator drops duplicate edges and self-loops: at most the nominal count
    assert row["nominal_edges"] == EDGES and 0.9 * EDGES <= row["edges"] <= EDGES, row
    assert 0 < row["live"] <= row["edges"] + 1, row
    assert row["load_s"] > 0 and row["restart_one_edge_s"] > 0, row
    # the driver's heap as its JVM reports it: what stays after a full collection within the
    # heap's limit (1 GB, the benchmark's default driver memory); the pools' peaks summed (an
    # upper bound that may pass the limit: each pool peaks at its own time) counted
    assert 0 < row["driver_heap_retained_mb"] <= row["driver_heap_max_mb"] <= 1024, row
    assert row["driver_heap_peak_mb"] > 0, row
