"""Spark's own streaming aggregation over the reduce benchmark's batches: the floor of one
stateful micro-batch (issue 33's peer "Spark native streaming aggregation").

The same runner as the engine's (:class:`~spark_impl.reduce.view_runner.ViewRunner`: each batch
a Parquet folder moved into the input, one micro-batch run by ``processAllAvailable``, state in
the same RocksDB state store with the same settings, the changes written to Spark's ``noop``
sink), but the view is the plain ``groupBy(k).agg(try_sum(contribution · w))`` of the reducer's
own contributions and types (so both sum alike), in update mode, handed on as Spark emits it:

* no Δ⁻ ⊆ C check (SKIP-DEF-8): it keeps no multiset, only each key's sums and size, so a
  batch removing what is not there is taken;
* no tagging of pairs and keys, no changes computed: the micro-batch's updated keys are the
  output, an emptied key among them (size 0) rather than a removal;
* an emptied key stays in the state with size 0.

What it stores is keys (:meth:`NativeAggregation.stored_sizes`): the benchmark compares its
key count with the other engines' and does not ask it for ``(k, v)`` rows, which it does
not hold.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from spark_impl.reduce.maintained_view import MaintainedView
from spark_impl.reduce.reducer_kinds import GroupReducer
from spark_impl.reduce.view_runner import ViewRunner


@dataclass(frozen=True)
class NativeAggregation(MaintainedView):
    """A group reducer's view as Spark's native streaming aggregation alone (module docstring)."""

    @contextmanager
    def batch_changes(self, batch: DataFrame) -> Iterator[DataFrame]:
        """The micro-batch's updated keys as Spark emits them: nothing checked, nothing kept."""
        yield batch

    def stored_sizes(self, spark: SparkSession, checkpoint: str) -> dict[str, int]:
        """``keys``: the keys of the view (size above 0) in the state."""
        state = spark.read.format("statestore").load(checkpoint)
        # the aggregation buffer's fields are named after the functions (``sum``, ``isEmpty``,
        # repeated): a struct cast renames them by position; the size's sum comes first
        fields = state.schema["value"].dataType.fields  # type: ignore[attr-defined]
        renamed = ", ".join(f"f{i}: {f.dataType.simpleString()}" for i, f in enumerate(fields))
        size = F.col("value").cast(f"struct<{renamed}>")["f0"]
        return {"keys": state.where(size > 0).count()}


def native_aggregation(rows: DataFrame, reducer: GroupReducer, value_type: str) -> NativeAggregation:
    """``k ↦ (sums a0.., size n)`` over ``rows`` (``k, v, w``), one native aggregation."""
    acc_type = reducer.acc_type or value_type
    contributions = reducer.contribution(F.col("v").cast(value_type))
    sums = [F.try_sum(F.try_multiply(c.cast(acc_type), F.col("w").cast(acc_type))).alias(f"a{i}")
            for i, c in enumerate(contributions)]
    updates = rows.groupBy("k").agg(F.try_sum("w").alias("n"), *sums)  # n first: see stored_sizes
    types = dict(rows.dtypes)
    return NativeAggregation(reducer, updates, types["k"], value_type)


class NativeAggregationRunner(ViewRunner):
    """:class:`~spark_impl.reduce.view_runner.ViewRunner` with the view of
    :func:`native_aggregation` in place of the engine's."""

    def _build(self) -> MaintainedView:
        if not isinstance(self.reducer, GroupReducer):
            raise TypeError(f"the native aggregation sums a group reducer's contributions, not {self.reducer!r}")
        return native_aggregation(self._source(), self.reducer, self.value_type)
