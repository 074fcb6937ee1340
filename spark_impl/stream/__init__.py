r"""Named stream processors on Spark, as Structured Streaming stateful operators.

The stream paper's processor ``(S, f, s_ε, o_ε)`` (STREAM-DEF-3.16) has the
shape of a streaming stateful operator: state per group, one step per
micro-batch. Each named processor of the suite's vocabulary
(``reference/streams/named.py`` is its oracle; this is an independent
implementation) is a function from a streaming DataFrame to a streaming
DataFrame (:func:`named_processor`, this package's face):

>>> from spark_impl.stream import named_processor
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
``transformWithStateInPandas`` operator; the session's state store provider is
set to RocksDB, which it needs (with changelog checkpointing: a commit writes
the batch's changes only).

The modules:

* :mod:`spark_impl.stream.kernels`: each processor as a per-batch step over
  keyed state, with work in proportion to the batch (and to the output):
  constant state for the sequential processors (running sum, last item, carry),
  the key's rows for the joins (grouped by join key: STREAM-THM-3.51), "seen"
  per value for ``distinct``; the TCP receiver keeps the next expected number
  and the packets received ahead of it, the set difference with ticks its two
  live strata, the transitive closure loop its edges and paths indexed for the
  semi-naive round;
* :mod:`spark_impl.stream.kernel_state`: the state a kernel keeps for one
  group, in the state store or (for tests without Spark) in dicts;
* :mod:`spark_impl.stream.operator`: the plan (parse and key, group, operator);
* :mod:`spark_impl.stream.assemble`: a run's output rows as the processor's
  output in the suite's JSON form;
* :mod:`spark_impl.stream.runner`: runs over batches given in memory (one file
  per batch, ``maxFilesPerTrigger=1``, ``Trigger.AvailableNow``), many runs in
  one query (:class:`~spark_impl.stream.runner.SparkStreams`).

Design decision: one ``transformWithStateInPandas`` operator hosts every
processor, so the suite's stream cases with all their cuts (hundreds of runs)
are one query of as many micro-batches as the longest cut has batches, instead
of a query each (a query's start with its first Python worker costs seconds, a
micro-batch about a second on tiny data). Native operators were considered: a
stream-stream join would carry the joins and ``dropDuplicates`` ``distinct``,
but the sequential processors need per-item order within a group, which only
the Python operator gives, and one operator keeps one query. The work of a
micro-batch does not grow with the input seen, and the state of the TCP
receiver stays within the bound of §3.9 (``python -m benchmarks.stream_bench``
prints both per decile of a long run; figures in CHANGELOG.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from spark_impl.stream.assemble import assemble
from spark_impl.stream.kernels import KERNELS, kernel
from spark_impl.stream.operator import (
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
