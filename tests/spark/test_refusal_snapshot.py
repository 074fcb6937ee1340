"""A refused micro-batch leaves no trace in the checkpoint (SKIP-DEF-8, SKIP-DEC-VIEW).

Found under load: the main job's ``reduce.sum-trace-03`` showed, one step after a
refusal, a view holding the refused batch's removals (its changes were right).
The refused batch had written state version N+1 before its handler refused it;
background maintenance stored that version as a snapshot; undoing the batch
rewrote version N+1 as a changelog only, and every later load of the checkpoint
started from the refused snapshot. ``refusal_snapshot_scenario.py`` forces that
order of events (its own Spark application); with state versions identified by
unique ids (``spark_impl.session``) the refused version is never read.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.spark.spark_process import ROOT, SLOW_RUN_LIMIT, application_env

pytestmark = pytest.mark.spark

SCENARIO = Path(__file__).with_name("refusal_snapshot_scenario.py")


@pytest.mark.spec("SKIP-DEF-8", evidence="example")
@pytest.mark.slow  # a Spark application of its own, its state store's timing forced: a minute or two
def test_a_refused_batch_snapshotted_before_its_undo_is_never_read_back() -> None:
    run = subprocess.run([sys.executable, str(SCENARIO)], cwd=ROOT, env=application_env(),
                         capture_output=True, text=True, timeout=SLOW_RUN_LIMIT)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["snapshot_seen"], "the refused version's snapshot never reached the checkpoint"
    assert report["outcomes"] == ["applied", "applied", "refused", "applied"]
    # the expected views, folded by hand from the scenario's STEPS
    assert report["views"] == [
        {"a": 4, "b": 12, "c": 9},
        {"a": 4, "b": 12, "c": 12},
        {"a": 4, "b": 12, "c": 12},  # refused: as before
        {"a": 5, "b": 12, "c": 12},
    ]
