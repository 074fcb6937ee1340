"""Reduce: incremental update against native full recompute, side by side.

A collection of ``rows`` rows over ``keys`` keys (``k = i mod keys``,
``v = (i * 7919) mod 1000``), then batches of ``batch`` changes, half inserts of
new rows and half deletions of existing ones. Measured per batch:

* incremental, built-in ``sum`` + ``count`` (one group reducer with two
  components): :meth:`IncrementalReduce.apply` with the validity check, and
  the changes collected to the driver;
* incremental, the same as a custom Python reducer ``(initial, add, remove)``
  (``mapInPandas`` fold);
* full recompute, native: ``groupBy(k).agg(sum, count)`` of the whole
  collection, materialised (``localCheckpoint``) like the incremental state.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from benchmarks.common import Series, ratio
from spark_impl.reduce_engine import IncrementalReduce
from spark_impl.reducers import GroupReducer, PythonReducer
from spark_impl.state import materialise

SUM_COUNT = GroupReducer("sum_count", 2, lambda v: [v, F.lit(1).cast("bigint")], scalar=False)


def _python_sum_count() -> PythonReducer:
    def add(a: Any, v: Any) -> Any:
        return (a[0] + v, a[1] + 1)

    def remove(a: Any, v: Any) -> Any:
        return (a[0] - v, a[1] - 1)

    return PythonReducer("python_sum_count", (0, 0), add, remove)


def collection(spark: SparkSession, rows: int, keys: int) -> DataFrame:
    return materialise(spark.range(rows).select(
        (F.col("id") % keys).alias("k"), ((F.col("id") * 7919) % 1000).alias("v"),
        F.lit(1).cast("bigint").alias("w")))


class Workload:
    """Deterministic batches of changes: inserts of fresh rows, deletions of live ones."""

    def __init__(self, rows: int, keys: int, batch: int, seed: int = 7) -> None:
        self.rng = np.random.default_rng(seed)
        self.rows, self.keys, self.batch = rows, keys, batch
        self.deleted: set[int] = set()

    def next_batch(self) -> pd.DataFrame:
        half = self.batch // 2
        ids = self.rng.choice(self.rows, size=half * 2, replace=False)
        gone = [int(i) for i in ids if int(i) not in self.deleted][:half]
        self.deleted.update(gone)
        gone_arr = np.array(gone, dtype=np.int64)
        minus = pd.DataFrame({"k": gone_arr % self.keys, "v": (gone_arr * 7919) % 1000,
                              "w": np.full(len(gone_arr), -1, dtype=np.int64)})
        plus = pd.DataFrame({"k": self.rng.integers(0, self.keys, half, dtype=np.int64),
                             "v": self.rng.integers(0, 1000, half, dtype=np.int64),
                             "w": np.ones(half, dtype=np.int64)})
        return pd.concat([plus, minus], ignore_index=True)


def run_incremental(spark: SparkSession, base: DataFrame, reducer: Any, rows: int, keys: int,
                    batch: int, batches: int, label: str, validate: bool = True) -> Series:
    engine = IncrementalReduce(spark, reducer, "bigint", "bigint")
    load = Series(f"{label}: load")
    load.time(lambda: engine.load(base, rows))
    print("  " + load.line(), flush=True)
    series = Series(f"{label}: per batch")
    work = Workload(rows, keys, batch)
    for _ in range(batches):
        delta = spark.createDataFrame(work.next_batch())
        series.time(lambda d=delta: engine.apply(d, batch, validate=validate))
    print("  " + series.line(), flush=True)
    return series


def run_recompute(spark: SparkSession, base: DataFrame, repeats: int) -> Series:
    series = Series("native recompute (groupBy + materialise)")
    for _ in range(repeats):
        series.time(lambda: materialise(base.groupBy("k").agg(
            F.sum(F.col("v") * F.col("w")).alias("a0"), F.sum("w").alias("a1"))))
    print("  " + series.line(), flush=True)
    return series


def run(spark: SparkSession, rows: int, keys: int, batch: int, batches: int,
        python: bool = True) -> dict[str, float]:
    print(f"reduce: rows={rows:,} keys={keys:,} batch={batch:,} batches={batches}", flush=True)
    base = collection(spark, rows, keys)
    recompute = run_recompute(spark, base, max(3, batches // 2))
    builtin = run_incremental(spark, base, SUM_COUNT, rows, keys, batch, batches, "incremental built-in")
    out = {"rows": rows, "recompute_median_s": recompute.median,
           "builtin_batch_median_s": builtin.median, "builtin_speedup": ratio(recompute, builtin)}
    print(f"  ratio recompute / incremental built-in: {out['builtin_speedup']:.1f}x", flush=True)
    if python:
        custom = run_incremental(spark, base, _python_sum_count(), rows, keys, batch, batches,
                                 "incremental Python reducer")
        out["python_batch_median_s"] = custom.median
        out["python_over_builtin"] = custom.median / builtin.median
        print(f"  ratio Python reducer / built-in per batch: {out['python_over_builtin']:.2f}", flush=True)
    base.unpersist()
    return out
