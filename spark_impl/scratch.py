"""Scratch frames of an engine update: computed once, released when it is over.

An update's rounds read some frames several times (a frontier joined with two
tables, a probe joined with a base and its patches). :func:`once` makes such a
frame a lazy local checkpoint: the first job that reads it computes it into
the executors' block stores, later plans read those blocks as a leaf (the
lineage, and the plan, stop there). The blocks are scratch: they die with an
executor and nothing stored may depend on them (stored tables are written by
reliable checkpoints, :mod:`spark_impl.keyed_table`).

Spark frees a local checkpoint's blocks only when the JVM collects its RDD
object, which may be long after the update (or never, before the heap is full:
an update of many rounds on a long chain made hundreds of them). So an engine
collects its update's scratch frames in a :class:`Scratch` and releases them
itself, at the latest when the next update begins: the output delta of an
update is read from its scratch frames, so it stays readable until then.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from pyspark.sql import DataFrame


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
    (a lazy local checkpoint), collected by the :class:`Scratch` in force."""
    out = df.localCheckpoint(eager=False)
    scratch = _current.get()
    if scratch is not None:
        plan = out._jdf.queryExecution().analyzed()  # a LogicalRDD over the checkpointed RDD
        scratch._blocks.append(plan.rdd())
    return out
