"""The ``reduce`` area: :class:`conformance.protocols.ReduceEngine` on Spark.

Each case runs the production path: a maintained view
(:mod:`spark_impl.reduce_view`) over a streaming source, one micro-batch per
step (:class:`~spark_impl.view_runner.ViewRunner`), state in the state store.
A ``load`` replaces the collection, so it starts a fresh stream whose first
micro-batch is the collection. Keys travel as canonical JSON text; values as
integers (``decimal(38,0)``) for the numeric reducers, else as JSON text. The
adapter collects one step's changes and the (small) view: what an observation
needs, nothing more.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from pyspark.sql import DataFrame, SparkSession

from conformance.protocols import EngineError, ReduceObservation, Value
from spark_impl.errors import SparkEngineError
from spark_impl.named_reducers import named_reducer, numeric_values
from spark_impl.reduce_view import JSON_TEXT, InvalidDelta
from spark_impl.reducers import GroupReducer, OrderReducer, PythonReducer, SparkReducer
from spark_impl.values import decode, encode
from spark_impl.view_runner import ViewRunner

INTEGER = "decimal(38,0)"


def _integer(value: Any) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int):
        raise EngineError("malformed-input", f"expected an integer value, got {value!r}")
    return Decimal(value)


def _plain(value: Any) -> Any:
    """A Spark result as a JSON value (integral decimals become ints)."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, list | tuple):
        return tuple(_plain(v) for v in value)
    return value


class SparkReduceEngine:
    """One case's reduce engine: declare, then load/apply, each step a micro-batch."""

    def __init__(self, spark: SparkSession) -> None:
        self.spark = spark
        self.reducer: SparkReducer | None = None
        self.runner: ViewRunner | None = None
        self.view: dict[Value, Value] = {}
        self._changes: dict[Value, Value | None] = {}

    def declare(self, reducer: str, params: Mapping[str, Value]) -> None:
        try:
            self.reducer = named_reducer(reducer, params)
        except SparkEngineError as error:
            raise EngineError(error.error_class, error.message) from None

    # --- the runner ----------------------------------------------------------------

    def _types(self) -> tuple[str, str]:
        """The value type the view reads, and the type of the stored value column."""
        r = self._reducer()
        if numeric_values(r):
            return INTEGER, INTEGER
        return ("string", "string") if isinstance(r, GroupReducer) else (JSON_TEXT, "string")

    def _reducer(self) -> SparkReducer:
        if self.reducer is None:
            raise EngineError("malformed-input", "no reducer declared")
        return self.reducer

    def _fresh_runner(self) -> ViewRunner:
        if self.runner is not None:
            self.runner.stop()
        value_type, column_type = self._types()
        root = "file://" + tempfile.mkdtemp(prefix="incspec-reduce-case-")
        self.runner = ViewRunner(self.spark, self._reducer(), "string", value_type, root,
                                 self._collect, value_column_type=column_type, with_work=True)
        self.view = {}
        return self.runner

    def _collect(self, changes: DataFrame, batch_id: int) -> None:
        self._changes = {decode(row["key"]): self._accumulator(row["accumulator"])
                         if row["present"] else None for row in changes.collect()}

    def _accumulator(self, value: Any) -> Any:
        r = self._reducer()
        if isinstance(r, PythonReducer) or (isinstance(r, OrderReducer) and not numeric_values(r)):
            return decode(value)
        return _plain(value)

    # --- the protocol ------------------------------------------------------------------

    def _rows(self, collection: Mapping[Value, Sequence[Value]], sign: int) -> list[tuple[Any, ...]]:
        if not isinstance(collection, Mapping):
            raise EngineError("malformed-input", f"expected a mapping, got {collection!r}")
        numeric = numeric_values(self._reducer())
        counts: dict[tuple[str, Any], int] = {}
        for k, values in collection.items():
            for v in values:
                cell = (encode(k), _integer(v) if numeric else encode(v))
                counts[cell] = counts.get(cell, 0) + 1
        return [(k, v, sign * n) for (k, v), n in counts.items()]

    def _step(self, runner: ViewRunner, rows: list[tuple[Any, ...]]) -> ReduceObservation:
        self._changes = {}
        runner.work = {}
        frame = self.spark.createDataFrame(rows, runner.schema)
        try:
            runner.step(frame)
        except InvalidDelta as refused:  # said with the suite's key and value, not their text
            stored = refused.value  # a typed value, or the canonical JSON text of one
            value = decode(stored) if isinstance(stored, str) else _plain(stored)
            again = InvalidDelta(decode(refused.key), value, refused.available, refused.removed)
            raise EngineError("invalid-delta", again.message) from None
        except SparkEngineError as error:
            raise EngineError(error.error_class, error.message) from None
        self.view = {decode(row["key"]): self._accumulator(row["accumulator"])
                     for row in runner.read_view().collect()}
        return ReduceObservation(view=dict(self.view), changes=dict(self._changes),
                                 work=dict(runner.work))

    def load(self, collection: Mapping[Value, Sequence[Value]]) -> ReduceObservation:
        rows = self._rows(collection, 1)
        old = dict(self.view)
        observation = self._step(self._fresh_runner(), rows)
        changes: dict[Value, Value | None] = {
            k: v for k, v in observation.view.items() if old.get(k, _ABSENT) != v}
        changes.update({k: None for k in old if k not in observation.view})
        work = {"reducer_calls": sum(w for *_, w in rows)}
        return ReduceObservation(view=observation.view, changes=changes, work=work)

    def apply(self, plus: Mapping[Value, Sequence[Value]],
              minus: Mapping[Value, Sequence[Value]]) -> ReduceObservation:
        runner = self.runner if self.runner is not None else self._fresh_runner()
        return self._step(runner, self._rows(plus, 1) + self._rows(minus, -1))

    def close(self) -> None:
        if self.runner is not None:
            self.runner.stop()


_ABSENT = object()
