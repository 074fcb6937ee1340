"""``incspec pipeline``: batches from JSON lines, CSV and Parquet; a crash in the
middle of a batch and a restart give the outputs of an uninterrupted run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]
VIEWS = ["--view", "reduce:sum", "--view", "reach", "--snapshot-every", "2"]


def write_batches(spark: Any, folder: Path) -> None:
    folder.mkdir()

    def jsonl(name: str, rows: list[dict[str, Any]]) -> None:
        (folder / name).write_text("".join(json.dumps(r) + "\n" for r in rows))

    jsonl("b001.jsonl", [{"key": "a", "value": 3, "weight": 1}, {"key": "a", "value": 5, "weight": 1},
                         {"key": "b", "value": 1, "weight": 2}])
    (folder / "b002.csv").write_text("key,value,weight\na,3,-1\nc,4,1\n")
    spark.createDataFrame([("b", 1, -1), ("a", 7, 1)], "key string, value bigint, weight bigint") \
        .coalesce(1).write.parquet(str(folder / "b003.parquet"))
    jsonl("b004.jsonl", [{"kind": "root", "src": "R", "dst": None, "weight": 1},
                         {"kind": "edge", "src": "R", "dst": "A", "weight": 1},
                         {"kind": "edge", "src": "A", "dst": "B", "weight": 1},
                         {"kind": "edge", "src": "B", "dst": "A", "weight": 1}])
    jsonl("b005.jsonl", [{"kind": "edge", "src": "R", "dst": "A", "weight": -1},
                         {"kind": "edge", "src": "R", "dst": "C", "weight": 1}])


def outputs(spark: Any, out: Path) -> dict[str, Any]:
    """Every view and every batch's changes, as sorted rows."""
    found: dict[str, Any] = {}
    for part in sorted(out.glob("*/view")) + sorted(out.glob("*/changes/batch=*")):
        rows = spark.read.parquet(str(part)).collect()
        found[str(part.relative_to(out))] = sorted(tuple(r) for r in rows)
    return found


def run_cli(args: list[str], crash_at: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("INCSPEC_PIPELINE_CRASH_AT", None)
    if crash_at:
        env["INCSPEC_PIPELINE_CRASH_AT"] = crash_at
    return subprocess.run([sys.executable, "-m", "spark_impl.pipeline", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)


def test_crash_and_restart_equal_an_uninterrupted_run(spark: Any, tmp_path: Path) -> None:
    from spark_impl.pipeline import ViewSpec, run

    inputs = tmp_path / "in"
    write_batches(spark, inputs)
    whole = tmp_path / "whole"
    assert run(spark, inputs, whole, whole / "_checkpoint",
               [ViewSpec.parse("reduce:sum"), ViewSpec.parse("reach")], snapshot_every=2) == 0
    expected = outputs(spark, whole)
    assert expected["reduce-sum/view"] == [("a", 12), ("b", 1), ("c", 4)]
    assert expected["reach/view"] == [("C", 1), ("R", 0)]

    crashed = tmp_path / "crashed"
    args = ["--input", str(inputs), "--output", str(crashed), *VIEWS]
    # b004 is the 4th batch: its changes and view are written and its snapshot
    # too, but the crash comes before the pointer to the snapshot is published
    # (and before b004 is committed); the restart replays b003 and b004 on
    # b002's snapshot, rewriting their outputs identically.
    crash = run_cli(args, crash_at="b004:snapshot")
    assert crash.returncode == 17, crash.stdout + crash.stderr
    assert "batch 3/5" in crash.stdout and "batch 4/5" not in crash.stdout
    last = run_cli(args)
    assert last.returncode == 0, last.stdout + last.stderr
    assert "replaying 1 committed batch(es)" in last.stdout and "batch 5/5" in last.stdout
    assert outputs(spark, crashed) == expected
