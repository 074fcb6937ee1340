"""Named stream processors as functions from a streaming DataFrame to a streaming DataFrame.

>>> from spark_impl.streams import named_processor
>>> prefix_sum = named_processor("prefix_sum")
>>> sums = prefix_sum(items)          # items: a streaming DataFrame with pos, item
>>> sums.writeStream.format("parquet")...   # run, part, ord, value

The input has a column ``pos`` (bigint: the item's position in its stream, e.g.
a Kafka offset; later micro-batches carry larger positions) and ``item`` (the
item as JSON text, in the conventions of ``reference/streams/named.py``), and
optionally ``run`` (string: independent streams in one DataFrame, each with its
own state). The output rows are ``(run, part, ord, value)``, ``value`` an output
element as JSON text (null for a marker); :func:`output_of` turns a run's rows
into the processor's output as the suite writes it. The processor runs as a
``transformWithStateInPandas`` operator (:mod:`spark_impl.streams.operator`);
the session's state store provider is set to RocksDB, which it needs (with
changelog checkpointing: a commit writes the batch's changes only).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from spark_impl.streams.assemble import assemble
from spark_impl.streams.kernels import KERNELS, kernel
from spark_impl.streams.operator import (
    CHANGELOG,
    OUTPUT_SCHEMA,
    PROVIDER,
    ROCKSDB,
    apply_processors,
    spec_of,
)

Value = Any

__all__ = ["OUTPUT_SCHEMA", "PROCESSORS", "named_processor", "output_of"]

#: the names of the vocabulary
PROCESSORS: tuple[str, ...] = tuple(sorted(KERNELS))


def named_processor(name: str, params: Mapping[str, Value] | None = None) -> Callable[[DataFrame], DataFrame]:
    """The named processor as a function from a streaming DataFrame of items to
    the streaming DataFrame of its output rows (raises ``SparkEngineError``
    ``malformed-input`` at once for an unknown name or a bad parameter)."""
    params = dict(params or {})
    kernel(name, params)
    spec = spec_of(name, params)

    def apply(items: DataFrame) -> DataFrame:
        items.sparkSession.conf.set(PROVIDER, ROCKSDB)
        items.sparkSession.conf.set(CHANGELOG, "true")
        run = F.col("run") if "run" in items.columns else F.lit("")
        return apply_processors(items.select(F.lit(spec).alias("spec"), run.cast("string").alias("run"),
                                             F.col("pos").cast("bigint").alias("pos"),
                                             F.col("item").cast("string").alias("item")))

    return apply


def output_of(name: str, params: Mapping[str, Value] | None,
              rows: Iterable[tuple[int, int, str | None]]) -> Value:
    """One run's output from its rows ``(part, ord, value)``, in the suite's JSON form."""
    return assemble(kernel(name, dict(params or {})).shape, list(rows))
