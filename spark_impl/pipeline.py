"""``incspec pipeline``: views maintained over a folder of change files, on Structured Streaming.

    incspec pipeline --input DIR --output DIR --view reduce:sum [--view reach]
                     [--checkpoint DIR] [--master URL] [--format json|csv|parquet]
                     [--follow] [--on-invalid stop|quarantine] [--snapshot-every N]
                     [--files-per-batch N]

Paths are local folders or Hadoop URLs (``file://``, ``hdfs://``, ``s3a://``).

Input: change files in ``--input``, read by Spark's streaming file source, in
the order the source picks them up (modification time), ``--files-per-batch``
files per micro-batch (default 1; after a crash Spark may add the file it had
picked up to the next micro-batch). Each file is one delta: a micro-batch of
several files applies them in order (SKIP-DEC-SPARK-PARTS), so the views never
depend on how files were grouped; only which intermediate views get published
does. Give files distinct modification times: Spark orders files with equal
times as its listing returns them, the parts of a micro-batch by path. One format per input folder: JSON lines, CSV (with a header) or Parquet
(``--format``, else the format of the files present). Rows:

* a reduce view reads ``key``, ``value``, ``weight`` (``+n`` adds the value n
  times, ``-n`` removes it; a missing weight is ``+1``);
* a reachability view (``reach``) reads ``kind`` (``edge`` or ``root``),
  ``src``, ``dst`` (``src`` is the root for ``root`` rows) and ``weight``.

A row feeds the views whose columns it fills (``key``: reduce, ``kind``: reach).

Output (Parquet), per view ``NAME`` (``reduce-sum``, ``reach``):

* ``OUTPUT/NAME/changes/batch=<micro-batch id>``: what each micro-batch changed
  (reduce ``key, present, accumulator``; reach ``node, added``), published
  whole (written aside, then renamed) and exactly once per micro-batch;
* ``OUTPUT/NAME/view/v=<id>``: the whole view as of micro-batch ``id``, written
  at the end of a run and every ``--snapshot-every`` micro-batches; the file
  ``OUTPUT/NAME/view/_LATEST`` names the newest complete one (replaced
  atomically), so a reader never sees a missing or half-written view
  (:func:`read_view`).

State: each view is a streaming query with its checkpoint in
``CHECKPOINT/NAME`` (default ``OUTPUT/_checkpoint``): the source's progress and
the view's state store, committed with each micro-batch. A restart, after any
crash, resumes after the last committed micro-batch; a committed file is never
read again, so deleting or rewriting it afterwards changes nothing. By default
the run processes what is there and exits (``Trigger.AvailableNow``);
``--follow`` keeps watching the folder.

A file that removes a value not present (SKIP-DEF-8) is refused: the
query stops with the micro-batch uncommitted (state unchanged), the error names
the file, key, value and both counts, and the exit status is 3. With
``--on-invalid quarantine`` the file is moved to ``OUTPUT/_quarantine/`` and the
run goes on without it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.streaming.query import StreamingQuery

from spark_impl.errors import restart_after, transient
from spark_impl.reduce.maintained_view import (
    InvalidDelta,
    MaintainedView,
    invalid_delta_in,
    maintained_view,
)
from spark_impl.storage.hadoop_fs import HadoopFS

#: test hook: "BATCH:PHASE" makes the process die (os._exit) at that point of that micro-batch
CRASH_ENV = "INCSPEC_PIPELINE_CRASH_AT"
FORMATS = {".json": "json", ".jsonl": "json", ".csv": "csv", ".parquet": "parquet"}
REFUSED = 3
#: the reach view's saved state, one Parquet folder per table, in the order of ``restore``
STATE_TABLES = ("roots", "edges", "live")


def _crash_point(batch_id: int, phase: str) -> None:
    if os.environ.get(CRASH_ENV) == f"{batch_id}:{phase}":
        print(f"pipeline: crashing at {batch_id}:{phase} ({CRASH_ENV})", flush=True)
        os._exit(17)


def as_url(path: str) -> str:
    """A Hadoop URL for ``path`` (a local path becomes an absolute ``file://`` URL)."""
    if "://" in path or path.startswith("file:"):
        return path.rstrip("/")
    return "file://" + os.path.abspath(path)


@dataclass(frozen=True)
class ViewSpec:
    kind: str  # "reduce" or "reach"
    reducer: str = ""

    @property
    def name(self) -> str:
        return f"reduce-{self.reducer}" if self.kind == "reduce" else "reach"

    @staticmethod
    def parse(text: str) -> ViewSpec:
        if text == "reach":
            return ViewSpec("reach")
        kind, _, reducer = text.partition(":")
        if kind == "reduce" and reducer in ("sum", "count", "min", "max"):
            return ViewSpec("reduce", reducer)
        raise argparse.ArgumentTypeError(
            f"unknown view {text!r}: use reduce:sum, reduce:count, reduce:min, reduce:max or reach")


class Outputs:
    """A view's output folder: per-micro-batch changes and versioned whole-view snapshots."""

    def __init__(self, fs: HadoopFS, root: str) -> None:
        self.fs, self.root = fs, root

    def publish(self, frame: DataFrame, target: str) -> None:
        """Write ``frame`` to ``target`` whole or not at all; a target already
        published (a micro-batch re-run after a crash) is left as it is: its content
        is the same, the re-run being deterministic."""
        if self.fs.exists(target):
            return
        aside = f"{self.root}/_staging/{target.rsplit('/', 1)[-1]}"
        frame.write.mode("overwrite").parquet(aside)
        self.fs.rename(aside, target)

    def changes(self, frame: DataFrame, batch_id: int) -> None:
        self.publish(frame, f"{self.root}/changes/batch={batch_id}")

    def snapshot(self, frame: DataFrame, batch_id: int) -> None:
        self.publish(frame, f"{self.root}/view/v={batch_id}")
        self.fs.write_text(f"{self.root}/view/_LATEST", f"v={batch_id}\n")
        for name in self.fs.names(f"{self.root}/view"):
            if name.startswith("v=") and name != f"v={batch_id}":
                self.fs.delete(f"{self.root}/view/{name}")


def read_view(spark: SparkSession, output: str, name: str) -> DataFrame:
    """The newest complete snapshot of view ``name`` under ``output``."""
    root = f"{as_url(output)}/{name}/view"
    latest = HadoopFS(spark, root).read_text(f"{root}/_LATEST")
    if latest is None:
        raise FileNotFoundError(f"no snapshot of view {name!r} under {output}")
    view: DataFrame = spark.read.parquet(f"{root}/{latest.strip()}")
    return view


class Source:
    """The input folder as a streaming file source, schema fixed at the first run."""

    def __init__(self, spark: SparkSession, fs: HadoopFS, input_url: str, checkpoint: str,
                 fmt: str | None, files_per_batch: int = 1) -> None:
        self.spark, self.input_url, self.files_per_batch = spark, input_url, files_per_batch
        saved = fs.read_text(f"{checkpoint}/source.json")
        if saved is not None:
            facts = json.loads(saved)
        else:
            fmt = fmt or _format_of(fs.names(input_url))
            facts = {"format": fmt, "schema": self._infer(fmt)}
            fs.write_text(f"{checkpoint}/source.json", json.dumps(facts))
        self.format: str = facts["format"]
        self.schema: str = facts["schema"]

    def _reader(self, reader: Any, fmt: str) -> Any:
        reader = reader.format(fmt)
        return reader.option("header", True) if fmt == "csv" else reader

    def _infer(self, fmt: str) -> str:
        reader = self._reader(self.spark.read, fmt)
        if fmt == "csv":
            reader = reader.option("inferSchema", True)
        return str(reader.load(self.input_url).schema.json())

    def stream(self) -> DataFrame:
        from pyspark.sql.types import StructType

        schema = StructType.fromJson(json.loads(self.schema))
        reader = self._reader(self.spark.readStream.schema(schema), self.format)
        frame: DataFrame = reader.option("maxFilesPerTrigger", self.files_per_batch).load(self.input_url)
        # each file one part of its micro-batch, in the file source's order (SKIP-DEC-SPARK-PARTS)
        meta = F.col("_metadata")
        part = F.format_string("%020d %s", F.unix_micros(meta.file_modification_time), meta.file_path)
        return frame.withColumn("file", meta.file_path).withColumn("part", part)


def _format_of(names: list[str]) -> str:
    found = {FORMATS[ext] for name in names for ext in FORMATS if name.endswith(ext)}
    if len(found) != 1:
        raise SystemExit(f"pipeline: the input holds {sorted(found) or 'no'} known format(s); "
                         "put one format per folder or pass --format")
    return found.pop()


class ReduceView:
    """A reduce view: the maintained view's query, its changes and snapshots."""

    def __init__(self, spark: SparkSession, spec: ViewSpec, rows: DataFrame,
                 outputs: Outputs, checkpoint: str) -> None:
        self.spark, self.spec, self.outputs = spark, spec, outputs
        feed = rows.where(F.col("key").isNotNull())
        self.view: MaintainedView = maintained_view(feed, spec.reducer, checkpoint=checkpoint)
        self.refusal: InvalidDelta | None = None

    def plan(self) -> DataFrame:
        return self.view.updates

    def handle(self, batch: DataFrame, batch_id: int) -> None:
        batch.persist()
        try:
            changes = self.view.changes(batch)
            _crash_point(batch_id, "changes")
            self.outputs.changes(changes, batch_id)
            _crash_point(batch_id, "published")
        except InvalidDelta as refusal:
            self.refusal = refusal
            raise
        finally:
            batch.unpersist()

    def snapshot(self, checkpoint: str, batch_id: int) -> None:
        self.outputs.snapshot(self.view.read_view(self.spark, checkpoint, batch_id), batch_id)


class ReachView:
    """A reachability view: the fixpoint engine applied per micro-batch, its state
    saved with each micro-batch under the checkpoint (version = micro-batch id)."""

    def __init__(self, spark: SparkSession, spec: ViewSpec, rows: DataFrame,
                 outputs: Outputs, fs: HadoopFS, checkpoint: str) -> None:
        self.spark, self.spec, self.outputs, self.fs = spark, spec, outputs, fs
        self.feed = rows.where(F.col("kind").isNotNull())
        self.state_root = f"{checkpoint}/reach-state"
        self.node_type = dict(self.feed.dtypes)["src"]
        self.engine: Any = None
        self.applied = -1  # the micro-batch the engine's state includes
        self.refusal: InvalidDelta | None = None

    def plan(self) -> DataFrame:
        return self.feed

    def _engine(self) -> Any:
        from spark_impl.fixpoint.reachability import IncrementalReachability

        if self.engine is None:
            self.engine = IncrementalReachability(self.spark, self.node_type)
            latest = self.fs.read_text(f"{self.state_root}/_LATEST")
            if latest is not None:
                self.applied = int(latest)
                base = f"{self.state_root}/v={self.applied}"
                self.engine.restore(*(self.spark.read.parquet(f"{base}/{name}") for name in STATE_TABLES))
        return self.engine

    def handle(self, batch: DataFrame, batch_id: int) -> None:
        engine = self._engine()
        if batch_id > self.applied:  # a re-run of an applied micro-batch only republishes
            weight = "weight" in batch.columns
            parts: dict[str, dict[str, list[Any]]] = {}
            # one micro-batch of graph edits, brought to the driver: the fixpoint engine's
            # apply takes Python lists (a driver-free reach view is not built yet)
            for r in batch.collect():
                change = parts.setdefault(r["part"], {"add_roots": [], "remove_roots": [],
                                                      "add_edges": [], "remove_edges": []})
                w = int(r["weight"]) if weight and r["weight"] is not None else 1
                sign = "add" if w > 0 else "remove"
                if r["kind"] == "root":
                    change[f"{sign}_roots"].append(r["src"])
                else:
                    change[f"{sign}_edges"].append((r["src"], r["dst"]))
            added: set[Any] = set()
            removed: set[Any] = set()
            for part in sorted(parts):  # each file its own change, in order (SKIP-DEC-SPARK-PARTS)
                delta = engine.apply(**parts[part])
                _compose(added, removed, delta.added, delta.removed)
            out = [(n, True) for n in sorted(added, key=repr)] + \
                  [(n, False) for n in sorted(removed, key=repr)]
            # published before the state is saved: a crash between the two re-runs the
            # micro-batch from the state before it, whose changes are those published (a
            # publication is skipped when its folder exists); saved first, the re-run would
            # find the batch applied and publish nothing for it
            self.outputs.changes(self.spark.createDataFrame(out, f"node {self.node_type}, added boolean"),
                                 batch_id)
            _crash_point(batch_id, "published")
            self._save(batch_id)
            _crash_point(batch_id, "saved")
        else:  # applied and saved, hence published
            self.outputs.changes(self.spark.createDataFrame([], f"node {self.node_type}, added boolean"),
                                 batch_id)

    def _save(self, batch_id: int) -> None:
        base = f"{self.state_root}/v={batch_id}"
        for name in STATE_TABLES:
            Outputs(self.fs, self.state_root).publish(getattr(self.engine, name).all(), f"{base}/{name}")
        self.fs.write_text(f"{self.state_root}/_LATEST", str(batch_id))
        self.applied = batch_id
        for name in self.fs.names(self.state_root):
            if name.startswith("v=") and name != f"v={batch_id}":
                self.fs.delete(f"{self.state_root}/{name}")

    def snapshot(self, checkpoint: str, batch_id: int) -> None:
        self.outputs.snapshot(self._engine().current(), batch_id)


View = ReduceView | ReachView


def _compose(added: set[Any], removed: set[Any], then_added: Iterable[Any],
             then_removed: Iterable[Any]) -> None:
    """Compose, in place, the change (``added``, ``removed``) with the one that follows it."""
    for n in then_added:
        if n in removed:
            removed.discard(n)
        else:
            added.add(n)
    for n in then_removed:
        if n in added:
            added.discard(n)
        else:
            removed.add(n)


def _last_committed(fs: HadoopFS, checkpoint: str) -> int | None:
    ids = [int(n) for n in fs.names(f"{checkpoint}/commits") if n.isdigit()]
    return max(ids) if ids else None


def run(spark: SparkSession, input_dir: str, output: str, checkpoint: str | None,
        specs: list[ViewSpec], *, fmt: str | None = None, follow: bool = False,
        quarantine: bool = False, snapshot_every: int = 10, files_per_batch: int = 1,
        log: Callable[[str], None] = print) -> int:
    """Process the input folder (see the module docstring); returns an exit status."""
    input_url, output_url = as_url(input_dir), as_url(output)
    checkpoint_url = as_url(checkpoint) if checkpoint else f"{output_url}/_checkpoint"
    fs = HadoopFS(spark, output_url)
    fs.mkdirs(checkpoint_url)
    source = Source(spark, fs, input_url, checkpoint_url, fmt, files_per_batch)
    status = 0
    for spec in specs:
        status = max(status, _run_view(spark, fs, source, spec, output_url, checkpoint_url,
                                       follow, quarantine, snapshot_every, log))
    return status


def _run_view(spark: SparkSession, fs: HadoopFS, source: Source, spec: ViewSpec, output: str,
              checkpoint: str, follow: bool, quarantine: bool, snapshot_every: int,
              log: Callable[[str], None]) -> int:
    outputs = Outputs(fs, f"{output}/{spec.name}")
    view_checkpoint = f"{checkpoint}/{spec.name}"
    failures, failed_after = 0, None  # transient failures in a row after the same committed batch
    while True:
        rows = source.stream()
        view: View = (ReduceView(spark, spec, rows, outputs, view_checkpoint) if spec.kind == "reduce"
                      else ReachView(spark, spec, rows, outputs, fs, view_checkpoint))
        query = _start(view, view_checkpoint, follow)
        try:
            _await(query, view, fs, view_checkpoint, snapshot_every, log)
        except Exception as error:  # noqa: BLE001 (a refusal is reported, the rest re-raised)
            refused = view.refusal or invalid_delta_in(error)
            if refused is None and transient(error):
                last = _last_committed(fs, view_checkpoint)
                failures = failures + 1 if last == failed_after else 1
                failed_after = last
                if restart_after(error, failures, f"pipeline: {spec.name}", log):
                    continue  # from the checkpoint: the failed micro-batch was not committed
            if refused is None:
                raise
            log(f"pipeline: {spec.name}: micro-batch refused: {refused.message}")
            _snapshot_last(view, fs, view_checkpoint)  # the view as of the last committed batch
            if not quarantine or not refused.file:
                log("pipeline: nothing of it was applied; fix or remove the file and run again "
                    "(or pass --on-invalid quarantine)")
                return REFUSED
            moved = f"{output}/_quarantine/{refused.file.rsplit('/', 1)[-1]}"
            fs.rename(refused.file, moved)
            log(f"pipeline: quarantined {refused.file} -> {moved}; going on")
            spark.conf.set("spark.sql.files.ignoreMissingFiles", "true")  # the re-run skips it
            continue
        last = _snapshot_last(view, fs, view_checkpoint)
        log(f"pipeline: {spec.name}: {0 if last is None else last + 1} micro-batch(es) committed")
        return 0


def _snapshot_last(view: View, fs: HadoopFS, checkpoint: str) -> int | None:
    """Publish the view as of the last committed micro-batch (if any); returns its id."""
    last = _last_committed(fs, checkpoint)
    if last is not None:
        view.snapshot(checkpoint, last)
    return last


def _start(view: View, checkpoint: str, follow: bool) -> StreamingQuery:
    writer = view.plan().writeStream.foreachBatch(view.handle).option("checkpointLocation", checkpoint)
    writer = writer.outputMode("update") if isinstance(view, ReduceView) else writer
    trigger = writer.trigger(processingTime="1 second") if follow else writer.trigger(availableNow=True)
    return trigger.start()


def _await(query: StreamingQuery, view: View, fs: HadoopFS, checkpoint: str,
           snapshot_every: int, log: Callable[[str], None]) -> None:
    """Wait for the query, logging progress and snapshotting every ``snapshot_every``."""
    snapped = _last_committed(fs, checkpoint)
    logged = -1
    while query.isActive:
        query.awaitTermination(2)
        progress = query.lastProgress
        if progress and progress["batchId"] > logged:
            logged = progress["batchId"]
            log(f"pipeline: {view.spec.name}: micro-batch {logged} done in "
                f"{progress['batchDuration'] / 1000:.2f} s")
        last = _last_committed(fs, checkpoint)
        if last is not None and (snapped is None or last - snapped >= snapshot_every):
            view.snapshot(checkpoint, last)
            snapped = last
    query.awaitTermination()  # re-raises the query's error, if it failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="incspec pipeline", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--input", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--checkpoint", help="default: OUTPUT/_checkpoint")
    parser.add_argument("--view", type=ViewSpec.parse, action="append", required=True)
    parser.add_argument("--master", help="Spark master URL (default $INCSPEC_SPARK_MASTER or local[2])")
    parser.add_argument("--format", choices=sorted(set(FORMATS.values())))
    parser.add_argument("--follow", action="store_true", help="keep watching the input folder")
    parser.add_argument("--on-invalid", choices=["stop", "quarantine"], default="stop")
    parser.add_argument("--snapshot-every", type=int, default=10)
    parser.add_argument("--files-per-batch", type=int, default=1,
                        help="input files per micro-batch (each still its own delta, in order)")
    args = parser.parse_args(argv)
    from spark_impl.session import build_session

    spark = build_session(args.master, app_name="incspec-pipeline")
    return run(spark, args.input, args.output, args.checkpoint, args.view, fmt=args.format,
               follow=args.follow, quarantine=args.on_invalid == "quarantine",
               snapshot_every=max(1, args.snapshot_every),
               files_per_batch=max(1, args.files_per_batch))


if __name__ == "__main__":
    sys.exit(main())
