"""Scratch frames of an engine update: computed once, released when it is over.

An update's rounds read some frames several times (a frontier joined with two
tables, a probe joined with a base and its patches). :func:`once` makes such a
frame a lazy local checkpoint: the first job that reads it computes it into
the executors' block stores, later plans read those blocks as a leaf (the
lineage, and the plan, stop there). The blocks are scratch: they die with an
executor and nothing stored may depend on them (what an engine keeps beyond an
update is written to the session's checkpoint location: the fixpoint engine's
tables as reliable checkpoints, :mod:`spark_impl.storage.keyed_tables`, the
Z-set engine's frames as Parquet tables, :mod:`spark_impl.storage.frames`).

Spark frees a local checkpoint's blocks only when the JVM collects its RDD
object, which may be long after the update (or never, before the heap is full:
an update of many rounds makes hundreds of them). So an engine
collects its update's scratch frames in a :class:`Scratch` and releases them
itself, at the latest when the next update begins: the output delta of an
update is read from its scratch frames, so it stays readable until then.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from py4j.protocol import Py4JError
from pyspark.sql import DataFrame

from spark_impl.connect import require_jvm
from spark_impl.jvm_lookups import java_class


class Scratch:
    """The scratch frames made by :func:`once` while :meth:`collecting`, until :meth:`release`."""

    def __init__(self) -> None:
        self._blocks: list[Any] = []  # the checkpointed RDDs (JVM objects)

    @contextmanager
    def collecting(self) -> Iterator[Scratch]:
        """Within the block, every frame :func:`once` makes is this scratch's."""
        token = _current.set(self)
        try:
            yield self
        finally:
            _current.reset(token)

    def __len__(self) -> int:
        return len(self._blocks)

    def release(self) -> None:
        """Free every collected frame's blocks (reading such a frame later fails
        loudly: Spark reports the checkpoint block missing)."""
        blocks, self._blocks = self._blocks, []
        for rdd in blocks:
            rdd.unpersist(False)


_current: ContextVar[Scratch | None] = ContextVar("scratch", default=None)


def once(df: DataFrame) -> DataFrame:
    """``df`` computed at most once however often the plans that follow read it
    (a lazy local checkpoint without inherited statistics), collected by the
    :class:`Scratch` in force."""
    out = local_checkpoint(df, eager=False)
    scratch = _current.get()
    if scratch is not None:
        scratch._blocks.append(out._jdf.queryExecution().analyzed().rdd())
    return out


#: Spark's error class for a local checkpoint's block that is gone (released, or lost with its executor)
LOST_BLOCK = "CHECKPOINT_RDD_BLOCK_ID_NOT_FOUND"


def lost_scratch(error: BaseException) -> bool:
    """Whether ``error`` is a job's failure to read a scratch frame whose blocks are gone."""
    return LOST_BLOCK in str(error)


#: the thread-local Spark property that makes a checkpoint cut its marked ancestors' lineage too
ALL_MARKED_ANCESTORS = "spark.checkpoint.checkpointAllMarkedAncestors"


def local_checkpoint(df: DataFrame, eager: bool) -> DataFrame:
    """``df`` as a local checkpoint (computed by the first job that reads it, or
    here if ``eager``) without inherited statistics, whose checkpointing also
    cuts the lineage of every checkpoint it reads.

    By default a job checkpoints only the last RDD of its lineage marked for it:
    a frame made of an earlier frame not yet read on its own (a union of
    patches, merged every few rounds) would keep that frame's lineage, and the
    next merge add its own, so lineage would grow by a few RDDs a round. Tasks
    carry their lineage, and deserialising it overflows an executor's stack
    after some hundreds of rounds. Spark reads the property when an RDD is
    made, on the thread making it, so it is set here.

    The blocks are executor-local: for an update's scratch only, never for
    state that must survive an executor or outlive the update (written to the
    checkpoint location: spark_impl/storage/keyed_tables.py,
    spark_impl/storage/frames.py)."""
    require_jvm(df.sparkSession, "a scratch frame (a local checkpoint rebuilt through py4j)")
    df.sparkSession.sparkContext.setLocalProperty(ALL_MARKED_ANCESTORS, "true")
    return without_inherited_statistics(df.localCheckpoint(eager=eager))


def without_inherited_statistics(checkpointed: DataFrame) -> DataFrame:
    """The checkpointed frame as a leaf that forgets its origin's size estimate.

    A checkpoint's leaf (``LogicalRDD``) carries the statistics of the plan it
    replaced, and Spark estimates an inner join's size as the product of its
    sides' (no column statistics here). An update's rounds join frames made
    from the previous round's, so inherited estimates compound: a leaf's size
    has twice or four times the digits of the one before, and some tens of
    rounds into a cascade planning spends minutes multiplying numbers of
    millions of digits and fills the driver's heap. Here the leaf is rebuilt
    with the same rows, partitioning and ordering and no origin statistics
    (Spark's default size: no broadcast is ever planned from it). The
    constructor is Spark's internal one (4.x); should it differ, the leaf is
    kept as it is."""
    spark = checkpointed.sparkSession
    jvm: Any = spark._jvm
    plan = checkpointed._jdf.queryExecution().analyzed()
    try:
        none = java_class(jvm, "scala.Option").empty()
        bare = java_class(jvm, "org.apache.spark.sql.execution.LogicalRDD")(
            plan.output(), plan.rdd(), plan.outputPartitioning(), plan.outputOrdering(), plan.isStreaming(),
            plan.stream(), spark._jsparkSession, none, none, plan.isCheckpointedInput())
        jdf = java_class(jvm, "org.apache.spark.sql.classic.Dataset").ofRows(spark._jsparkSession, bare)
    except Py4JError:  # another Spark's constructor: statistics stay inherited
        return checkpointed
    return DataFrame(jdf, spark)
