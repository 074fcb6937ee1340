"""The cluster fixture's process handling (spark_impl/standalone.py), with stand-in
processes instead of Spark's: a daemon that dies says so with its log, one that never gets
ready times out with its log, and stopping kills a daemon's whole process group."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from spark_impl.standalone import ClusterStartError, Standalone


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, killed and not yet reaped by its new parent, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def standalone(tmp_path: Path) -> Standalone:
    cluster = Standalone(tmp_path)
    (tmp_path / "logs").mkdir()
    return cluster


def test_a_daemon_that_exits_fails_the_start_with_its_log(tmp_path: Path) -> None:
    cluster = standalone(tmp_path)
    cluster._spawn("master", ["sh", "-c", "echo 'Address already in use'; exit 3"], dict(os.environ))
    with pytest.raises(ClusterStartError) as failed:
        cluster._wait(time.monotonic() + 60, lambda state: False, "the master's web UI to answer", "master")
    assert "master exited (3)" in str(failed.value) and "Address already in use" in str(failed.value)


def test_a_daemon_never_ready_times_out_with_its_log(tmp_path: Path) -> None:
    cluster = standalone(tmp_path)
    cluster._spawn("worker", ["sh", "-c", "echo 'still connecting'; exec sleep 60"], dict(os.environ))
    try:
        with pytest.raises(ClusterStartError) as failed:
            cluster._wait(time.monotonic() + 5, lambda state: False, "the worker to register", "worker")
        assert "timed out" in str(failed.value) and "the worker to register" in str(failed.value)
        assert "still connecting" in str(failed.value)
    finally:
        cluster.stop()


def test_stop_kills_the_daemons_process_groups_children_included(tmp_path: Path) -> None:
    cluster = standalone(tmp_path)
    pids = tmp_path / "pids"
    # a daemon whose child (as an executor is the worker's) ignores the TERM its parent gets
    cluster._spawn("worker", ["sh", "-c", f"(trap '' TERM; exec sleep 300) & echo $! > {pids}; wait"],
                   dict(os.environ))
    deadline = time.monotonic() + 30
    while not (pids.exists() and pids.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.1)
    child = int(pids.read_text())
    cluster.stop()
    assert cluster.processes == {}
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if not alive(child):
            return
        time.sleep(0.1)
    pytest.fail(f"the daemon's child {child} outlived stop()")
