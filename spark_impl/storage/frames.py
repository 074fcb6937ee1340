"""Frames an engine keeps between updates, materialised with bounded lineage; unions of frames.

Every DataFrame an engine keeps across updates is cut from its lineage with
``localCheckpoint`` (``cache()`` alone lets the plan grow with every update
until planning dominates; see docs/ARCHITECTURE.md). Such a frame is
executor-local (:func:`~spark_impl.storage.scratch.local_checkpoint`): the
Z-set engine's differences and traces are kept so; durable state is written
by reliable checkpoints (:mod:`spark_impl.storage.keyed_tables`).
"""

from __future__ import annotations

from functools import reduce as fold_left

from pyspark.sql import DataFrame

from spark_impl.storage.scratch import local_checkpoint


def materialise(df: DataFrame) -> DataFrame:
    """Compute ``df`` once and cut its lineage (one Spark job); the leaf does
    not inherit the size estimate of the plan it cut (they compound over
    versions: spark_impl/storage/scratch.py)."""
    return local_checkpoint(df, eager=True)


def materialise_counted(df: DataFrame) -> tuple[DataFrame, int]:
    """``df`` computed once, its lineage cut, and its row count, in one Spark job
    (a lazy local checkpoint, filled by the count that reads it; :func:`materialise`
    and then a count would be two). Executor-local like :func:`materialise` (the
    Z-set engine's differences and traces): an executor lost loses them, so they
    are not durable state."""
    out = local_checkpoint(df, eager=False)
    return out, out.count()


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
