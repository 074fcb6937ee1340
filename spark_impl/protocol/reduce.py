"""The ``reduce`` area: :class:`conformance.protocols.ReduceEngine` on Spark.

Keys travel as canonical JSON text; values as integers (``decimal(38,0)``) for
the numeric reducers, else as JSON text (see :mod:`spark_impl.named_reducers`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from pyspark.sql import DataFrame, SparkSession

from conformance.protocols import EngineError, ReduceObservation, Value
from spark_impl.named_reducers import named_reducer, numeric_values
from spark_impl.protocol import speaks_suite_errors, view_changes
from spark_impl.reduce_engine import IncrementalReduce, InvalidDelta
from spark_impl.reducers import GroupReducer, OrderReducer, SparkReducer
from spark_impl.values import decode, encode


def _integer(value: Any) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int):
        raise EngineError("malformed-input", f"expected an integer value, got {value!r}")
    return Decimal(value)


def _plain(value: Any) -> Any:
    """A Spark result as a JSON value (integral decimals become ints)."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


@speaks_suite_errors
class SparkReduceEngine:
    """One case's reduce engine: declare, load, apply, each observed from Spark."""

    def __init__(self, spark: SparkSession) -> None:
        self.spark = spark
        self.engine: IncrementalReduce | None = None
        self.reducer: SparkReducer | None = None

    def declare(self, reducer: str, params: Mapping[str, Value]) -> None:
        self.reducer = named_reducer(reducer, params)
        value_type = None if numeric_values(self.reducer) else "string"
        self.engine = IncrementalReduce(self.spark, self.reducer, "string", value_type)

    def _engine(self) -> IncrementalReduce:
        if self.engine is None:
            raise EngineError("malformed-input", "no reducer declared")
        return self.engine

    def rows(self, collection: Mapping[Value, Sequence[Value]], sign: int) -> list[tuple[Any, ...]]:
        assert self.reducer is not None
        if not isinstance(collection, Mapping):
            raise EngineError("malformed-input", f"expected a mapping, got {collection!r}")
        counts: dict[tuple[str, Any], int] = {}
        numeric = numeric_values(self.reducer)
        for k, values in collection.items():
            for v in values:
                cell = (encode(k), _integer(v) if numeric else encode(v))
                counts[cell] = counts.get(cell, 0) + 1
        return [(k, v, sign * n) for (k, v), n in counts.items()]

    def frame(self, rows: list[tuple[Any, ...]]) -> DataFrame:
        engine = self._engine()
        return self.spark.createDataFrame(rows, f"k string, v {engine.value_type}, w bigint")

    def accumulator(self, columns: tuple[Any, ...]) -> Any:
        r = self.reducer
        if isinstance(r, GroupReducer):
            return r.to_python(tuple(_plain(c) for c in columns))
        if isinstance(r, OrderReducer):
            return _plain(columns[0])
        return decode(columns[0])

    def _view(self) -> dict[Value, Value]:
        return {decode(k): self.accumulator(entry[:-1])
                for k, entry in self._engine().view_rows().items()}

    def load(self, collection: Mapping[Value, Sequence[Value]]) -> ReduceObservation:
        engine = self._engine()
        old = self._view()
        rows = self.rows(collection, 1)
        engine.load(self.frame(rows), len(rows), sum(w for *_, w in rows))
        new = self._view()
        return ReduceObservation(view=new, changes=view_changes(old, new), work=dict(engine.work))

    def apply(self, plus: Mapping[Value, Sequence[Value]],
              minus: Mapping[Value, Sequence[Value]]) -> ReduceObservation:
        engine = self._engine()
        rows = self.rows(plus, 1) + self.rows(minus, -1)
        try:
            changes = engine.apply(self.frame(rows), len(rows))
        except InvalidDelta as exc:
            value = exc.value if isinstance(exc.value, Decimal) else decode(exc.value)
            raise InvalidDelta(decode(exc.key), _plain(value), exc.available, exc.removed) from None
        changed = {decode(c.key): self.accumulator(c.accumulator) if c.present else None
                   for c in changes}
        return ReduceObservation(view=self._view(), changes=changed, work=dict(engine.work))
