"""Frames an engine keeps between updates, in reliable storage; unions of frames.

A frame an engine keeps across updates is cut from its lineage (``cache()``
alone lets the plan grow with every update until planning dominates; see
docs/ARCHITECTURE.md) by writing its rows to the session's checkpoint
location (:class:`KeptFrames`: Parquet tables under the user's
``INCSPEC_CHECKPOINT_DIR``, a Hadoop path) and reading them back: they
survive the loss of any executor. The keyed tables of the fixpoint engine are
reliable checkpoints in the same location
(:mod:`spark_impl.storage.keyed_tables`). Only scratch that lives within one
update is a local checkpoint (:func:`materialise_counted`,
:mod:`spark_impl.storage.scratch`).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from functools import reduce as fold_left

from pyspark.sql import DataFrame, Observation, SparkSession
from pyspark.sql import functions as F

from spark_impl.connect import require_jvm
from spark_impl.storage.hadoop_fs import HadoopFS
from spark_impl.storage.scratch import local_checkpoint


def materialise_counted(df: DataFrame) -> tuple[DataFrame, int]:
    """``df`` computed once, its lineage cut, and its row count, in one Spark job
    (a lazy local checkpoint, filled by the count that reads it; an eager one
    and then a count would be two). Executor-local: an update's scratch only,
    an executor lost loses it (what an engine keeps goes to :class:`KeptFrames`)."""
    out = local_checkpoint(df, eager=False)
    return out, out.count()


#: the column a :class:`KeptFrames` table tags each row with: the index of its frame in the write
PART = "_part"


class KeptFrames:
    """An engine's frames kept across updates, as Parquet tables under the
    session's reliable checkpoint location (one folder per engine), and the
    deletion of the tables no kept frame reads any more.

    :meth:`write` stores several frames as one table (one Spark job, however
    many frames: an update's new trace pieces, its output, its logs), each row
    tagged with its frame's index, and hands back one reader per frame (the
    table's rows of that index, lineage the files alone). Its row count comes
    from the same job (an observation), so storing costs no more jobs than the
    local checkpoint and count it replaces; the schema is given to the reader,
    so reading back runs no job either. Spark's reliable RDD checkpoint would
    cost two jobs a write (the rows computed, then written).

    Old versions go explicitly: :meth:`sweep` deletes every table that none of
    the given live frames reads (after an update is committed, the state's
    frames and its output; after a failed update, the old state's), so the
    files under the checkpoint location are those of the live state alone.
    Spark's own cleaner (``spark.cleaner.referenceTracking.cleanCheckpoints``)
    deletes a replaced reliable checkpoint only once the JVM collects its RDD,
    which may be long after."""

    def __init__(self, spark: SparkSession, name: str) -> None:
        require_jvm(spark, "an engine's kept frames (the session's checkpoint location)")
        location = spark.sparkContext.getCheckpointDir()
        if not location:
            raise ValueError("the session has no checkpoint location (spark_impl.session.build_session sets it)")
        self.spark = spark
        self.root = f"{location}/{name}-{uuid.uuid4().hex}"
        self.fs = HadoopFS(spark, location)
        self._tables = 0
        #: id of every reader handed out -> (its table's path, the reader: held so the id stays its own)
        self._readers: dict[int, tuple[str, DataFrame]] = {}

    def write(self, frames: Sequence[DataFrame]) -> tuple[list[DataFrame], int]:
        """``frames`` stored as one new table (one Spark job); a reader per frame,
        with its columns, and the rows written in all. A column missing from a
        frame is null in the table (the frames may differ in columns, not in a
        shared column's type)."""
        columns: dict[str, str] = {}
        for frame in frames:
            for name, kind in frame.dtypes:
                columns.setdefault(name, kind)
        tagged = [frame.select(F.lit(i).alias(PART), *(
            F.col(c) if c in frame.columns else F.lit(None).cast(kind).alias(c) for c, kind in columns.items()))
            for i, frame in enumerate(frames)]
        rows = union_coalesced(tagged)
        path = f"{self.root}/{self._tables}"
        self._tables += 1
        observed = Observation()
        try:
            rows.observe(observed, F.count(F.lit(1)).alias("rows")).write.parquet(path)
        except BaseException:
            self.fs.delete(path)
            raise
        table = self.spark.read.schema(rows.schema).parquet(path)
        readers = [table.where(F.col(PART) == i).select(*frame.columns) for i, frame in enumerate(frames)]
        for reader in readers:
            self._readers[id(reader)] = (path, reader)
        return readers, int(observed.get["rows"])

    def holds(self, frame: DataFrame) -> bool:
        """Whether ``frame`` is a reader :meth:`write` handed out (and not swept)."""
        return id(frame) in self._readers

    def sweep(self, live: Iterable[DataFrame]) -> None:
        """Delete every table none of ``live`` reads (their readers fail after)."""
        kept = {self._readers[id(f)][0] for f in live if id(f) in self._readers}
        for path in {path for path, _ in self._readers.values()} - kept:
            self.fs.delete(path)
        self._readers = {i: (path, f) for i, (path, f) in self._readers.items() if path in kept}


def union_all(frames: list[DataFrame]) -> DataFrame:
    return fold_left(DataFrame.unionByName, frames)


def session_partitions(df: DataFrame) -> int:
    """The session's shuffle partition count: the parallelism every engine's frames share."""
    return int(df.sparkSession.conf.get("spark.sql.shuffle.partitions") or "2")


def union_coalesced(frames: list[DataFrame]) -> DataFrame:
    """The union of ``frames`` in at most the session's partition count
    (:func:`coalesced`); one frame is returned as it is, its partitioning kept."""
    return frames[0] if len(frames) == 1 else coalesced(union_all(frames))


def coalesced(df: DataFrame) -> DataFrame:
    """``df`` in at most the session's partition count (``coalesce``: no shuffle).

    A union's partitions are its parts' together. A frame kept from update to
    update as a union (an overlay rewritten as its old rows plus the new
    changes, a trace read as the union of its pieces) would gain its parts'
    partitions every update, and every stage reading it run that many more
    tasks: six small updates of the fixpoint engine left 94 tasks a stage, a
    Z-set loop's trace 112. Not for a frame whose hash partitioning a join
    relies on (a coalesce forgets it)."""
    return df.coalesce(session_partitions(df))
