"""``incspec pipeline``: views maintained over a folder of change files, on Structured Streaming.

    incspec pipeline --input DIR --output DIR --view reduce:sum [--view reach]
                     [--checkpoint DIR] [--master URL | --remote sc://HOST:PORT]
                     [--format json|csv|parquet]
                     [--follow] [--on-invalid stop|quarantine] [--snapshot-every N]
                     [--files-per-batch N] [--reduce-path stream|bulk]

Paths are local folders or Hadoop URLs (``file://``, ``hdfs://``, ``s3a://``).

Over Spark Connect (``--remote sc://HOST:PORT`` or ``$SPARK_REMOTE``) the reduce views run,
on local paths that name the same folders for this process and the server (the folder
operations are this process's, :mod:`spark_impl.storage.local_fs`; the data files the
server's); the reach view and other paths are refused in one line (exit status 2),
before anything is read or written (:mod:`spark_impl.connect`, docs/spark.md).

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
  times, ``-n`` removes it; a missing weight is ``+1``). Each row is checked: the key
  not null, the weight, if given, a non-zero integer of 64 bits (an explicit JSON
  ``null`` is invalid; ``-1.0`` is ``-1``, SKIP-DEC-JSON-VALUES; in CSV and Parquet a
  null weight cannot be told from a missing one and is ``+1``), the value of the
  folder's value type, fixed at the first run (integers are exact, up to 38 digits);
* a reachability view (``reach``) reads ``kind``, ``src``, ``dst`` and ``weight``
  (``+`` adds, ``-`` removes). Each row is checked: ``kind`` ``edge`` or ``root``,
  ``src`` not null, nor an edge's ``dst`` (a root is its ``src``; its ``dst`` is
  ignored), the weight as for a reduce view.

A row feeds the views whose columns it fills (``key``: reduce, ``kind``: reach); a row
filling neither feeds every view, which refuses it.

Output (Parquet), per view ``NAME`` (``reduce-sum``, ``reach``):

* ``OUTPUT/NAME/changes/batch=<micro-batch id>``: what each micro-batch changed
  (reduce ``key, present, accumulator``; reach ``node, added``), published
  whole and exactly once per micro-batch (the reach view publishes a micro-batch's
  changes before it saves its state and them, so a crash at any point re-runs the
  micro-batch from the state before it);
* ``OUTPUT/NAME/view/v=<id>``: the whole view as of micro-batch ``id``, written
  at the end of a run and every ``--snapshot-every`` micro-batches; the file
  ``OUTPUT/NAME/view/_LATEST`` names the newest complete one (replaced
  atomically), so a reader never sees a missing or half-written view
  (:func:`read_view`). A reach snapshot is taken between micro-batches, never
  during one, and names the micro-batch it holds.

A folder is published once the file ``_PUBLISHED`` (:data:`MARKER`), written last,
after its data files, is in it; a reader reads only such folders
(:func:`published_batches`, :func:`read_changes`, :func:`read_view`). A folder is
written aside, then renamed into place, then marked: on an object store (``s3a://``)
the rename copies file by file, and a crash can leave part of a folder there, unmarked;
the run that publishes it again deletes it first. An output written before markers is
marked at the next run: the changes of the micro-batches the checkpoint committed and
the snapshot ``_LATEST`` names.

State: each view is a streaming query with its checkpoint in
``CHECKPOINT/NAME`` (default ``OUTPUT/_checkpoint``): the source's progress and
the view's state store, committed with each micro-batch (the reach view: its engine's
tables under ``reach-state``, each micro-batch saving the tables' changes and only the
bases rewritten since the micro-batch before, :mod:`~spark_impl.storage.saved_tables`).
With ``--reduce-path bulk`` a reduce view keeps its state in tables instead, under
``CHECKPOINT/NAME/bulk-state``, each micro-batch merged into them in bulk (SKIP-DEC-SPARK-BULK:
faster loads and large batches, slower small ones; :class:`BulkReduceView`); a view's
checkpoint keeps the path it was started on (another is refused in one line, exit status 2).
A restart, after any crash, resumes after the last committed micro-batch; a committed
file is never read again, so deleting or rewriting it afterwards changes nothing. By default
the run processes what is there and exits (``Trigger.AvailableNow``), one view after
another; ``--follow`` keeps watching the folder, every view's query at once (a thread each:
:meth:`Run.views_together`). A file must appear whole: write it aside under a name starting
with ``.`` or ``_`` (the source skips those) and rename it into the folder.

A file that removes a value not present (SKIP-DEF-8), holds an invalid row or
takes a key's sum beyond 38 digits is refused: the query stops with the
micro-batch uncommitted (state unchanged), one line names the file and the key,
value and counts (an invalid row: its line, or Parquet row index, column and
value), and the exit status is 3. With ``--on-invalid quarantine`` the run goes
on without the file, which moves to ``OUTPUT/_quarantine/`` once the micro-batch
is committed without it. No file is skipped for its age. A file Spark recorded
for the micro-batch it re-runs at a restart and that is gone is reported (exit
status 3), never dropped.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.streaming.query import StreamingQuery

from spark_impl.connect import NeedsJvm, is_connect, is_connect_url
from spark_impl.errors import SparkEngineError, restart_after, transient
from spark_impl.reduce.bulk_view import BulkViewRunner
from spark_impl.reduce.compaction import Compaction
from spark_impl.reduce.group_generations import COMPACTION_FLOOR, Generations
from spark_impl.reduce.maintained_view import (
    InvalidInput,
    MaintainedView,
    Refused,
    maintained_view,
    refusal_in,
    refusals_carried,
    refuse_invalid_row,
)
from spark_impl.reduce.view_runner import query_start
from spark_impl.storage.files import FileSystem, file_system
from spark_impl.storage.query_log import batch_files, last_committed
from spark_impl.storage.saved_tables import SavedTables
from spark_impl.storage.scratch import Scratch, once

#: test hook: "BATCH:PHASE" makes the process die (os._exit) at that point of that micro-batch
CRASH_ENV = "INCSPEC_PIPELINE_CRASH_AT"
FORMATS = {".json": "json", ".jsonl": "json", ".csv": "csv", ".parquet": "parquet"}
REFUSED = 3
#: the exit status of a run that cannot start as asked (a checkpoint of the other path)
USAGE = 2
#: the reach view's state as versions before they were saved by their changes
#: (:mod:`~spark_impl.storage.saved_tables`): one Parquet folder per table, in the order of
#: ``restore``, read back when a checkpoint holds such a version
STATE_TABLES = ("roots", "edges", "live")
#: saved with them: the micro-batch's changes, published again from there if need be
SAVED_CHANGES = "changes"
#: where a reduce view on the bulk path keeps its tables, under the view's checkpoint
BULK_STATE = "bulk-state"
#: where a reduce view may keep its state: the state store (``stream``) or tables (``bulk``)
REDUCE_PATHS = ("stream", "bulk")
#: the file written last into a published folder (changes, snapshot, saved state): the
#: folder is published only with it, so a folder left half-written by a crash is never taken
#: as done (an object store's rename is no atomic commit)
MARKER = "_PUBLISHED"
#: Spark's file source skips a file older than ``maxFileAge`` (default 7 days) before the
#: newest file it has seen, silently: no input is ever that old here (10^5 days)
MAX_FILE_AGE = "100000d"
#: the columns read untyped (as variants: a JSON value keeps its type, ``null`` apart from
#: missing, integers exact up to 38 digits) and checked row by row
CHECKED = ("value", "weight")
#: the types of a variant holding an integer (a JSON ``-1.0`` is one: SKIP-DEC-JSON-VALUES)
INTEGRAL_VARIANT = r"^(TINYINT|SMALLINT|INT|BIGINT|DECIMAL\(\d+,0\))$"
#: the view's type of integer values: exact, 38 digits
EXACT_INTEGER = "decimal(38,0)"
#: how long a query's stop (a ``--follow`` run's end, its restart for a compaction or an
#: eviction) waits for the micro-batch under way to end. A stop amid one is safe (the
#: micro-batch is not committed and runs again at the next start) but wastes it, and Spark's
#: stream thread, telling the interruption from a failure, then dies of a stack overflow in
#: a regular expression over the handler's long error message, printing every frame
STOP_WAIT_SECONDS = 60.0


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
    """A view's output folder: per-micro-batch changes and versioned whole-view snapshots.

    A folder is published when its marker :data:`MARKER`, written last, is in it: the
    marker is the commit point, not the rename that puts the folder in place (atomic on
    HDFS and on local file systems, but a copy file by file on an object store)."""

    def __init__(self, fs: FileSystem, root: str) -> None:
        self.fs, self.root = fs, root

    def published(self, target: str) -> bool:
        """Whether ``target`` is published: its marker is there."""
        return self.fs.exists(f"{target}/{MARKER}")

    def publish(self, frame: DataFrame, target: str) -> None:
        """Write ``frame`` to ``target`` (aside, then renamed into place), then the marker in
        it. A target already published (a micro-batch re-run after a crash) is left as it
        is: its content is the same, the re-run being deterministic; a target without the
        marker (left by a crash amid its rename or before its marker) is deleted and
        written again."""
        if self.published(target):
            return
        if self.fs.exists(target):
            self.fs.delete(target)
        aside = f"{self.root}/_staging/{target.rsplit('/', 1)[-1]}"
        frame.write.mode("overwrite").parquet(aside)
        self.fs.rename(aside, target)
        self.fs.write_text(f"{target}/{MARKER}", "")

    def changes_folder(self, batch_id: int) -> str:
        return f"{self.root}/changes/batch={batch_id}"

    def changes(self, frame: DataFrame, batch_id: int) -> None:
        self.publish(frame, self.changes_folder(batch_id))

    def has_changes(self, batch_id: int) -> bool:
        return self.published(self.changes_folder(batch_id))

    def snapshot(self, frame: DataFrame, batch_id: int) -> None:
        self.publish(frame, f"{self.root}/view/v={batch_id}")
        self.fs.write_text(f"{self.root}/view/_LATEST", f"v={batch_id}\n")
        for name in self.fs.names(f"{self.root}/view"):
            if name.startswith("v=") and name != f"v={batch_id}":
                self.fs.delete(f"{self.root}/view/{name}")

    def adopt(self, committed: int | None) -> None:
        """Mark what a version writing no markers published: the change folders of the
        micro-batches the checkpoint committed (``committed`` the last), each renamed into
        place before its commit, and the snapshot ``view/_LATEST`` names, renamed into place
        before it. This version marks a micro-batch's changes before its commit and a
        snapshot before ``_LATEST``: the change folders are looked over only when the last
        committed one is there unmarked."""
        latest = self.fs.read_text(f"{self.root}/view/_LATEST")
        if latest is not None:
            self._adopted(f"{self.root}/view/{latest.strip()}")
        if committed is None or self.published(self.changes_folder(committed)):
            return
        for name in self.fs.names(f"{self.root}/changes"):
            if name.startswith("batch=") and int(name.removeprefix("batch=")) <= committed:
                self._adopted(f"{self.root}/changes/{name}")

    def _adopted(self, folder: str) -> None:
        if self.fs.exists(folder) and not self.published(folder):
            self.fs.write_text(f"{folder}/{MARKER}", "")


def read_view(spark: SparkSession, output: str, name: str) -> DataFrame:
    """The newest complete snapshot of view ``name`` under ``output`` (``_LATEST`` names it,
    written after its marker)."""
    root = f"{as_url(output)}/{name}/view"
    fs = file_system(spark, root)
    latest = fs.read_text(f"{root}/_LATEST")
    if latest is None:
        raise FileNotFoundError(f"no snapshot of view {name!r} under {output}")
    folder = f"{root}/{latest.strip()}"
    if not Outputs(fs, root).published(folder):
        raise FileNotFoundError(f"the snapshot {folder} has no {MARKER} marker: written by an "
                                "older version, it is marked by the next run of the pipeline")
    view: DataFrame = spark.read.parquet(folder)
    return view


def published_batches(spark: SparkSession, output: str, name: str) -> list[int]:
    """The micro-batches whose changes view ``name`` under ``output`` published (their
    folders marked), in order; a folder without the marker is no publication."""
    root = f"{as_url(output)}/{name}"
    outputs = Outputs(file_system(spark, root), root)
    ids = [int(n.removeprefix("batch=")) for n in outputs.fs.names(f"{root}/changes")
           if n.startswith("batch=")]
    return sorted(i for i in ids if outputs.has_changes(i))


def read_changes(spark: SparkSession, output: str, name: str, batch_id: int) -> DataFrame:
    """The changes of micro-batch ``batch_id`` that view ``name`` under ``output`` published."""
    root = f"{as_url(output)}/{name}"
    outputs = Outputs(file_system(spark, root), root)
    if not outputs.has_changes(batch_id):
        raise FileNotFoundError(f"no published changes of micro-batch {batch_id} of view {name!r} "
                                f"under {output}")
    changes: DataFrame = spark.read.parquet(outputs.changes_folder(batch_id))
    return changes


class Source:
    """The input folder as a streaming file source, schema fixed at the first run."""

    def __init__(self, spark: SparkSession, fs: FileSystem, input_url: str, checkpoint: str,
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

    def _inferred(self) -> Any:
        from pyspark.sql.types import StructType

        return StructType.fromJson(json.loads(self.schema))

    @property
    def value_type(self) -> str:
        """The reduce views' value type: the one inferred, integers widened to ``decimal(38,0)``."""
        inferred = {f.name: f.dataType.simpleString() for f in self._inferred().fields}
        found = inferred.get("value", "string")
        return EXACT_INTEGER if _integral_type(found) else found

    def _read_schema(self) -> Any:
        """The schema the files are read with: :data:`CHECKED` columns as variants (JSON) or
        text (CSV, parsed row by row), Parquet's as stored."""
        from pyspark.sql.types import StringType, StructField, StructType, VariantType

        if self.format == "parquet":
            return self._inferred()
        loose = VariantType() if self.format == "json" else StringType()
        return StructType([StructField(f.name, loose) if f.name in CHECKED else f
                           for f in self._inferred().fields])

    def _as_variants(self, frame: DataFrame) -> DataFrame:
        """The :data:`CHECKED` columns as variants, whatever the format."""
        if self.format == "json":
            return frame
        inferred = {f.name: f.dataType.simpleString() for f in self._inferred().fields}
        for name in CHECKED:
            if name not in frame.columns:
                continue
            col = F.col(name)
            if self.format == "csv" and inferred[name] != "string":
                frame = frame.withColumn(name, F.try_parse_json(col))  # "x" is no number: null
            else:
                frame = frame.withColumn(name, col.cast("variant"))
        return frame

    def stream(self, excluded: list[str]) -> DataFrame:
        """The change rows, the files in ``excluded`` (quarantined) left out."""
        reader = self._reader(self.spark.readStream.schema(self._read_schema()), self.format)
        frame: DataFrame = (reader.option("maxFilesPerTrigger", self.files_per_batch)
                            .option("maxFileAge", MAX_FILE_AGE).load(self.input_url))
        # each file one part of its micro-batch, in the file source's order (SKIP-DEC-SPARK-PARTS)
        meta = F.col("_metadata")
        part = F.format_string("%020d %s", F.unix_micros(meta.file_modification_time), meta.file_path)
        rows = self._as_variants(frame).withColumn("file", meta.file_path).withColumn("part", part)
        return rows.where(~F.col("file").isin(excluded)) if excluded else rows

    def numbered(self, file: str) -> tuple[str, DataFrame]:
        """One input file's rows as :meth:`stream` reads them, with their number ``row`` in
        the file, and what that number is (``line`` of the file, or Parquet ``row index``)."""
        if self.format == "parquet":
            rows = self.spark.read.parquet(file).select("*", F.col("_metadata.row_index").alias("row"))
            return "row index", self._of(file, rows)
        from pyspark.sql.window import Window

        # a text file's splits are read in order: the increasing ids follow the lines
        lines = self.spark.read.text(file).select(
            "value", F.row_number().over(Window.orderBy(F.monotonically_increasing_id())).alias("row"))
        schema = self._read_schema()
        if self.format == "json":
            parsed = F.from_json("value", schema)
            lines = lines.where(F.trim("value") != "")
        else:
            parsed = F.from_csv("value", schema.simpleString()[len("struct<"):-1].replace(":", " "))
            lines = lines.where(F.col("row") > 1)  # the header
        rows = lines.select(parsed.alias("r"), "row").select("r.*", "row")
        return "line", self._of(file, rows)

    def _of(self, file: str, rows: DataFrame) -> DataFrame:
        """``rows`` of ``file`` as :meth:`stream` gives them (one part)."""
        return self._as_variants(rows).withColumn("file", F.lit(file)).withColumn("part", F.lit(""))


def _integral_type(spark_type: str) -> bool:
    return spark_type in ("tinyint", "smallint", "int", "bigint") or (
        spark_type.startswith("decimal(") and spark_type.endswith(",0)"))


def _written(variant: Column) -> Column:
    """A variant as its JSON text, ``missing`` for none."""
    return F.coalesce(F.to_json(variant), F.lit("missing"))


def _missing(name: str) -> Column:
    return F.lit(f"column {name}: missing or null")


def _weight(rows: DataFrame) -> tuple[Column, Column]:
    """The change rows' weight as ``bigint`` (null if missing) and whether it is invalid: if
    given, it must be a non-zero integer of 64 bits (an explicit ``null`` is invalid)."""
    weight = F.col("weight") if "weight" in rows.columns else F.lit(None).cast("variant")
    integral = F.schema_of_variant(weight).rlike(INTEGRAL_VARIANT)
    w = F.try_variant_get(weight, "$", "bigint")
    bad = weight.isNotNull() & (~integral | w.isNull() | (w == 0))
    said = F.format_string("column weight: %s is not a non-zero 64-bit integer", _written(weight))
    return w, F.when(bad, said)


def checked(rows: DataFrame, value_type: str, *keep: str) -> DataFrame:
    """Change rows ``key, value`` (as ``value_type``), ``weight`` (``bigint``, null if
    missing), ``invalid`` (why the row is no change, or null), ``file``, ``part``: the key
    must not be null, the weight valid (:func:`_weight`), the value one of ``value_type``
    (an integer for an integer view); the columns ``keep`` as they are."""
    key, value = F.col("key"), F.col("value")
    w, bad_weight = _weight(rows)
    v = F.try_variant_get(value, "$", value_type)
    bad_value = v.isNull()
    if _integral_type(value_type):
        bad_value = bad_value | ~F.schema_of_variant(value).rlike(INTEGRAL_VARIANT)
    label = "an integer of at most 38 digits" if value_type == EXACT_INTEGER else f"a {value_type}"
    invalid = F.coalesce(
        F.when(key.isNull(), _missing("key")), bad_weight,
        F.when(bad_value, F.format_string(f"column value: %s is not {label}", _written(value))))
    return rows.select(key, v.alias("value"), w.alias("weight"), invalid.alias("invalid"), "file",
                       "part", *keep)


def reach_checked(rows: DataFrame, *keep: str) -> DataFrame:
    """Graph edits ``kind, src, dst, weight`` (``bigint``, null if missing), ``invalid``,
    ``file``, ``part``: ``kind`` must be ``edge`` or ``root``, ``src`` not null, nor ``dst``
    of an edge (a root's is ignored), the weight valid (:func:`_weight`); the columns
    ``keep`` as they are."""
    kind, src = F.col("kind"), F.col("src")
    dst = F.col("dst") if "dst" in rows.columns else F.lit(None).cast(dict(rows.dtypes)["src"])
    w, bad_weight = _weight(rows)
    invalid = F.coalesce(
        F.when(kind.isNull(), _missing("kind")),
        F.when(~kind.cast("string").isin("edge", "root"),
               F.format_string('column kind: "%s" is not edge or root', kind.cast("string"))),
        F.when(src.isNull(), _missing("src")),
        F.when((kind == "edge") & dst.isNull(), _missing("dst")),
        bad_weight)
    return rows.select(kind, src, dst.alias("dst"), w.alias("weight"), invalid.alias("invalid"),
                       "file", "part", *keep)


def _reduce_rows(rows: DataFrame) -> DataFrame:
    """The rows a reduce view reads: all but those filling ``kind`` only (the reach view's)."""
    if "kind" not in rows.columns:
        return rows
    return rows.where(F.col("key").isNotNull() | F.col("kind").isNull())


def _reach_rows(rows: DataFrame) -> DataFrame:
    """The rows the reach view reads: all but those filling ``key`` only (a reduce view's)."""
    if "key" not in rows.columns:
        return rows
    return rows.where(F.col("kind").isNotNull() | F.col("key").isNull())


def _format_of(names: list[str]) -> str:
    found = {FORMATS[ext] for name in names for ext in FORMATS if name.endswith(ext)}
    if len(found) != 1:
        raise SystemExit(f"pipeline: the input holds {sorted(found) or 'no'} known format(s); "
                         "put one format per folder or pass --format")
    return found.pop()


class ReduceRows:
    """What a reduce view reads of the input rows."""

    value_type: str

    def checked(self, rows: DataFrame, *keep: str) -> DataFrame:
        """The view's rows of ``rows``, checked (:func:`checked`)."""
        return checked(_reduce_rows(rows), self.value_type, *keep)


class ReduceView(ReduceRows):
    """A reduce view: the maintained view's query, its changes and snapshots."""

    def __init__(self, spark: SparkSession, spec: ViewSpec, rows: DataFrame,
                 outputs: Outputs, value_type: str, checkpoint: str, compaction: Compaction) -> None:
        self.spark, self.spec, self.outputs = spark, spec, outputs
        self.value_type, self.compaction = value_type, compaction
        self.view: MaintainedView = maintained_view(self.checked(rows), spec.reducer, checkpoint=checkpoint,
                                                    generations=compaction.generations)
        compaction.start(self.view)
        self.refusal: Refused | None = None

    def plan(self) -> DataFrame:
        return self.view.updates

    def handle(self, batch: DataFrame, batch_id: int) -> None:
        _handled(self, batch, batch_id, self._publish)

    def _publish(self, batch: DataFrame, batch_id: int) -> None:
        with self.view.batch_changes(batch) as changes:
            _crash_point(batch_id, "changes")
            if self.outputs.has_changes(batch_id):
                # published by a run that died before Spark committed the micro-batch: the
                # plan still runs, its stateful operator writing the micro-batch's state (a
                # fold reducer's changes are lazy: unread, the state is not written and
                # Spark fails the commit, "CheckpointInfo length: 0")
                changes.write.format("noop").mode("overwrite").save()
            else:
                self.outputs.changes(changes, batch_id)
            _crash_point(batch_id, "published")
        self.compaction.seen(self.view, batch_id)

    def compaction_due(self) -> bool:
        """A group view whose emptied groups make a compaction due
        (:mod:`spark_impl.reduce.compaction`)."""
        return self.view.native and self.compaction.due()

    def restart_due(self) -> bool:
        """Whether a ``--follow`` run should stop this view's query and build it again: a
        compaction due, or an eviction done (:mod:`spark_impl.reduce.compaction`)."""
        return self.compaction_due() or self.compaction.eviction_done(self.view)

    def snapshot(self, checkpoint: str, batch_id: int) -> None:
        self.outputs.snapshot(self.view.read_view(self.spark, checkpoint, batch_id), batch_id)


class BulkReduceView(ReduceRows):
    """A reduce view on the bulk path (``--reduce-path bulk``, SKIP-DEC-SPARK-BULK): each
    micro-batch's checked rows stepped into a
    :class:`~spark_impl.reduce.bulk_view.BulkViewRunner` whose tables live under
    ``CHECKPOINT/NAME/bulk-state`` (:data:`BULK_STATE`), each version labelled with the
    micro-batch that made it. The runner hands a step's changes over before it commits the
    step's version: they are published first, so a crash in between runs the micro-batch again
    from the version before it (its publication then skipped: done); a micro-batch Spark runs
    again after its version was committed is not applied twice (its changes are out). A
    micro-batch of several files is checked file by file (SKIP-DEC-SPARK-PARTS)."""

    def __init__(self, spark: SparkSession, spec: ViewSpec, rows: DataFrame,
                 outputs: Outputs, value_type: str, checkpoint: str) -> None:
        self.spark, self.spec, self.outputs, self.value_type = spark, spec, outputs, value_type
        self.feed = self.checked(rows)
        types = dict(self.feed.dtypes)
        self.runner = BulkViewRunner(spark, spec.reducer, types["key"], types["value"],
                                     f"{checkpoint}/{BULK_STATE}", self._publish)
        self.batch_id = -1  # the micro-batch being applied
        self.refusal: Refused | None = None
        self._lock = threading.Lock()  # as the reach view's: a snapshot never sees half a step

    def plan(self) -> DataFrame:
        return self.feed

    def handle(self, batch: DataFrame, batch_id: int) -> None:
        with self._lock:
            _handled(self, batch, batch_id, self._apply)

    def _apply(self, batch: DataFrame, batch_id: int) -> None:
        applied = self.runner.label
        if applied is not None and batch_id <= applied:
            return  # committed by a run that died before Spark committed the micro-batch
        self.batch_id = batch_id
        self.runner.step(batch, label=batch_id)

    def _publish(self, changes: DataFrame, step: int) -> None:
        _crash_point(self.batch_id, "changes")
        if not self.outputs.has_changes(self.batch_id):
            self.outputs.changes(changes, self.batch_id)
        _crash_point(self.batch_id, "published")

    def snapshot(self, checkpoint: str, batch_id: int) -> None:
        """Publish the view as of the last micro-batch applied (``batch_id``, or the one after
        it if that one is applied but not yet committed), labelled with that micro-batch."""
        with self._lock:
            applied = self.runner.label
            if applied is not None:
                self.outputs.snapshot(self.runner.read_view(), applied)


class ReachView:
    """A reachability view: the fixpoint engine applied per micro-batch, its state
    saved with each micro-batch under the checkpoint (version = micro-batch id).

    :meth:`handle` runs on the query's thread, :meth:`snapshot` on the caller's: one lock
    keeps the engine to one of them at a time, so a snapshot holds the state of the
    micro-batch it is labelled with, never one half applied or the next one's."""

    def __init__(self, spark: SparkSession, spec: ViewSpec, rows: DataFrame,
                 outputs: Outputs, fs: FileSystem, checkpoint: str) -> None:
        self.spark, self.spec, self.outputs, self.fs = spark, spec, outputs, fs
        self.feed = self.checked(rows)
        self.state_root = f"{checkpoint}/reach-state"
        self.saved = SavedTables(spark, fs, self.state_root, Outputs(fs, self.state_root).publish)
        self.node_type = dict(self.feed.dtypes)["src"]
        self.engine: Any = None
        self.applied = -1  # the micro-batch the engine's state includes
        self.refusal: Refused | None = None
        self._lock = threading.Lock()

    def checked(self, rows: DataFrame, *keep: str) -> DataFrame:
        """The view's rows of ``rows``, checked (:func:`reach_checked`)."""
        return reach_checked(_reach_rows(rows), *keep)

    def plan(self) -> DataFrame:
        return self.feed

    def _engine(self) -> Any:
        from spark_impl.fixpoint.reachability import IncrementalReachability

        if self.engine is None:
            self.engine = IncrementalReachability(self.spark, self.node_type)
            latest = self.fs.read_text(f"{self.state_root}/_LATEST")
            if latest is not None:
                self.applied = int(latest)
                if self.saved.has(self.applied):
                    self.engine.resume(self.saved.load(self.applied, self.engine.stored))
                else:  # saved whole, by an earlier version of this view
                    base = self.saved.version(self.applied)
                    self.engine.restore(*(self.spark.read.parquet(f"{base}/{name}") for name in STATE_TABLES))
        return self.engine

    def handle(self, batch: DataFrame, batch_id: int) -> None:
        with self._lock:
            _handled(self, batch, batch_id, self._apply)

    def _apply(self, batch: DataFrame, batch_id: int) -> None:
        engine = self._engine()
        if batch_id > self.applied:  # a re-run of an applied micro-batch only republishes
            refuse_invalid_row(batch)  # before anything is applied: the state stays as it was
            kept = Scratch()
            try:
                changes = self._changes(engine, batch, kept)
                # published before the state is saved: a crash between the two re-runs the
                # micro-batch from the state before it, whose changes are those published (a
                # publication is skipped when its folder is marked published); saved first, the
                # re-run would find the batch applied and, but for the changes saved with the
                # state, publish nothing for it
                self.outputs.changes(changes, batch_id)
                _crash_point(batch_id, "published")
                self._save(batch_id, changes)
                _crash_point(batch_id, "saved")
            finally:
                kept.release()
        elif not self.outputs.has_changes(batch_id):  # applied and saved, its changes with it
            saved = f"{self.saved.version(batch_id)}/{SAVED_CHANGES}"
            self.outputs.changes(self.spark.read.parquet(saved), batch_id)

    def _changes(self, engine: Any, batch: DataFrame, kept: Scratch) -> DataFrame:
        """Apply the micro-batch's files to ``engine``, each its own change, in order
        (SKIP-DEC-SPARK-PARTS); their composed output delta ``(node, added)``. Only the files'
        names come to the driver: the edits and the deltas stay DataFrames. With several
        files, each step's composed delta is computed into ``kept`` (a local checkpoint: no
        lineage back to the update's frames, which the next update releases, nor to its
        tables, whose uncaching would have a cache of it recomputed) before the next file."""
        parts = sorted(r["part"] for r in batch.select("part").distinct().collect())
        changes: DataFrame | None = None
        for part in parts:
            edits = batch if len(parts) == 1 else batch.where(F.col("part") == part)
            delta = engine.apply_frame(graph_edits(edits))
            step = (delta.added_frame.select("node", F.lit(True).alias("added"))
                    .unionByName(delta.removed_frame.select("node", F.lit(False).alias("added"))))
            changes = step if changes is None else _composed(changes, step)
            if len(parts) > 1:
                with kept.collecting():
                    changes = once(changes)
                changes.count()  # computed while this update's frames are there
        if changes is None:  # no file: no change
            return self.spark.createDataFrame([], f"node {self.node_type}, added boolean")
        return changes

    def _save(self, batch_id: int, changes: DataFrame) -> None:
        """Save the micro-batch's ``changes`` and the engine's state as version ``batch_id``
        (by what changed: the overlay, and the bases written since the last version), then
        mark it the latest and delete what it no longer needs."""
        self.saved.publish(changes, f"{self.saved.version(batch_id)}/{SAVED_CHANGES}")
        self.saved.save(self.engine.stored, batch_id)
        self.fs.write_text(f"{self.state_root}/_LATEST", str(batch_id))
        self.applied = batch_id
        self.saved.clean(batch_id)

    def snapshot(self, checkpoint: str, batch_id: int) -> None:
        """Publish the view as of the last micro-batch applied (``batch_id``, the last
        committed, or the one after it if that one is applied and saved but not yet
        committed), labelled with that micro-batch."""
        with self._lock:
            self.outputs.snapshot(self._engine().current(), self.applied)


View = ReduceView | BulkReduceView | ReachView


def _handled(view: View, batch: DataFrame, batch_id: int,
             step: Callable[[DataFrame, int], None]) -> None:
    """``step`` on the micro-batch ``batch`` (persisted meanwhile), a refusal noted on ``view``."""
    batch.persist()
    try:
        with refusals_carried(batch):  # over Spark Connect, as the query's error's text
            step(batch, batch_id)
    except Refused as refusal:
        view.refusal = refusal
        raise
    finally:
        batch.unpersist()


def graph_edits(rows: DataFrame) -> DataFrame:
    """Checked graph rows as the fixpoint engine's batch ``(kind, src, dst)``: ``R+ R- E+ E-``
    by kind and the weight's sign (none: +1), a root ``r`` as ``(kind, r, r)``."""
    kind = F.concat(F.when(F.col("kind") == "root", "R").otherwise("E"),
                    F.when(F.col("weight").isNull() | (F.col("weight") > 0), "+").otherwise("-"))
    dst = F.when(F.col("kind") == "root", F.col("src")).otherwise(F.col("dst"))
    return rows.select(kind.alias("kind"), "src", dst.alias("dst"))


def _composed(changes: DataFrame, then: DataFrame) -> DataFrame:
    """The change ``(node, added)`` ``changes`` followed by ``then``: a node changed by both
    is back where it was (added then removed, or removed then added), the rest as they are."""
    both = changes.select("node").join(then.select("node"), "node")
    return changes.unionByName(then).join(both, "node", "left_anti")


def _view_name(view_checkpoint: str) -> str:
    """A view's name (``reduce-sum``) from its checkpoint, ``CHECKPOINT/NAME``: what a
    quarantine entry records, so that a checkpoint moved as a whole keeps its entries."""
    return view_checkpoint.rstrip("/").rsplit("/", 1)[-1]


class Quarantine:
    """Input files refused with ``--on-invalid quarantine``, listed in ``CHECKPOINT/quarantine.json``.

    A listed file is left out of the stream at once but stays where it is until the
    micro-batch that refused it is committed, then moves to ``OUTPUT/_quarantine/``: the
    re-run of that micro-batch reads the files Spark recorded for it, so a file moved
    before would fail it, and ``spark.sql.files.ignoreMissingFiles`` would skip any other
    missing file as silently."""

    def __init__(self, fs: FileSystem, output: str, checkpoint: str) -> None:
        self.fs, self.output, self.path = fs, output, f"{checkpoint}/quarantine.json"
        self._lock = threading.Lock()  # views followed at once share the list

    def _entries(self) -> list[dict[str, Any]]:
        text = self.fs.read_text(self.path)
        return list(json.loads(text)) if text else []

    def files(self) -> list[str]:
        with self._lock:
            return [entry["file"] for entry in self._entries()]

    def add(self, file: str, batch_id: int, view_checkpoint: str) -> str:
        """List ``file``, refused in micro-batch ``batch_id`` of the view checkpointed at
        ``view_checkpoint``; returns where it will go."""
        with self._lock:
            entry = {"file": file, "batch": batch_id, "view": _view_name(view_checkpoint)}
            self.fs.write_text(self.path, json.dumps([*self._entries(), entry]))
        return self._target(file)

    def _target(self, file: str) -> str:
        return f"{self.output}/_quarantine/{file.rsplit('/', 1)[-1]}"

    def settle(self, view_checkpoint: str, log: Callable[[str], None]) -> None:
        """Move the files listed by the view checkpointed at ``view_checkpoint`` (an entry of an
        earlier version, naming no view, counts as any view's) whose micro-batch that view
        committed: it never reads them again."""
        committed, view = last_committed(self.fs, view_checkpoint), _view_name(view_checkpoint)
        with self._lock:
            entries = self._entries()
            due = [e for e in entries if committed is not None and e["batch"] <= committed
                   and e.get("view", view) == view]
            for entry in due:
                if self.fs.exists(entry["file"]):
                    self.fs.rename(entry["file"], self._target(entry["file"]))
                    log(f"pipeline: quarantined {entry['file']} -> {self._target(entry['file'])}")
            if due:
                self.fs.write_text(self.path, json.dumps([e for e in entries if e not in due]))


def run(spark: SparkSession, input_dir: str, output: str, checkpoint: str | None,
        specs: list[ViewSpec], *, fmt: str | None = None, follow: bool = False,
        quarantine: bool = False, snapshot_every: int = 10, files_per_batch: int = 1,
        compaction_floor: int = COMPACTION_FLOOR, log: Callable[[str], None] = print,
        stop: threading.Event | None = None, reduce_path: str = "stream") -> int:
    """Process the input folder (see the module docstring); returns an exit status.
    ``compaction_floor``: a group view is compacted once the groups it emptied reach its live
    groups and this many (:mod:`spark_impl.reduce.group_generations`). ``stop``, once set, ends
    a ``follow`` run (each view's query stopped, status 0): for a caller that embeds the run.
    ``reduce_path``: where the reduce views keep their state (:data:`REDUCE_PATHS`)."""
    input_url, output_url = as_url(input_dir), as_url(output)
    checkpoint_url = as_url(checkpoint) if checkpoint else f"{output_url}/_checkpoint"
    if is_connect(spark):  # refused before anything is read, written or started
        connect_refusal(specs, reduce_path=reduce_path)
        for url in (input_url, output_url, checkpoint_url):
            file_system(spark, url)
    fs = file_system(spark, output_url)
    fs.mkdirs(checkpoint_url)
    source = Source(spark, fs, input_url, checkpoint_url, fmt, files_per_batch)
    shared = Run(spark, fs, source, Quarantine(fs, output_url, checkpoint_url), output_url,
                 checkpoint_url, follow, quarantine, snapshot_every, compaction_floor, log,
                 stop or threading.Event(), together=follow and len(specs) > 1, reduce_path=reduce_path)
    if shared.together:
        return shared.views_together(specs)
    status = 0
    for spec in specs:
        status = max(status, shared.view(spec))
    return status


@dataclass(frozen=True)
class Run:
    """What every view of one ``incspec pipeline`` run shares."""

    spark: SparkSession
    fs: FileSystem
    source: Source
    quarantine: Quarantine
    output: str
    checkpoint: str
    follow: bool
    quarantining: bool
    snapshot_every: int
    compaction_floor: int
    log: Callable[[str], None]
    #: set: every view's query stops (a follow run's end)
    stopping: threading.Event
    #: the views run at once (``--follow`` with several): quarantined files move only while
    #: no view runs (see :meth:`views_together`)
    together: bool = False
    #: where the reduce views keep their state (:data:`REDUCE_PATHS`)
    reduce_path: str = "stream"

    def views_together(self, specs: list[ViewSpec]) -> int:
        """``--follow`` with several views: each view's query runs at once, in a thread of its
        own (one after another, the first would never end). The first view to end with a
        refusal or an error stops the others; the run's status is the worst, an error raised.

        A file one view quarantines stays in the input folder, left out of the views' streams
        as they restart, and moves to ``OUTPUT/_quarantine`` when the run ends or starts
        again: another view's query, running meanwhile, may still read it."""
        for spec in specs:
            self.quarantine.settle(f"{self.checkpoint}/{spec.name}", self.log)
        statuses: dict[str, int] = {}
        errors: list[BaseException] = []

        def follow_one(spec: ViewSpec) -> None:
            try:
                statuses[spec.name] = self.view(spec)
            except BaseException as error:  # noqa: BLE001 (re-raised on the caller's thread)
                errors.append(error)
            finally:
                if statuses.get(spec.name) != 0:
                    self.stopping.set()

        threads = [threading.Thread(target=follow_one, args=(spec,), name=f"incspec-{spec.name}",
                                    daemon=True) for spec in specs]
        for thread in threads:
            thread.start()
        try:
            for thread in threads:
                while thread.is_alive():
                    thread.join(1.0)  # in steps: an interrupt reaches this thread
        except BaseException:
            self.stopping.set()
            for thread in threads:
                thread.join()
            raise
        for spec in specs:
            self.quarantine.settle(f"{self.checkpoint}/{spec.name}", self.log)
        if errors:
            raise errors[0]
        return max(statuses.values(), default=0)

    def _settle(self, checkpoint: str) -> None:
        """Move the view's quarantined files that are due, unless other views run at once."""
        if not self.together:
            self.quarantine.settle(checkpoint, self.log)

    def view(self, spec: ViewSpec) -> int:
        """Run one view's query to the end of the input (or, with ``--follow``, until
        :attr:`stopping`); returns its exit status. Under ``--follow`` a group view whose
        compaction is due has its query stopped, is compacted, and goes on; so does one whose
        older generation was evicted, without the watermark from then on."""
        outputs = Outputs(self.fs, f"{self.output}/{spec.name}")
        checkpoint = f"{self.checkpoint}/{spec.name}"
        outputs.adopt(last_committed(self.fs, checkpoint))  # an older version's output
        failures, failed_after = 0, None  # transient failures in a row after the same committed batch
        compaction = Compaction(self.spark, self.fs, checkpoint,
                                Generations(self.spark, self.fs, f"{checkpoint}/generations", checkpoint),
                                self.compaction_floor)
        if self._other_path(spec, checkpoint):
            return USAGE
        while True:
            self._settle(checkpoint)
            if self._missing_inputs(spec, checkpoint):
                return REFUSED
            view = self._built(spec, outputs, checkpoint, compaction)
            try:
                if self._compacted(view, compaction, checkpoint):
                    view = self._built(spec, outputs, checkpoint, compaction)  # the new generation's
                if self.stopping.is_set():
                    break
                query = _start(view, checkpoint, self.follow)
                if self._awaited(query, view, checkpoint, stoppable=self.follow) and not self.stopping.is_set():
                    continue  # stopped for a compaction (the next round writes it) or an eviction done
            except Exception as error:  # noqa: BLE001 (a refusal is reported, the rest re-raised)
                refused = view.refusal or refusal_in(error)
                if refused is None and transient(error):
                    last = last_committed(self.fs, checkpoint)
                    failures = failures + 1 if last == failed_after else 1
                    failed_after = last
                    if restart_after(error, failures, f"pipeline: {spec.name}", self.log):
                        continue  # from the checkpoint: the failed micro-batch was not committed
                if refused is None:
                    raise
                if self._refused(spec, view, refused, checkpoint):
                    continue
                return REFUSED
            break
        last = _snapshot_last(view, self.fs, checkpoint)
        self._settle(checkpoint)
        self._compacted(view, compaction, checkpoint)  # read by the next run
        self.log(f"pipeline: {spec.name}: {0 if last is None else last + 1} micro-batch(es) committed")
        return 0

    def _awaited(self, query: StreamingQuery, view: View, checkpoint: str, stoppable: bool = False) -> bool:
        """:func:`_await` the query; ``stoppable`` (``--follow``): stopped once :attr:`stopping`
        is set or a group view's compaction is due. Whether it was stopped."""
        def stop() -> bool:
            return stoppable and (self.stopping.is_set()
                                  or (isinstance(view, ReduceView) and view.restart_due()))

        return _await(query, view, self.fs, checkpoint, self.snapshot_every, self.log,
                      lambda last: self._settle(checkpoint), stop)

    def _compacted(self, view: View, compaction: Compaction, checkpoint: str) -> bool:
        """With no query running: compact a group view if due, a micro-batch planned and not
        committed run first (to the end of the input then seen, :func:`_start` without
        ``--follow``); whether it was compacted (:mod:`spark_impl.reduce.compaction`)."""
        if not isinstance(view, ReduceView) or not view.compaction_due():
            return False
        if compaction.planned():
            self._awaited(_start(view, checkpoint, follow=False), view, checkpoint)
        if not compaction.compact(view.view):
            return False
        self.log(f"pipeline: {view.spec.name}: live groups re-stated as generation "
                 f"{compaction.generations.current}")
        return True

    def _built(self, spec: ViewSpec, outputs: Outputs, checkpoint: str, compaction: Compaction) -> View:
        """The view's query plan over the input not quarantined, a reduce view's in the
        generation in force."""
        rows = self.source.stream(self.quarantine.files())
        if spec.kind == "reduce" and self.reduce_path == "bulk":
            return BulkReduceView(self.spark, spec, rows, outputs, self.source.value_type, checkpoint)
        if spec.kind == "reduce":
            return ReduceView(self.spark, spec, rows, outputs, self.source.value_type, checkpoint, compaction)
        return ReachView(self.spark, spec, rows, outputs, self.fs, checkpoint)

    def _refused(self, spec: ViewSpec, view: View, refused: Refused, checkpoint: str) -> bool:
        """Report a refused micro-batch in one line; whether to go on (its file quarantined)."""
        self.log(f"pipeline: {spec.name}: micro-batch refused: {self._located(refused, view)}")
        last = _snapshot_last(view, self.fs, checkpoint)  # the view as of the last committed batch
        if not self.quarantining or not refused.file:
            self.log("pipeline: nothing of it was applied; fix the file where it is and run again "
                     "(or pass --on-invalid quarantine)")
            return False
        batch = 0 if last is None else last + 1
        target = self.quarantine.add(refused.file, batch, checkpoint)
        when = ("when the run ends (the other views, running meanwhile, may still read it)"
                if self.together else f"once micro-batch {batch} is committed without it")
        self.log(f"pipeline: {refused.file} goes to {target} {when}; going on")
        return True

    def _located(self, refused: Refused, view: View) -> str:
        """The refusal's message; an invalid row's names its file, row, column and value."""
        if not isinstance(refused, InvalidInput) or not refused.file:
            return refused.message
        kind, rows = self.source.numbered(refused.file)
        first = view.checked(rows, "row").where(F.col("invalid").isNotNull()).orderBy("row")
        found = first.select("row", "invalid").first()  # one row: the refusal's facts
        if found is None:  # not a row's fault (an overflow at a key)
            return refused.message
        return f"invalid row in {refused.file}, {kind} {found['row']}: {found['invalid']}"

    def _other_path(self, spec: ViewSpec, checkpoint: str) -> bool:
        """Report a reduce view whose checkpoint holds the other path's state (a run of the
        other ``--reduce-path``): its state is not this path's to read."""
        if spec.kind != "reduce":
            return False
        tables = self.fs.exists(f"{checkpoint}/{BULK_STATE}")
        held = "bulk" if tables else "stream" if last_committed(self.fs, checkpoint) is not None else None
        if held in (None, self.reduce_path):
            return False
        self.log(f"pipeline: {spec.name}: its checkpoint holds the {held} path's state; run it with "
                 f"--reduce-path {held}, or with another checkpoint")
        return True

    def _missing_inputs(self, spec: ViewSpec, checkpoint: str) -> bool:
        """Report the input files Spark recorded for the micro-batch it will re-run and that are
        gone: Spark's file listing drops a missing file silently (whatever
        ``ignoreMissingFiles`` says), losing its changes."""
        last = last_committed(self.fs, checkpoint)
        batch = 0 if last is None else last + 1
        gone = [f for f in batch_files(self.fs, checkpoint, batch)
                if f not in self.quarantine.files() and not self.fs.exists(f)]
        if gone:
            self.log(f"pipeline: {spec.name}: micro-batch {batch} not run: {', '.join(gone)}, "
                     "recorded for it in the checkpoint, is missing; put it back (fixed, if it was "
                     "refused) and run again")
        return bool(gone)


def _snapshot_last(view: View, fs: FileSystem, checkpoint: str) -> int | None:
    """Publish the view as of the last committed micro-batch (if any); returns its id."""
    last = last_committed(fs, checkpoint)
    if last is not None:
        view.snapshot(checkpoint, last)
    return last


def _start(view: View, checkpoint: str, follow: bool) -> StreamingQuery:
    writer = view.plan().writeStream.foreachBatch(view.handle).option("checkpointLocation", checkpoint)
    writer = writer.outputMode("update") if isinstance(view, ReduceView) else writer
    trigger = writer.trigger(processingTime="1 second") if follow else writer.trigger(availableNow=True)
    with query_start(view.spark, checkpoint):
        return trigger.start()


def _await(query: StreamingQuery, view: View, fs: FileSystem, checkpoint: str,
           snapshot_every: int, log: Callable[[str], None],
           committed: Callable[[int], None], stop: Callable[[], bool] = lambda: False) -> bool:
    """Wait for the query, logging progress, snapshotting every ``snapshot_every`` and telling
    ``committed`` each newly committed micro-batch; the query is stopped once ``stop()`` says so,
    between two micro-batches if one ends within :data:`STOP_WAIT_SECONDS` (else the one under
    way is left uncommitted: the next start runs it again). Whether it was stopped."""
    snapped = seen = last_committed(fs, checkpoint)
    logged = -1
    while query.isActive:
        query.awaitTermination(2)
        progress = query.lastProgress
        if progress and progress["batchId"] > logged:
            logged = progress["batchId"]
            log(f"pipeline: {view.spec.name}: micro-batch {logged} done in "
                f"{progress['batchDuration'] / 1000:.2f} s")
        last = last_committed(fs, checkpoint)
        if last is not None and last != seen:
            committed(last)
            seen = last
        if last is not None and (snapped is None or last - snapped >= snapshot_every):
            view.snapshot(checkpoint, last)
            snapped = last
        if query.isActive and stop():
            _between_micro_batches(query)
            query.stop()
            return True
    query.awaitTermination()  # re-raises the query's error, if it failed
    return False


def _between_micro_batches(query: StreamingQuery, wait: float = STOP_WAIT_SECONDS) -> None:
    """Wait, at most ``wait`` seconds, until ``query`` runs no micro-batch (a trigger may
    still start before the stop that follows: it is then left uncommitted, to run again)."""
    deadline = time.monotonic() + wait
    while query.isActive and query.status["isTriggerActive"] and time.monotonic() < deadline:
        time.sleep(0.1)


def connect_refusal(specs: list[ViewSpec], remote: str = "sc://...", reduce_path: str = "stream") -> None:
    """Over Spark Connect only the reduce views run, on the stream path: the reach view's
    fixpoint engine drives the JVM itself (its scratch frames are local checkpoints rebuilt as
    Spark's internal ``LogicalRDD`` through py4j, its kept tables reliable RDD checkpoints:
    :class:`~spark_impl.connect.NeedsJvm`), and the bulk path's runner would be stepped inside
    the query's batch handler on the server's Python worker, which no test here covers: each is
    refused in one line before anything starts."""
    if any(spec.kind == "reach" for spec in specs):
        raise NeedsJvm("the reach view", remote)
    if reduce_path == "bulk" and any(spec.kind == "reduce" for spec in specs):
        raise SparkEngineError("unsupported", (
            f"incspec: the bulk path (--reduce-path bulk) is not run over Spark Connect ({remote}): "
            "its runner is stepped inside the query's batch handler, on the server; run it with a "
            "local or cluster master"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="incspec pipeline", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--input", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--checkpoint", help="default: OUTPUT/_checkpoint")
    parser.add_argument("--view", type=ViewSpec.parse, action="append", required=True)
    parser.add_argument("--master", help="Spark master URL (default $INCSPEC_SPARK_MASTER or local[2])")
    parser.add_argument("--remote", default=os.environ.get("SPARK_REMOTE") or None,
                        help="a Spark Connect server, sc://HOST:PORT (default $SPARK_REMOTE): the "
                             "reduce views only, on local paths the server shares (docs/spark.md)")
    parser.add_argument("--format", choices=sorted(set(FORMATS.values())))
    parser.add_argument("--follow", action="store_true", help="keep watching the input folder")
    parser.add_argument("--on-invalid", choices=["stop", "quarantine"], default="stop")
    parser.add_argument("--snapshot-every", type=int, default=10)
    parser.add_argument("--files-per-batch", type=int, default=1,
                        help="input files per micro-batch (each still its own delta, in order)")
    parser.add_argument("--reduce-path", choices=REDUCE_PATHS, default="stream",
                        help="where the reduce views keep their state: the state store, point "
                             "updates (stream, the default), or tables merged in bulk (bulk: "
                             "faster loads and large batches, docs/spark.md); a view's checkpoint "
                             "keeps the path it was started on")
    parser.add_argument("--compaction-floor", type=int, default=COMPACTION_FLOOR,
                        help="a sum or count view's state is compacted, when a run starts or "
                             "ends, once the (key, value) groups and keys it emptied reach its "
                             f"live ones and this many (default {COMPACTION_FLOOR})")
    args = parser.parse_args(argv)
    if args.remote and args.master:
        parser.error("give --master or --remote (Spark Connect), not both")
    if args.remote and not is_connect_url(args.remote):
        parser.error(f"--remote {args.remote}: a Spark Connect URL starts with sc://")
    from spark_impl.session import build_session

    try:
        if args.remote:  # before the session: a refused view contacts no server
            connect_refusal(args.view, args.remote, args.reduce_path)
        spark = build_session(args.remote or args.master, app_name="incspec-pipeline")
        return run(spark, args.input, args.output, args.checkpoint, args.view, fmt=args.format,
                   follow=args.follow, quarantine=args.on_invalid == "quarantine",
                   snapshot_every=max(1, args.snapshot_every),
                   files_per_batch=max(1, args.files_per_batch),
                   compaction_floor=max(1, args.compaction_floor), reduce_path=args.reduce_path)
    except NeedsJvm as refusal:
        print(NeedsJvm.line(refusal.what, args.remote or "sc://..."), file=sys.stderr)
        return USAGE
    except SparkEngineError as refusal:
        if refusal.error_class != "unsupported":
            raise
        print(refusal.message, file=sys.stderr)
        return USAGE


if __name__ == "__main__":
    sys.exit(main())
