"""A group reducer's view that chooses, batch by batch, where its state is held (SKIP-DEC-SPARK-BULK).

The stream path (:class:`~spark_impl.reduce.view_runner.ViewRunner`: the state store, point
updates) costs about 0.45 s a step plus ~12 µs a change (``fast-commits-2m.json``: 0.45 s at 10^2
changes, 1.9 s at 10^5, 11 s at 10^6); the bulk path
(:class:`~spark_impl.reduce.bulk_view.BulkViewRunner`: tables merged in bulk) 0.9 s plus
~0.05 µs a stored row plus ~2 µs a change (2 cores, 2·10^6 stored rows: about 1.0 s at 10^4
changes, 1.15 s at 10^5, 2.4-3.7 s at 10^6 as a step writes a run or merges; docs/performance.md,
``bulk-copies-2m.json``). So small batches over a large state
belong on the stream path, large batches (and a first load) on the bulk path. Moving the
state between them costs a pass over it: about 7 µs a stored row to the tables (the state
store read), 13 µs back (the live groups re-stated into the state store).

:class:`AdaptiveViewRunner` holds both runners and the view on one of them at a time. Before
each step its :class:`CostModel` prices the batch on both paths from the batch's changes and
the rows stored; the :class:`SkiRental` policy moves the state only once what staying has
cost over moving (the regret, summed over the batches the other path would have taken for
less) reaches the price of the move: the rule of ski rental, so the view never pays for a
move more than staying had already cost it since the last one. Each path's prices are scaled
by the measured over the priced times of its recent steps, so they follow the machine; a
:class:`CostModel` of other figures may be given.

A move needs the stream view's every generation read into its state and nothing planned
(:meth:`~spark_impl.reduce.view_runner.ViewRunner.restatable`); until then the view stays
where it is. Which path holds the view, the rows stored, the regret and the scales are kept in
``ROOT/adaptive-NNNNNN.json`` (the newest, written aside and renamed) after each step and
move, so a runner
built again on the same ``ROOT`` resumes from the same path.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from spark_impl.errors import SparkEngineError
from spark_impl.reduce.bulk_view import BulkViewRunner, ReducePath
from spark_impl.reduce.maintained_view import Refused
from spark_impl.reduce.reducer_kinds import GroupReducer, SparkReducer, builtin_reducer
from spark_impl.reduce.view_runner import Retry, Sink, ViewRunner
from spark_impl.storage.files import file_system


@dataclass(frozen=True)
class CostModel:
    """Seconds a step takes on each path, and a move of the state to a path, linear in the
    batch's changes and the rows stored. The defaults are fitted to medians measured on 2
    cores over 2·10^6 and 10^7 stored rows (docs/performance.md)."""

    stream_fixed: float = 0.45
    stream_per_change: float = 12e-6
    bulk_fixed: float = 0.9
    bulk_per_stored: float = 0.05e-6
    bulk_per_change: float = 2.0e-6
    to_bulk_per_stored: float = 7e-6
    to_stream_per_stored: float = 13e-6

    def step(self, path: ReducePath, changes: int, stored: int) -> float:
        if path == "stream":
            return self.stream_fixed + self.stream_per_change * changes
        return self.bulk_fixed + self.bulk_per_stored * stored + self.bulk_per_change * changes

    def move(self, to: ReducePath, stored: int) -> float:
        return (self.to_bulk_per_stored if to == "bulk" else self.to_stream_per_stored) * stored


@dataclass
class SkiRental:
    """Move when the regret (what staying cost over moving, batch by batch) reaches the
    move's price; a move starts the regret afresh. A step's price is the model's times the
    path's *scale*: the measured over the priced time of its recent steps (each step moves it
    halfway to its own ratio), so the prices follow the machine the view runs on; with
    ``calibrated`` off they are the model's alone."""

    model: CostModel
    regret: float = 0.0
    calibrated: bool = True
    scale: dict[str, float] = field(default_factory=lambda: {"stream": 1.0, "bulk": 1.0})

    def price(self, path: ReducePath, changes: int, stored: int) -> float:
        return self.model.step(path, changes, stored) * self.scale[path]

    def choose(self, here: ReducePath, changes: int, stored: int) -> ReducePath:
        there: ReducePath = "bulk" if here == "stream" else "stream"
        saved = self.price(here, changes, stored) - self.price(there, changes, stored)
        if saved <= 0:
            return here
        self.regret += saved
        return there if self.regret >= self.model.move(there, stored) else here

    def measured(self, path: ReducePath, changes: int, stored: int, seconds: float) -> None:
        """A step on ``path`` took ``seconds``: the path's scale moves halfway to the ratio."""
        priced = self.model.step(path, changes, stored)
        if self.calibrated and priced > 0:
            self.scale[path] = (self.scale[path] + seconds / priced) / 2


class AdaptiveViewRunner:
    """A group reducer's view on the stream or the bulk path, chosen per batch (module docstring)."""

    def __init__(self, spark: SparkSession, reducer: str | SparkReducer, key_type: str,
                 value_type: str, root: str, sink: Sink, *, model: CostModel | None = None,
                 calibrated: bool = True, **options: Any) -> None:
        """As :class:`~spark_impl.reduce.view_runner.ViewRunner` (``options`` go to both
        runners); ``model``: the prices of steps and moves (default: this machine's),
        ``calibrated``: scaled by the steps' measured times (:class:`SkiRental`)."""
        r = builtin_reducer(reducer, value_type) if isinstance(reducer, str) else reducer
        if not isinstance(r, GroupReducer):
            raise SparkEngineError("unsupported", (
                f"incspec: only group reducers (sum, count, vectors of sums) have two paths, not {r.name!r}"))
        self.spark, self.root = spark, root.rstrip("/")
        self.fs = file_system(spark, self.root)
        self.stream = ViewRunner(spark, r, key_type, value_type, f"{self.root}/stream", sink, **options)
        self.bulk = BulkViewRunner(spark, r, key_type, value_type, f"{self.root}/bulk", sink, **options)
        self.schema = self.stream.schema
        self.policy = SkiRental(model or CostModel(), calibrated=calibrated)
        self.path: ReducePath = "stream"
        #: rows stored: exact after a bulk step or a move to it (its pairs' rows), else that
        #: plus the net weight of the stream steps since (an estimate)
        self.stored = 0
        #: the moves made, in order (for the caller's report)
        self.moves: list[ReducePath] = []
        #: the next stream step reads the groups a move re-stated (priced with the move)
        self._reloading = False
        self._resume()

    # --- the record of where the view is -------------------------------------------------------

    def _records(self) -> list[int]:
        return sorted(int(name[9:-5]) for name in self.fs.names(self.root)
                      if name.startswith("adaptive-") and name.endswith(".json") and name[9:-5].isdigit())

    def _resume(self) -> None:
        records = self._records()
        if records:
            text = self.fs.read_text(f"{self.root}/adaptive-{records[-1]:06d}.json")
            assert text is not None, f"{self.root}: record {records[-1]} listed but unreadable"
            facts = json.loads(text)
            self.path, self.stored = facts["path"], int(facts["stored"])
            self.policy.regret = float(facts["regret"])
            self.policy.scale.update({path: float(x) for path, x in facts.get("scale", {}).items()})

    def _keep(self) -> None:
        """Record the path, rows stored and regret as a new numbered file (written aside,
        renamed into place: the newest is the record), then delete the older ones."""
        records = self._records()
        number = (records[-1] if records else 0) + 1
        self.fs.write_text(f"{self.root}/adaptive-{number:06d}.json",
                           json.dumps({"path": self.path, "stored": self.stored, "regret": self.policy.regret,
                                       "scale": self.policy.scale}, sort_keys=True))
        for older in records:
            self.fs.delete(f"{self.root}/adaptive-{older:06d}.json")

    # --- stepping ------------------------------------------------------------------------

    @property
    def runner(self) -> ViewRunner | BulkViewRunner:
        """The runner holding the view now."""
        return self.stream if self.path == "stream" else self.bulk

    def step(self, rows: DataFrame, retry: Retry | None = None) -> None:
        """One batch of ``k, v, w`` rows, on the path the policy chooses for it."""
        changes, net = _counted(rows)
        self._choose(changes)
        self._stepped(lambda: self.runner.step(rows, retry), changes, net)

    def step_folder(self, folder: str) -> None:
        """:meth:`step` over a batch already written as Parquet ``k, v, w`` files in ``folder``."""
        changes, net = _counted(self.spark.read.schema(self.schema).parquet(folder))
        self._choose(changes)
        self._stepped(lambda: self.runner.step_folder(folder), changes, net)

    def _stepped(self, run: Callable[[], None], changes: int, net: int) -> None:
        began = time.perf_counter()
        try:
            run()
        except Refused:
            self._keep()  # the regret the refused batch added stays
            raise
        if self._reloading:  # this step read the state moved in: no measure of a step
            self._reloading = False
        else:
            self.policy.measured(self.path, changes, self.stored, time.perf_counter() - began)
        if self.path == "bulk":
            version = self.bulk.version
            self.stored = version.base_rows + version.run_rows
        else:
            self.stored = max(0, self.stored + net)
        self._keep()

    def _choose(self, changes: int) -> None:
        """Move the view first if the policy says so and the stream view can be re-stated
        (else it stays, its regret kept: the step reads the stream view's last generation)."""
        wanted = self.policy.choose(self.path, changes, self.stored)
        if wanted != self.path and self.stream.restatable():
            self._move(wanted)

    def _move(self, to: ReducePath) -> None:
        """The view's state moved to ``to``'s runner, the regret started afresh."""
        if to == "bulk":
            self.stream.stop()
            live = self.stream.view.live_groups(self.spark, f"{self.stream.root}/checkpoint") \
                if self.stream.committed() else None
            self.bulk.seed(live)
            self.stored = self.bulk.version.base_rows
        else:
            self.stream.restate(self.bulk.live_groups())
            self._reloading = True
        self.path, self.policy.regret = to, 0.0
        self.moves.append(to)
        self._keep()

    # --- as a runner ---------------------------------------------------------------------

    @property
    def work(self) -> dict[object, dict[str, int]]:
        return self.runner.work

    @work.setter
    def work(self, value: dict[object, dict[str, int]]) -> None:
        self.runner.work = value

    @property
    def refusal(self) -> Refused | None:
        return self.runner.refusal

    @property
    def progress(self) -> dict[str, Any] | None:
        return self.runner.progress

    def committed(self) -> bool:
        return self.runner.committed()

    def read_view(self) -> DataFrame:
        return self.runner.read_view()

    def stored_sizes(self) -> dict[str, int]:
        return self.runner.stored_sizes()

    def stop(self) -> None:
        self.stream.stop()
        self.bulk.stop()



def _counted(rows: DataFrame) -> tuple[int, int]:
    """A batch's changes (rows) and net weight, in one small job."""
    counted = rows.agg(F.count(F.lit(1)).alias("changes"), F.sum("w").alias("net")).first()
    assert counted is not None
    return int(counted["changes"]), int(counted["net"] or 0)
