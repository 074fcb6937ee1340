"""A transient failure between the JVM and its Python workers is retried, never fatal.

On a loaded machine a Python worker may fail to connect back to the JVM in time (the
driver-side worker of ``transformWithStateInPandas`` timing out with
``CANNOT_OPEN_SOCKET``), or die. The micro-batch it hit is uncommitted, so the engines
restart the query from its checkpoint (:func:`spark_impl.errors.transient`). Each test
injects one such failure in the middle of a run and checks that the run completes with
the results of an undisturbed run, computed by hand or by the test's own fold.

* a Python worker *really killed* (SIGKILL) while it folds a micro-batch;
* the handshake's timeout, raised as PySpark raises it (the same error class and
  message), once, inside the micro-batch of a lockstep conformance run, of a pipeline
  run and of a stream query, and inside a Z-set step (the timeout itself cannot be
  provoked on demand).
"""

from __future__ import annotations

import logging
import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.spark.test_lockstep import CASES, EXPECTED, semantic
from tests.spark.test_pipeline import BATCHES, min_inputs, run, view_of, write_batch

pytestmark = pytest.mark.spark

#: the error PySpark's worker raises when its connection to the JVM times out (as logged
#: in the failure this guards against: a busy 2-core machine)
HANDSHAKE_TIMEOUT = ("tried to connect to ('127.0.0.1', 35911), but an error occurred: timed out")


def injected_restarts(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The restarts logged for the injected failure (a loaded machine may add real ones,
    which the tests do not count: their number depends on the load)."""
    return [r.getMessage() for r in caplog.records
            if "starting it again" in r.getMessage() and "35911" in r.getMessage()]


def handshake_timeout() -> Exception:
    from pyspark.errors import PySparkRuntimeError

    return PySparkRuntimeError(errorClass="CANNOT_OPEN_SOCKET",
                               messageParameters={"errors": str([HANDSHAKE_TIMEOUT])})


def failing_once(method: Callable[..., Any], at_call: int) -> tuple[Callable[..., Any], list[int]]:
    """``method`` raising :func:`handshake_timeout` on its ``at_call``-th call only; the
    list counts the calls."""
    calls: list[int] = []

    def wrapper(self: Any, *args: Any) -> Any:
        calls.append(1)
        if len(calls) == at_call:
            raise handshake_timeout()
        return method(self, *args)

    return wrapper, calls


def test_the_handshake_timeout_and_a_dead_worker_are_transient() -> None:
    from spark_impl.errors import cause, transient

    timeout = handshake_timeout()
    assert transient(timeout)
    assert "CANNOT_OPEN_SOCKET" in cause(timeout)
    for text in ("org.apache.spark.SparkException: Python worker exited unexpectedly (crashed)",
                 "Timed out while waiting for the Python worker to connect back",
                 "[STREAMING_PYTHON_RUNNER_INITIALIZATION_FAILURE] Streaming Runner initialization failed"):
        assert transient(RuntimeError(f"[STREAM_FAILED] Query terminated with exception:\n{text}"))
    # the data's own failures are not: a reducer raising, a refused delta, an overflow
    from spark_impl.reduce.maintained_view import InvalidDelta

    for error in (RuntimeError("PythonException: ZeroDivisionError: division by zero"),
                  InvalidDelta("a", 1, 0, 1), ArithmeticError("[ARITHMETIC_OVERFLOW] overflow")):
        assert not transient(error)


def test_a_worker_that_cannot_import_is_not_transient() -> None:
    """A driver-side runner whose interpreter lacks a module (as a standalone cluster's
    ``python3`` without pandas failed) fails the same way at every restart: not retried, and
    its one-line cause names the missing module, not the runner."""
    from spark_impl.errors import cause, transient

    error = RuntimeError(
        "[STREAM_FAILED] Query terminated with exception: [STREAMING_PYTHON_RUNNER_INITIALIZATION_FAILURE] "
        "Streaming Runner initialization failed, returned -2. Cause: Traceback (most recent call last):\n"
        '  File "keyed_fold.py", line 36, in <module>\n    import pandas as pd\n'
        "ModuleNotFoundError: No module named 'pandas'")
    assert not transient(error)
    assert cause(error) == "ModuleNotFoundError: No module named 'pandas'"


def test_a_python_worker_killed_mid_batch_is_restarted(spark: Any, tmp_path: Path,
                                                       caplog: pytest.LogCaptureFixture) -> None:
    """A user reducer whose ``add`` kills its own Python worker (SIGKILL) the first time it
    sees the value 99: the micro-batch is run again from the checkpoint and the view and
    its changes are those of an undisturbed run."""
    from spark_impl.reduce.reducer_kinds import PythonReducer
    from spark_impl.reduce.view_runner import ViewRunner

    marker = str(tmp_path / "killed")

    def add(a: int, v: int) -> int:
        if v == 99:
            try:
                os.close(os.open(marker, os.O_CREAT | os.O_EXCL))  # once, across processes
            except FileExistsError:
                pass
            else:
                os.kill(os.getpid(), signal.SIGKILL)
        return a + v

    killing_sum = PythonReducer("killing-sum", 0, add, lambda a, v: a - v)
    seen: list[dict[str, Any]] = []

    def sink(changes: Any, batch_id: int) -> None:
        seen.append({r["key"]: r["accumulator"] if r["present"] else None for r in changes.collect()})

    runner = ViewRunner(spark, killing_sum, "string", "bigint", f"file://{tmp_path}/view", sink)
    rows = "k string, v bigint, w bigint"
    caplog.set_level(logging.WARNING, logger="spark_impl")
    try:
        runner.step(spark.createDataFrame([("a", 3, 1), ("a", 5, 1), ("b", 1, 1)], rows))
        runner.step(spark.createDataFrame([("a", 99, 1), ("b", 1, -1)], rows))
        assert os.path.exists(marker)  # the worker was killed
        assert seen[0] == {"a": "8", "b": "1"}
        assert seen[-1] == {"a": "107", "b": None}  # 3 + 5 + 99; b emptied leaves the view
        assert {r["key"]: r["accumulator"] for r in runner.read_view().collect()} == {"a": "107"}
        restarts = [r.getMessage() for r in caplog.records if "starting it again" in r.getMessage()]
        assert any("Python worker exited unexpectedly" in line for line in restarts), restarts
    finally:
        runner.stop()


@pytest.mark.heavy
def test_a_handshake_timeout_in_a_lockstep_run_changes_no_result(
        spark: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """The suite's reduce, fixpoint and stream cases run together, the reduce dataflow's
    second micro-batch failing once with the handshake timeout: every case gets the
    observations of an undisturbed run (those of ``test_lockstep``)."""
    from conformance.adapters.in_process import InProcess
    from spark_impl.conformance_adapter import implementation
    from spark_impl.reduce.view_runner import ViewRunner

    handle, calls = failing_once(ViewRunner._handle, at_call=2)
    monkeypatch.setattr(ViewRunner, "_handle", handle)
    caplog.set_level(logging.WARNING, logger="spark_impl")
    results = list(InProcess(implementation).run(CASES))
    assert len(calls) >= 3  # the failed call, then the same micro-batch again, and on
    for c, result in zip(CASES, results, strict=True):
        assert result.status == "result", result.message
        assert semantic(result.observations) == EXPECTED[c.id], c.id
    assert len(injected_restarts(caplog)) == 1


@pytest.mark.heavy
def test_a_handshake_timeout_while_a_refused_batch_is_undone_changes_no_result(
        spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """A refused batch is undone by running its micro-batch again, emptied: that run
    failing once with the handshake timeout (as on a busy machine, where every query
    start launches a Python worker) is restarted too; the refusal and the state stand."""
    from spark_impl.reduce.maintained_view import InvalidDelta
    from spark_impl.reduce.view_runner import ViewRunner

    handle, fired = ViewRunner._handle, []

    def failing_on_the_first_empty_batch(self: Any, batch: Any, batch_id: int) -> None:
        if not fired and batch.isEmpty():
            fired.append(batch_id)
            raise handshake_timeout()
        handle(self, batch, batch_id)

    monkeypatch.setattr(ViewRunner, "_handle", failing_on_the_first_empty_batch)
    caplog.set_level(logging.WARNING, logger="spark_impl")
    seen: list[dict[str, Any]] = []

    def sink(changes: Any, batch_id: int) -> None:
        seen.append({r["key"]: r["accumulator"] if r["present"] else None for r in changes.collect()})

    runner = ViewRunner(spark, "min", "string", "bigint", f"file://{tmp_path}/view", sink)
    rows = "k string, v bigint, w bigint"
    try:
        runner.step(spark.createDataFrame([("a", 3, 1), ("a", 5, 1)], rows))
        with pytest.raises(InvalidDelta):
            runner.step(spark.createDataFrame([("a", 4, -1)], rows))
        assert fired == [1]  # the undo's run of micro-batch 1 failed once
        runner.step(spark.createDataFrame([("a", 3, -1)], rows))
        assert seen[0] == {"a": 3} and seen[-1] == {"a": 5}
        assert {r["key"]: r["accumulator"] for r in runner.read_view().collect()} == {"a": 5}
    finally:
        runner.stop()
    assert len(injected_restarts(caplog)) == 1


def test_a_handshake_timeout_in_a_pipeline_run_loses_nothing(
        spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``incspec pipeline`` with a min view (a Python operator), its second micro-batch
    failing once with the handshake timeout: the run restarts from the checkpoint and
    ends with the view of a fold of every input file, each batch's changes published."""
    from spark_impl.pipeline import ReduceView, published_batches

    inp, out = tmp_path / "in", tmp_path / "out"
    for i, rows in enumerate(BATCHES):
        write_batch(inp, f"b{i}.jsonl", rows, i)
    handle, calls = failing_once(ReduceView.handle, at_call=2)
    monkeypatch.setattr(ReduceView, "handle", handle)
    lines: list[str] = []
    assert run(spark, inp, out, reducer="min", log=lines.append) == 0
    assert len(calls) >= len(BATCHES) + 1  # the failed micro-batch ran again
    assert view_of(spark, out, "reduce-min") == min_inputs(BATCHES) == {"a": 5, "b": 1, "c": 4}
    assert published_batches(spark, str(out), "reduce-min") == list(range(len(BATCHES)))
    assert sum("starting it again" in line and "35911" in line for line in lines) == 1, lines


def test_a_handshake_timeout_in_a_stream_query_changes_no_output(
        spark: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """The stream area's query failing once with the handshake timeout is run again from
    the start: the outputs are those of an undisturbed run."""
    from spark_impl.stream import runner
    from spark_impl.stream.runner import SparkStreams

    original = runner._query_once
    query_once, calls = failing_once(lambda _, *args: original(*args), at_call=1)
    monkeypatch.setattr(runner, "_query_once", lambda *args: query_once(None, *args))
    caplog.set_level(logging.WARNING, logger="spark_impl")
    assert SparkStreams(spark).run("prefix_sum", {}, [[1, 2], [3]]) == (1, 3, 6)
    assert len(calls) >= 2  # the failed query, then again
    assert len(injected_restarts(caplog)) == 1


def test_a_handshake_timeout_in_a_zset_step_changes_no_result(
        spark: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """A Z-set step's job failing at the handshake of its UDFs' Python workers, once, in the
    second version's step as it writes what it keeps: the step is run again from the state
    the failure left unchanged, and every version's output delta is the reference's standard
    semantics (the join-distinct program and trace of tests/spark/test_zset.py)."""
    from spark_impl.zset.dataflow import ZSetDataflow
    from tests.spark.test_zset import PROGRAMS, TRACES, assert_matches_standard_semantics

    keep, calls = failing_once(ZSetDataflow._keep, at_call=2)
    monkeypatch.setattr(ZSetDataflow, "_keep", keep)
    with caplog.at_level(logging.WARNING, logger="spark_impl"):
        assert_matches_standard_semantics(spark, "join-distinct", PROGRAMS["join-distinct"],
                                          TRACES["join-distinct"])
    assert len(calls) == len(TRACES["join-distinct"]) + 1  # the failed write, then the retry's
    (restart,) = injected_restarts(caplog)
    assert "the Z-set step of version 1" in restart and "CANNOT_OPEN_SOCKET" in restart
