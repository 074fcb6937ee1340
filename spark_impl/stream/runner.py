"""Runs of named processors over batches, one micro-batch per batch.

:func:`run_jobs` writes batch ``j`` of every run as the ``j``-th file of a
folder, reads the folder as a streaming file source with one file per trigger
(files ordered by modification time, set increasing here), runs the processors
of :mod:`spark_impl.stream.operator` with ``Trigger.AvailableNow`` into a memory
sink, and puts each run's output together. So micro-batch ``j`` holds exactly
batch ``j`` of each run: a run's cuts are the micro-batch boundaries
(STREAM-DEC-BATCHING), and the query makes as many micro-batches as the
longest run has batches (an empty batch is an empty file: still a micro-batch).

Many runs share one query (their rows tagged by ``run``, grouped apart), so the
conformance suite's hundreds of case cuts cost one query's start and one
micro-batch per batch index instead of a query each. The files are written
from the driver to a local folder: with a cluster master, point
``INCSPEC_STREAM_DIR`` at a folder every executor sees.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pyspark.sql import DataFrame, SparkSession

from spark_impl.errors import SparkEngineError, with_restarts
from spark_impl.stream.assemble import Row, assemble
from spark_impl.stream.kernels import Kernel, kernel
from spark_impl.stream.operator import (
    CHANGELOG,
    COUNT_ROWS,
    INPUT_SCHEMA,
    PROVIDER,
    ROCKSDB,
    apply_processors,
    spec_of,
)
from spark_impl.values import encode

Value = Any

#: progress reports kept per query (Spark's default, 100, is short of a long run)
RECENT_PROGRESS = 100_000


@dataclass(frozen=True)
class Job:
    """One run: a named processor over an input cut into batches."""

    processor: str
    params: Mapping[str, Value]
    batches: Sequence[Sequence[Value]]


@dataclass
class Outcome:
    """Each job's output (or its refusal), and what the query did."""

    outputs: list[Value | SparkEngineError]
    micro_batches: int = 0
    progress: list[dict[str, Any]] = field(default_factory=list)


class SparkStreams:
    """Runs named processors over batches on Spark (one micro-batch per batch)."""

    def __init__(self, spark: SparkSession, shuffle_partitions: int | None = None) -> None:
        self.spark = spark
        self.shuffle_partitions = shuffle_partitions
        self.last: Outcome | None = None

    def run(self, processor: str, params: Mapping[str, Value], batches: Sequence[Sequence[Value]]) -> Value:
        """The processor's output over the input cut into ``batches`` (raises
        :class:`SparkEngineError` for an unknown processor or a malformed item)."""
        (out,) = self.run_many([Job(processor, params, batches)])
        if isinstance(out, SparkEngineError):
            raise out
        return out

    def run_many(self, jobs: Sequence[Job]) -> list[Value | SparkEngineError]:
        """Several runs in one streaming query; each output is that of a run of its own."""
        self.last = run_jobs(self.spark, jobs, self.shuffle_partitions)
        return self.last.outputs


def stream_session(spark: SparkSession, shuffle_partitions: int | None = None) -> SparkSession:
    """A session sharing ``spark``'s context with the RocksDB state store provider
    (and its own shuffle partition count, the stateful operator's parallelism)."""
    child = spark.newSession()
    child.conf.set(PROVIDER, ROCKSDB)
    # a commit writes the batch's changes, not a snapshot of the whole store
    child.conf.set(CHANGELOG, "true")
    # the state's row count (``numRowsTotal``, what stream_bench reports), off for the engines
    child.conf.set(COUNT_ROWS, "true")
    child.conf.set("spark.sql.streaming.numRecentProgressUpdates", str(RECENT_PROGRESS))
    if shuffle_partitions is not None:
        child.conf.set("spark.sql.shuffle.partitions", str(shuffle_partitions))
    return child


def _checked(job: Job) -> tuple[Kernel, list[list[tuple[int, str]]]]:
    """The job's kernel and its batches as ``(pos, item text)``, every item parsed
    (a malformed item refuses the whole run before anything runs)."""
    step = kernel(job.processor, job.params)
    rows: list[list[tuple[int, str]]] = []
    pos = 0
    for batch in job.batches:
        rows.append([])
        for item in batch:
            step.parse(item)
            rows[-1].append((pos, encode(item)))
            pos += 1
    return step, rows


def write_batches(folder: str, batches: list[list[str]]) -> None:
    """Batch ``j`` (JSON lines of :data:`INPUT_SCHEMA`) as the ``j``-th file of ``folder``."""
    start = time.time() - len(batches) - 10
    for j, lines in enumerate(batches):
        path = os.path.join(folder, f"batch-{j:06d}.json")
        with open(path, "w", encoding="utf-8") as out:
            out.writelines(line + "\n" for line in lines)
        os.utime(path, (start + j, start + j))  # the source orders files by modification time


def items_stream(session: SparkSession, folder: str) -> DataFrame:
    """The items of ``folder``'s files as a stream, one file per micro-batch."""
    return session.readStream.schema(INPUT_SCHEMA).option("maxFilesPerTrigger", 1).json(folder)


def run_jobs(spark: SparkSession, jobs: Sequence[Job], shuffle_partitions: int | None = None) -> Outcome:
    """Run every job in one streaming query; see the module docstring."""
    outputs: list[Value | SparkEngineError] = [None] * len(jobs)
    shapes: dict[str, Any] = {}
    files: list[list[str]] = []
    for index, job in enumerate(jobs):
        try:
            step, rows = _checked(job)
        except SparkEngineError as refused:
            outputs[index] = refused
            continue
        run, spec = str(index), spec_of(job.processor, job.params)
        shapes[run] = step.shape
        for j, batch in enumerate(rows):
            while len(files) <= j:
                files.append([])
            files[j].extend(json.dumps({"spec": spec, "run": run, "pos": p, "item": t}) for p, t in batch)
    if not shapes:
        return Outcome(outputs)
    collected, outcome = _query(spark, files, shuffle_partitions)
    for run, shape in shapes.items():
        outputs[int(run)] = assemble(shape, collected.get(run, []))
    outcome.outputs = outputs
    return outcome


def _query(spark: SparkSession, files: list[list[str]],
           shuffle_partitions: int | None) -> tuple[dict[str, list[Row]], Outcome]:
    """The query over ``files``, run again from the start after a transient failure (a
    Python worker that did not connect back, or died): its output is a function of the
    files alone, and an attempt's partial output is dropped with its memory table."""
    return with_restarts(lambda: _query_once(spark, files, shuffle_partitions), "stream query")


def _query_once(spark: SparkSession, files: list[list[str]],
                shuffle_partitions: int | None) -> tuple[dict[str, list[Row]], Outcome]:
    session = stream_session(spark, shuffle_partitions)
    base = os.environ.get("INCSPEC_STREAM_DIR") or None
    folder = tempfile.mkdtemp(prefix="incspec-stream-", dir=base)
    name = f"incspec_stream_{uuid.uuid4().hex}"
    try:
        source, checkpoint = os.path.join(folder, "in"), os.path.join(folder, "checkpoint")
        os.makedirs(source)
        write_batches(source, files)
        query = (apply_processors(items_stream(session, source)).writeStream.format("memory").queryName(name)
                 .outputMode("append").option("checkpointLocation", checkpoint)
                 .trigger(availableNow=True).start())
        query.awaitTermination()
        progress = [json.loads(p.json) for p in query.recentProgress]
        collected: dict[str, list[Row]] = {}
        # the query's output is the observation the caller compares (a conformance case's stream)
        for r in session.sql(f"SELECT run, part, ord, value FROM {name}").collect():
            collected.setdefault(r["run"], []).append((int(r["part"]), int(r["ord"]), r["value"]))
        batches = len({p["batchId"] for p in progress})
        return collected, Outcome([], batches, progress)
    finally:
        session.catalog.dropTempView(name)
        shutil.rmtree(folder, ignore_errors=True)
        # the state store's background maintenance may still write snapshots there
        atexit.register(shutil.rmtree, folder, True)
