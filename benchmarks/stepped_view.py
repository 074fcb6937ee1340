"""A maintained reduce view stepped one DataFrame at a time, as the benchmarks drive it.

The same engine as the pipeline (:mod:`spark_impl.reduce.maintained_view` driven by
:class:`~spark_impl.reduce.view_runner.ViewRunner`): each call is one micro-batch of the
streaming query, its changes computed and written to Spark's ``noop`` sink (so the
work is done, nothing is kept in the driver). ``load`` is simply the first batch;
``apply_folder`` takes a batch already written as Parquet (the benchmark stages every
engine's batches so, untimed).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from typing import Any, Protocol

from pyspark.sql import DataFrame, SparkSession

from spark_impl.reduce.reducer_kinds import SparkReducer
from spark_impl.reduce.view_runner import ViewRunner


class Stepped(Protocol):
    """What a stepped view's runner does (a :class:`ViewRunner`, a bulk runner)."""

    def step(self, rows: DataFrame) -> None: ...
    def step_folder(self, folder: str) -> None: ...
    def stored_sizes(self) -> dict[str, int]: ...
    def stop(self) -> None: ...


class SteppedView:
    """``load(df)`` / ``apply(delta)`` over ``k, v, w`` rows; ``stored_sizes()`` from the state."""

    def __init__(self, spark: SparkSession, reducer: SparkReducer, key_type: str, value_type: str,
                 root: str | None = None, runner: Callable[..., Stepped] = ViewRunner) -> None:
        """``runner``: the view runner stepped (another view, as the benchmark's native
        aggregation, :mod:`benchmarks.native_aggregation`)."""
        root = root or "file://" + tempfile.mkdtemp(prefix="incspec-view-")
        self.runner = runner(spark, reducer, key_type, value_type, root, self._sink)

    @staticmethod
    def _sink(changes: DataFrame, batch_id: int) -> None:
        changes.write.format("noop").mode("overwrite").save()

    def load(self, collection: DataFrame, rows: int | None = None, values: int | None = None) -> None:
        self.runner.step(collection.select("k", "v", "w"))

    def apply(self, delta: DataFrame, rows: int | None = None, **_: Any) -> None:
        self.runner.step(delta.select("k", "v", "w"))

    def apply_folder(self, folder: str) -> None:
        """Apply a batch already written as Parquet ``k, v, w`` files in ``folder`` (moved)."""
        self.runner.step_folder(folder)

    def stored_sizes(self) -> dict[str, int]:
        return self.runner.stored_sizes()

    def stop(self) -> None:
        self.runner.stop()
