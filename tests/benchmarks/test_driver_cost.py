"""The driver-cost benchmark on a chain of 3: its three variants (the engines' settings,
Spark's DataFrame call-site capture on, PySpark's classes looked up at every use), each in
a process of its own, their rounds' deltas checked by the benchmark, the
machine and the load recorded (slow tier: two Spark sessions are started)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import driver_cost_bench

pytestmark = [pytest.mark.spark, pytest.mark.slow]


def test_a_tiny_run_measures_every_variant_and_records_the_machine(tmp_path: Path) -> None:
    out = tmp_path / "driver-cost.json"
    assert driver_cost_bench.main(["--chain", "3", "--repeats", "1", "--out", str(out)]) == 0
    results = json.loads(out.read_text())
    assert results["params"] == {"chain": 3, "repeats": 1}
    assert results["machine"]["cores"] and results["machine"]["versions"]["pyspark"]
    assert set(results["settings"]) == {"default", "call-sites", "lookups-each-time"}
    for setting in results["settings"].values():
        (row,) = setting["rows"]
        assert row["py4j_calls"] > 0 and row["wall_s"] > 0 and row["python_cpu_s"] > 0
        assert setting["medians"] == row and len(setting["load_average_before"]) == 3
    calls = {variant: setting["medians"]["py4j_calls"] for variant, setting in results["settings"].items()}
    # call sites captured: each pyspark.sql.functions call makes Py4J round trips of its own;
    # classes not pinned: each column built by name looks its class and method up first
    assert calls["call-sites"] > calls["default"] and calls["lookups-each-time"] > calls["default"]
