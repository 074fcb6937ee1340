"""The update anatomy benchmark on a tiny graph: every update checked by the benchmark
itself, and Spark's status store read back (jobs, stages, tasks, time in jobs)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks import update_anatomy_bench

pytestmark = [pytest.mark.spark, pytest.mark.heavy]


def test_a_tiny_run_reads_each_updates_jobs_from_the_status_store(spark: Any, tmp_path: Path) -> None:
    out = tmp_path / "anatomy.json"
    assert update_anatomy_bench.main(["--sizes", "12", "--updates", "1", "--warmups", "0", "--out", str(out)]) == 0
    (row,) = json.loads(out.read_text())["rows"]
    (update,) = row["updates"]
    assert row["nodes"] == 12 and row["stored"]["edges"] > 0
    assert 1 <= update["jobs"] <= update["stages"] <= update["tasks"]
    assert 0 < update["in_jobs_s"] <= update["wall_s"]
    assert update["driver_s"] == pytest.approx(update["wall_s"] - update["in_jobs_s"])


def test_a_wrong_delta_stops_the_run(spark: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check is not a formality: a recomputation that disagrees with the engine stops it."""
    calls = iter(range(1, 100))  # each recomputation holds a node of its own, which no graph has
    monkeypatch.setattr(update_anatomy_bench, "lfp", lambda roots, edges: {*roots, -next(calls)})
    with pytest.raises(SystemExit, match="not the recomputation's"):
        update_anatomy_bench.main(["--sizes", "12", "--updates", "1", "--warmups", "0"])
