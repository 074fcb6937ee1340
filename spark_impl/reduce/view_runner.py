"""Drive a maintained reduce view one change batch at a time (tests, adapter, benchmarks).

Each batch is a Parquet folder ``ROOT/input/batch-NNNNNN``: a DataFrame is written
aside as it is partitioned (:meth:`ViewRunner.step`), a folder already written is
taken as it is (:meth:`ViewRunner.step_folder`); either is renamed into place, so
the file source never sees half of it, and the query runs exactly that
micro-batch (``processAllAvailable``). State and
progress live in ``ROOT/checkpoint``: a runner built again on the same
``ROOT`` resumes where the last committed batch left off.

A refused batch (:class:`~spark_impl.reduce.maintained_view.InvalidDelta`) stops the query
uncommitted; the runner then empties that batch's folder and restarts from the
checkpoint, so the refused micro-batch is re-run empty and the state is as before
it: the caller may go on with the next batch. A caller that can say which rows to
keep (``step(rows, retry=...)``: the suite's lockstep runner takes a refused case's
rows out) has them run in the refused micro-batch's place instead, saving a
micro-batch: the re-run reads the files Spark recorded for the micro-batch by name
(one missing is dropped, one rewritten is read anew), so the kept rows are written
under the first recorded name and the others deleted.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql.streaming.query import StreamingQuery
from pyspark.sql.streaming.readwriter import DataStreamWriter

from spark_impl.conf_scope import restore_conf, set_conf
from spark_impl.connect import is_connect
from spark_impl.errors import SparkEngineError, cause, restart_after
from spark_impl.reduce.compaction import Compaction
from spark_impl.reduce.group_generations import COMPACTION_FLOOR, Generations
from spark_impl.reduce.maintained_view import (
    MaintainedView,
    Refused,
    maintained_view,
    refusal_in,
    refusals_carried,
)
from spark_impl.reduce.reducer_kinds import SparkReducer
from spark_impl.storage.files import file_system
from spark_impl.storage.local_fs import local_path

Sink = Callable[[DataFrame, int], None]
#: given a step's refusal, the rows to run in the refused micro-batch's place (None: none)
Retry = Callable[[Refused], DataFrame | None]

#: Streaming queries start one at a time (view runners, the pipeline's views followed at once):
#: a transformWithStateInPandas query's start launches a driver-side Python worker, and
#: concurrent starts were seen to time out waiting for it ("Python worker failed to connect back").
QUERY_STARTS = threading.Lock()

log = logging.getLogger(__name__)

#: How long a query that found no new input waits before it looks again (Spark's default:
#: 10 ms). A query's value is taken from the session when the query starts.
POLLING_DELAY = "spark.sql.streaming.pollingDelay"

#: The class that writes a streaming query's checkpoint files, each written aside and moved into
#: place: its offsets and commits (on the driver) and its state store's changelogs and
#: snapshots (in its tasks). Taken from the session when the query starts.
CHECKPOINT_FILE_MANAGER = "spark.sql.streaming.checkpointFileManagerClass"
#: Through Hadoop's ``FileSystem`` (a file moved into place by ``rename``), where Spark's default
#: goes through its ``FileContext``. On a local disk that move took 27-43 ms a file through
#: ``FileContext`` (measured for the project's own files, ``HadoopFS.write_text``), and a
#: micro-batch moves at least three: its offsets, its commit, a changelog per state store
#: partition. Measured, the sum view over 2·10^6 stored rows, 10^4-change batches, 40 warm-up
#: batches, medians of 12 steps (a throwaway anatomy: per-stage times and the query's progress):
#: a step 593 -> 443 ms, Spark's own aggregation beside it 296 -> 174 ms; the offsets' write
#: (``walCommit``) 24-30 -> 5-10 ms, RocksDB's changelog commit 69-114 -> 0-4 ms a micro-batch
#: (summed over its two tasks). Only for a checkpoint on the local file system (``file:``):
#: there ``rename(2)`` replaces a file atomically, and Spark's check that a file it must not
#: overwrite is absent comes just before it (one writer per checkpoint). Elsewhere (HDFS, object
#: stores) Spark's default stays: a ``FileSystem`` rename onto an existing file fails there, and
#: a file Spark asks to replace would be kept.
RENAMING_FILE_MANAGER = ("org.apache.spark.sql.execution.streaming.checkpointing."
                         "FileSystemBasedCheckpointFileManager")


@contextmanager
def query_start(spark: SparkSession, checkpoint: str, polling_delay: str | None = None
                ) -> Iterator[None]:
    """Around a streaming query's start (one at a time: :data:`QUERY_STARTS`): the settings it
    takes from the session, for a query checkpointed in ``checkpoint`` (a Hadoop URL) that
    waits ``polling_delay`` between looks for input (:data:`POLLING_DELAY`; None: the
    session's); the session's own are put back once it started."""
    local = checkpoint.startswith("file:") and local_path(checkpoint) is not None
    settings = {POLLING_DELAY: polling_delay,
                CHECKPOINT_FILE_MANAGER: RENAMING_FILE_MANAGER if local else None}
    with QUERY_STARTS:
        before = set_conf(spark, {key: value for key, value in settings.items() if value is not None})
        try:
            yield
        finally:
            restore_conf(spark, before)


class ViewRunner:
    """One maintained view over a folder of change batches, stepped by the caller."""

    def __init__(self, spark: SparkSession, reducer: str | SparkReducer, key_type: str,
                 value_type: str, root: str, sink: Sink, *, value_column_type: str | None = None,
                 with_work: bool = False, work_by: Column | None = None,
                 buckets: int | None = None, polling_delay: str | None = None,
                 compaction_floor: int = COMPACTION_FLOOR) -> None:
        """``polling_delay`` (e.g. ``"100ms"``): how long the query, finding no new batch,
        waits before it looks again (:data:`POLLING_DELAY`; None: the session's). Every look
        lists the input folder: a runner idle while others step (the lockstep engine's
        groups) burns CPU at Spark's 10 ms; a longer wait delays a step by at most as much.

        A group view is compacted after a step once the groups it emptied since its last
        compaction reach its live groups and ``compaction_floor``
        (:mod:`spark_impl.reduce.group_generations`; over Spark Connect its counts stay on the
        server: only :meth:`compact` does it)."""
        if with_work and is_connect(spark):
            raise SparkEngineError("unsupported", (
                "incspec: the view runner's work counters are counted inside foreachBatch, which "
                "over Spark Connect runs on the server: they do not come back; run it with a local "
                "or cluster master"))
        self.spark, self.root, self.sink = spark, root.rstrip("/"), sink
        self.fs = file_system(spark, self.root)
        self.schema = f"k {key_type}, v {value_column_type or value_type}, w bigint"
        self.reducer, self.value_type, self.with_work = reducer, value_type, with_work
        self.batches = self.fs.count_dirs(f"{self.root}/input", "batch-")
        self.work_by, self.buckets, self.polling_delay = work_by, buckets, polling_delay
        #: the last micro-batch's work counters, per value of ``work_by`` (else under ``None``)
        self.work: dict[object, dict[str, int]] = {}
        #: the query's progress report of the last micro-batch a step ran (Spark's
        #: ``StreamingQuery.lastProgress``: durations, state operators' metrics)
        self.progress: dict[str, Any] | None = None
        self.refusal: Refused | None = None
        self.generations = Generations(spark, self.fs, f"{self.root}/compaction", f"{self.root}/checkpoint")
        self.compaction = Compaction(spark, self.fs, f"{self.root}/checkpoint", self.generations,
                                     compaction_floor)
        self.view: MaintainedView = self._build()
        self.compaction.start(self.view)
        self.query: StreamingQuery | None = None

    def _build(self) -> MaintainedView:
        return maintained_view(self._source(), self.reducer, value_type=self.value_type,
                               buckets=self.buckets, checkpoint=f"{self.root}/checkpoint",
                               generations=self.generations)

    def _source(self) -> DataFrame:
        """The stream of ``k, v, w`` rows: every batch folder moved into the input."""
        return (self.spark.readStream.schema(self.schema)
                .option("maxFilesPerTrigger", 1_000_000)
                .parquet(f"{self.root}/input/batch-*/*.parquet"))

    def _start(self) -> StreamingQuery:
        if self.query is None or not self.query.isActive:
            with query_start(self.spark, f"{self.root}/checkpoint", self.polling_delay):
                self.query = self._writer().start()
        return self.query

    def _writer(self) -> DataStreamWriter:
        return (self.view.updates.writeStream.outputMode("update")
                .foreachBatch(self._handle)
                .option("checkpointLocation", f"{self.root}/checkpoint")
                .trigger(processingTime="0 seconds"))

    def _handle(self, batch: DataFrame, batch_id: int) -> None:
        try:
            with refusals_carried(batch), self.view.batch_changes(batch) as changes:
                self.sink(changes, batch_id)
                if self.with_work:
                    self.work = self.view.work(batch, self.work_by)
            self.compaction.seen(self.view, batch_id)
        except Refused as refusal:
            self.refusal = refusal  # the query wraps it in a Java exception: keep it whole
            raise

    def step(self, rows: DataFrame, retry: Retry | None = None) -> None:
        """Apply one batch of ``k, v, w`` rows; raises
        :class:`~spark_impl.reduce.maintained_view.InvalidDelta` (state kept). With ``retry``,
        a refusal is first given to it: the rows it returns run in the refused micro-batch's
        place (and may be refused in turn); only when it returns None is the refusal raised.

        A transient failure (:func:`~spark_impl.errors.transient`: a Python worker that did
        not connect back in time, or died) restarts the query from its checkpoint, which runs
        the uncommitted micro-batch again, up to :data:`~spark_impl.errors.RETRIES` times; a
        failure that stands leaves the state as before the batch (its folder is emptied).

        The rows are written as they are partitioned, one file per partition (in parallel,
        not funnelled through one task)."""
        aside, target = self._next_batch()
        rows.select("k", "v", "w").write.mode("overwrite").parquet(aside)
        self.fs.rename(aside, target)
        self._run(target, retry)

    def step_folder(self, folder: str) -> None:
        """:meth:`step` for a batch already written: ``folder`` (a Hadoop path on the file
        system of the runner's root) holds Parquet files of ``k, v, w`` rows; it is moved
        into the input, not read and written again."""
        _, target = self._next_batch()
        self.fs.rename(folder, target)
        self._run(target)

    def _next_batch(self) -> tuple[str, str]:
        """The next batch's folder aside (to write it in) and in the input."""
        name = f"batch-{self.batches:06d}"
        self.batches += 1
        return f"{self.root}/staging/{name}", f"{self.root}/input/{name}"

    def _run(self, target: str, retry: Retry | None = None) -> None:
        while True:
            try:
                self._process(target)
                break
            except Refused as refused:
                try:
                    kept = retry(refused) if retry is not None else None
                    if kept is not None:
                        self._rewrite(target, kept)
                except Exception:
                    self._skip_after_failure(target)  # the state as before the batch, as for any failure
                    raise
                if kept is None:
                    self._skip(target)
                    raise
                self.stop()  # the next round runs the micro-batch again, from the checkpoint
            except Exception:
                self._skip_after_failure(target)
                raise
        if self.view.native and self.compaction.due():
            self.compact()
        elif self.compaction.eviction_done(self.view):  # on without the watermark
            self.stop()
            self.view = self._build()

    def _rewrite(self, target: str, rows: DataFrame) -> None:
        """``rows`` in place of the refused micro-batch's files: written aside as one file,
        moved in under the name of the first file Spark recorded for the micro-batch, the
        others deleted (the re-run reads those names: see the module docstring)."""
        recorded = [n for n in self.fs.names(target) if n.endswith(".parquet")]
        assert recorded, f"{target}: a refused micro-batch without files"
        aside = f"{self.root}/staging/retry-{target.rsplit('/', 1)[-1]}"
        rows.select("k", "v", "w").coalesce(1).write.mode("overwrite").parquet(aside)
        (written,) = [n for n in self.fs.names(aside) if n.endswith(".parquet")]
        for name in recorded:
            self.fs.delete(f"{target}/{name}")
        self.fs.rename(f"{aside}/{written}", f"{target}/{recorded[0]}")
        self.fs.delete(aside)

    def _process(self, target: str) -> None:
        """Run the pending micro-batch, the query restarted from its checkpoint after a
        transient failure (the micro-batch was not committed: a restart runs it again);
        a refusal is raised as :class:`~spark_impl.reduce.maintained_view.InvalidDelta`."""
        attempt = 0
        while True:
            attempt += 1
            self.refusal = None
            try:
                query = self._start()
                query.processAllAvailable()
                self.progress = query.lastProgress
                return
            except Exception as error:  # noqa: BLE001 (a refusal is translated, the rest re-raised)
                refused = self.refusal or refusal_in(error)
                if refused is not None:
                    raise refused from None
                self.stop()
                if not restart_after(error, attempt, f"{self.root}: {target.rsplit('/', 1)[-1]}"):
                    raise

    def _skip(self, target: str) -> None:
        """Empty the batch's folder and re-run its micro-batch from the checkpoint (with the
        same restarts): its recorded files are gone, so it runs empty and the state stays as
        before the batch."""
        self.fs.delete(target)
        self.fs.mkdirs(target)  # the folder stays: it numbers the batches
        self.stop()
        self._process(target)

    def _skip_after_failure(self, target: str) -> None:
        """After a failure that stands: the batch emptied, so the next step does not run it
        again. Best effort: if this fails too, the first failure is the one to report."""
        try:
            self._skip(target)
        except Exception as again:  # noqa: BLE001
            log.warning("%s: could not empty the failed batch %s (%s)", self.root, target, cause(again))
            self.stop()

    def compact(self) -> None:
        """Re-state a group view's live groups as its next generation
        (:meth:`~spark_impl.reduce.compaction.Compaction.compact` says when nothing is done):
        the groups it emptied leave the state with the second step after."""
        self.stop()
        if self.compaction.compact(self.view):
            self.view = self._build()

    def restatable(self) -> bool:
        """Whether a group view's state can be re-stated now (:meth:`restate`): no micro-batch
        planned and not committed, and every generation written already read into the state."""
        if not self.view.native or self.compaction.planned():
            return False
        if not self.committed():
            return self.generations.current == 0
        state = self.view.state_generation(self.spark, f"{self.root}/checkpoint")
        return (state or 0) == self.generations.current

    def restate(self, rows: DataFrame) -> None:
        """With the query stopped: the view's state replaced by ``rows`` (``kind, k, v, w,
        a0..``: the live groups another holder of the view kept, as
        :meth:`~spark_impl.reduce.bulk_view.BulkViewRunner.live_groups` gives them), written
        as its next generation. The next micro-batch reads them with its changes, and the one
        after evicts what the older generation held. Only when :meth:`restatable`."""
        self.stop()
        if not self.restatable():
            raise SparkEngineError("unsupported", (
                f"{self.root}: the view cannot be re-stated now (a micro-batch planned and not "
                "committed, or a generation written and not read yet)"))
        self.generations.write(rows)
        self.compaction.counts.emptied = 0
        self.view = self._build()

    def committed(self) -> bool:
        """Whether a micro-batch has been committed (before one, the view is empty)."""
        return any(name.isdigit() for name in self.fs.names(f"{self.root}/checkpoint/commits"))

    def read_view(self) -> DataFrame:
        if not self.committed():
            return self.spark.createDataFrame([], "key string, accumulator string")
        return self.view.read_view(self.spark, f"{self.root}/checkpoint")

    def stored_sizes(self) -> dict[str, int]:
        return self.view.stored_sizes(self.spark, f"{self.root}/checkpoint")

    def stop(self) -> None:
        if self.query is not None and self.query.isActive:
            self.query.stop()
        self.query = None
