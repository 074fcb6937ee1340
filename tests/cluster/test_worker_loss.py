"""A worker lost mid-update: ``kill -9`` of one of the two standalone workers and its
executor, its folders deleted (blocks, shuffle files, the state stores' working copies); the
application goes on on the other worker (or restarts itself) and loses nothing, and a new
worker is started in the lost one's place.

Runs after the other cluster tests (this module's name sorts last): it replaces the
session's workers.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.cluster.conftest import SCENARIO_TIMEOUT, Cluster
from tests.spark.pipeline_killer import committed, tail
from tests.spark.test_pipeline import (
    KILLED_VIEWS,
    check_killed_views,
    random_batches,
    random_graph_batches,
    write_killed_inputs,
)

pytestmark = [pytest.mark.spark, pytest.mark.cluster]

FILES = 4
#: the progress (micro-batches committed over the three views, run one after another) at
#: which the worker is lost: in the sum view's micro-batches, then in the reach view's (its
#: fixpoint updates, whose scratch frames live in the executor's blocks)
LOSSES = (2, 2 * FILES + 2)
#: seconds the application runs on one worker before the new one starts
ON_ONE_WORKER = 5.0


def wait_for_progress(process: subprocess.Popen[str], out: Path, point: int, log: Path) -> None:
    deadline = time.monotonic() + SCENARIO_TIMEOUT
    while committed(out, KILLED_VIEWS) < point:
        assert process.poll() is None, f"the pipeline ended before progress {point}:\n{tail(log)}"
        assert time.monotonic() < deadline, f"no progress {point} in {SCENARIO_TIMEOUT} s:\n{tail(log)}"
        time.sleep(0.2)


@pytest.mark.spec("SKIP-DEC-SPARK-STATE", evidence="example")  # (its reach view: FIX-DEC-SPARK-STATE too; a check cites one paper)
def test_a_worker_lost_mid_update_with_its_folders_loses_nothing(
        cluster: Cluster, spark: Any, tmp_path: Path) -> None:
    """``incspec pipeline`` with a sum, a min and a reach view over four files on the
    cluster of two workers, an executor on each; a worker is killed with its executor and
    its folders deleted twice (in the sum view's micro-batches, then in the reach view's:
    first the oldest worker, then the other original one), a new worker started each time.
    The application ends by itself with status 0, each view equals its recomputation, and
    every micro-batch's changes were published exactly once, leading through the views of
    the files in order."""
    batches, graph = random_batches(seed=11, count=FILES), random_graph_batches(seed=12, count=FILES)
    inp, out, shared = tmp_path / "in", tmp_path / "out", tmp_path / "shared"
    write_killed_inputs(inp, batches, graph)
    args = [sys.executable, "-m", "spark_impl.pipeline", "--input", str(inp), "--output", f"file://{out}",
            "--checkpoint", f"file://{out / '_checkpoint'}"]
    for view in KILLED_VIEWS:
        args += ["--view", view]
    log = tmp_path / "pipeline.log"
    with log.open("w") as sink:
        process = subprocess.Popen(args, cwd=tmp_path, env=cluster.env(f"file://{shared / 'rdd'}"),
                                   stdout=sink, stderr=subprocess.STDOUT, text=True)
    try:
        for point in LOSSES:
            wait_for_progress(process, out, point, log)
            cluster.standalone.kill_worker()
            time.sleep(ON_ONE_WORKER)
            cluster.standalone.start_worker()
        status = process.wait(timeout=SCENARIO_TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert status == 0, f"the pipeline exited {status}:\n{tail(log)}\n--- executor\n{cluster.executor_logs()}"
    check_killed_views(spark, out, KILLED_VIEWS, batches, graph)
