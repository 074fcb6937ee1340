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
