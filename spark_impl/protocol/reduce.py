"""The ``reduce`` area: :class:`conformance.protocols.ReduceEngine` on Spark.

Each case runs the production path: a maintained view
(:mod:`spark_impl.reduce.maintained_view`) over a streaming source, one micro-batch per
step (:class:`~spark_impl.reduce.view_runner.ViewRunner`), state in the state store; or,
on the bulk path (``path="bulk"``), one table merge per step
(:class:`~spark_impl.reduce.bulk_view.BulkViewRunner`); or, for a group reducer, either,
chosen per step (``path="adaptive"``, :class:`~spark_impl.reduce.adaptive_view.AdaptiveViewRunner`).
A ``load`` replaces the collection, so it starts a fresh stream whose first
micro-batch is the collection. Keys travel as canonical JSON text; values as
integers (``decimal(38,0)``) for the numeric reducers, else as JSON text. The
adapter collects one step's changes and the (small) view: what an observation
needs, nothing more; asked for changes only (the feature ``changes-only``), an
``apply`` collects its changes alone.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any, Literal

from pyspark.sql import Column, DataFrame, SparkSession

from conformance.protocols import EngineError, ReduceObservation, Value
from spark_impl.driver_rows import frame_of_rows
from spark_impl.errors import SparkEngineError
from spark_impl.protocol import decode, encode, view_changes
from spark_impl.reduce.adaptive_view import AdaptiveViewRunner
from spark_impl.reduce.bulk_view import BulkViewRunner
from spark_impl.reduce.group_generations import COMPACTION_FLOOR
from spark_impl.reduce.maintained_view import JSON_TEXT, InvalidDelta
from spark_impl.reduce.reducer_kinds import GroupReducer, PythonReducer, SparkReducer
from spark_impl.reduce.suite_reducers import named_reducer, numeric_values
from spark_impl.reduce.view_runner import Sink, ViewRunner

INTEGER = "decimal(38,0)"
#: Where a view keeps its state: the state store (``stream``), tables merged in bulk
#: (``bulk``), or either, chosen batch by batch (``adaptive``: a group reducer's view; the
#: others keep theirs in the state store).
RunnerPath = Literal["stream", "bulk", "adaptive"]
Runner = ViewRunner | BulkViewRunner | AdaptiveViewRunner


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

    def __init__(self, spark: SparkSession, compaction_floor: int = COMPACTION_FLOOR,
                 path: RunnerPath = "stream") -> None:
        """``compaction_floor``: a group view's (:class:`~spark_impl.reduce.view_runner.ViewRunner`);
        ``path``: where a group reducer's state is held (:data:`RunnerPath`)."""
        self.spark, self.compaction_floor, self.path = spark, compaction_floor, path
        self.reducer: SparkReducer | None = None
        self.runner: Runner | None = None
        self.view: dict[Value, Value] = {}
        self._changes: dict[Value, Value | None] = {}
        self.only_changes = False  # observations without the view (the feature changes-only)

    def observe_changes_only(self) -> None:
        """Observations carry the changes only: an ``apply`` then keeps the driver's copy of
        the view by its changes instead of reading the whole view back from Spark."""
        self.only_changes = True

    def declare(self, reducer: str, params: Mapping[str, Value]) -> None:
        try:
            self.reducer = named_reducer(reducer, params)
        except SparkEngineError as error:
            raise EngineError(error.error_class, error.message) from None

    # --- shared with the lockstep engine -----------------------------------------------

    def _reducer(self) -> SparkReducer:
        if self.reducer is None:
            raise EngineError("malformed-input", "no reducer declared")
        return self.reducer

    def new_runner(self, sink: Sink, work_by: Column | None = None,
                   polling_delay: str | None = None) -> Runner:
        """A maintained view of the declared reducer over a fresh local folder
        (``polling_delay``: :class:`~spark_impl.reduce.view_runner.ViewRunner`'s), on the path
        the engine's :attr:`path` says (:data:`RunnerPath`)."""
        r = self._reducer()
        if numeric_values(r):
            value_type = column_type = INTEGER
        else:
            column_type = "string"
            value_type = "string" if isinstance(r, GroupReducer) else JSON_TEXT
        folder = tempfile.mkdtemp(prefix="incspec-reduce-case-")
        atexit.register(shutil.rmtree, folder, True)  # a case's stream lives as long as the run
        root = "file://" + folder
        if self.path == "bulk" or (self.path == "adaptive" and isinstance(r, GroupReducer)):
            runner = BulkViewRunner if self.path == "bulk" else AdaptiveViewRunner
            return runner(self.spark, r, "string", value_type, root, sink, value_column_type=column_type,
                          with_work=True, work_by=work_by, polling_delay=polling_delay,
                          compaction_floor=self.compaction_floor)
        return ViewRunner(self.spark, r, "string", value_type, root, sink,
                          value_column_type=column_type, with_work=True, work_by=work_by,
                          polling_delay=polling_delay, compaction_floor=self.compaction_floor)

    def accumulator(self, value: Any) -> Value:
        """An accumulator as Spark returns it, as a JSON value."""
        r = self._reducer()
        return decode(value) if isinstance(r, PythonReducer) else _plain(value)

    def rows(self, collection: Mapping[Value, Sequence[Value]], sign: int) -> list[tuple[Any, ...]]:
        """A collection (or one side of a delta) as consolidated ``(k, v, w)`` rows."""
        if not isinstance(collection, Mapping):
            raise EngineError("malformed-input", f"expected a mapping, got {collection!r}")
        numeric = numeric_values(self._reducer())
        counts: dict[tuple[str, Any], int] = {}
        for k, values in collection.items():
            for v in values:
                cell = (encode(k), _integer(v) if numeric else encode(v))
                counts[cell] = counts.get(cell, 0) + 1
        return [(k, v, sign * n) for (k, v), n in counts.items()]

    def step(self, runner: Runner, rows: list[tuple[Any, ...]]) -> None:
        """One micro-batch; a refusal raised as the suite's error, with the suite's key."""
        runner.work = {}
        try:
            runner.step(frame_of_rows(self.spark, rows, runner.schema))
        except InvalidDelta as refused:
            raise suite_refusal(refused) from None
        except SparkEngineError as error:
            raise EngineError(error.error_class, error.message) from None

    def read_view(self, runner: Runner) -> dict[Value, Value]:
        return {decode(row["key"]): self.accumulator(row["accumulator"])
                for row in runner.read_view().collect()}

    # --- the protocol -------------------------------------------------------------------

    def _collect(self, changes: DataFrame, batch_id: int) -> None:
        self._changes = {decode(row["key"]): self.accumulator(row["accumulator"])
                         if row["present"] else None for row in changes.collect()}

    def _observe(self, runner: Runner, rows: list[tuple[Any, ...]],
                 whole_view: bool = True) -> ReduceObservation:
        self._changes = {}
        self.step(runner, rows)
        if whole_view:
            self.view = self.read_view(runner)
        else:  # changes only: the view kept by the step's changes, O(|changes|)
            for k, accumulator in self._changes.items():
                if accumulator is None:
                    self.view.pop(k, None)
                else:
                    self.view[k] = accumulator
        return ReduceObservation(view=dict(self.view) if whole_view else {}, changes=dict(self._changes),
                                 work=dict(runner.work.get(None, {})))

    def load(self, collection: Mapping[Value, Sequence[Value]]) -> ReduceObservation:
        """A load replaces the collection: a fresh stream whose first micro-batch it is."""
        rows = self.rows(collection, 1)
        old = dict(self.view)
        self.close()
        self.runner = self.new_runner(self._collect)
        observation = self._observe(self.runner, rows)
        work = {"reducer_calls": sum(w for *_, w in rows)}
        return ReduceObservation(view=observation.view, changes=view_changes(old, observation.view),
                                 work=work)

    def apply(self, plus: Mapping[Value, Sequence[Value]],
              minus: Mapping[Value, Sequence[Value]]) -> ReduceObservation:
        if self.runner is None:
            self.runner = self.new_runner(self._collect)
        return self._observe(self.runner, self.rows(plus, 1) + self.rows(minus, -1),
                             whole_view=not self.only_changes)

    def close(self) -> None:
        if self.runner is not None:
            self.runner.stop()
            self.runner = None


def suite_refusal(refused: InvalidDelta) -> EngineError:
    """``invalid-delta``, said with the suite's key and value (not their stored text)."""
    stored = refused.value  # a typed value, or the canonical JSON text of one
    value = decode(stored) if isinstance(stored, str) else _plain(stored)
    again = InvalidDelta(decode(refused.key), value, refused.available, refused.removed)
    return EngineError("invalid-delta", again.message)
