"""A refused micro-batch whose state version was snapshotted before the refusal.

Run as a script (its own Spark application: the state store's maintenance interval
is fixed when the first stateful query of an application starts). Settings that
make the hazard certain rather than rare: a snapshot at every version while the
refused batch runs, none once it is undone (so the undo writes a changelog only),
maintenance every 100 ms, and the undo waits until the refused version's snapshot
is in the checkpoint. Prints one JSON object: the views after each step and
whether that snapshot was seen.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from spark_impl.reduce.maintained_view import InvalidDelta
from spark_impl.reduce.view_runner import ViewRunner
from spark_impl.session import build_session

SNAPSHOT_EVERY = "spark.sql.streaming.stateStore.minDeltasForSnapshot"

#: (removed, added) per step; step 2 removes a value key "c" does not hold
STEPS: list[tuple[list[tuple[str, int]], list[tuple[str, int]]]] = [
    ([], [("a", 4), ("b", 1), ("b", 6), ("b", 5), ("c", 6), ("c", 2), ("c", 1)]),
    ([], [("c", 3)]),
    ([("b", 1), ("b", 6), ("c", 99)], []),
    ([("a", 4)], [("a", 5)]),
]
REFUSED_STEP = 2


def snapshots_of(state: Path, version: int) -> list[Path]:
    """The snapshot files of ``version`` (``N.zip``, or ``N_<id>.zip`` with unique ids)."""
    return [p for p in state.glob("*/*/*.zip") if p.stem.split("_")[0] == str(version)]


class WaitingRunner(ViewRunner):
    """Undoes a refused batch only once the refused version's snapshot is stored."""

    seen = False

    def _skip(self, target: str) -> None:
        state = Path(self.root.removeprefix("file://")) / "checkpoint" / "state"
        deadline = time.monotonic() + 300  # the wait ends once the snapshot is there: a busy machine may take minutes
        while not snapshots_of(state, REFUSED_STEP + 1) and time.monotonic() < deadline:
            time.sleep(0.1)
        WaitingRunner.seen = bool(snapshots_of(state, REFUSED_STEP + 1))
        self.spark.conf.set(SNAPSHOT_EVERY, "1000")
        super()._skip(target)


def main() -> None:
    spark = build_session(app_name="incspec-refusal-snapshot", conf={
        SNAPSHOT_EVERY: "1", "spark.sql.streaming.stateStore.maintenanceInterval": "100ms"})
    root = "file://" + tempfile.mkdtemp(prefix="incspec-refusal-snapshot-")
    runner = WaitingRunner(spark, "sum", "string", "bigint", root,
                           lambda changes, _: changes.write.format("noop").mode("overwrite").save())
    views: list[dict[str, int]] = []
    outcomes: list[str] = []
    for removed, added in STEPS:
        rows: list[Any] = [(k, v, -1) for k, v in removed] + [(k, v, 1) for k, v in added]
        try:
            runner.step(spark.createDataFrame(rows, runner.schema))
            outcomes.append("applied")
        except InvalidDelta:
            outcomes.append("refused")
        views.append({r["key"]: int(r["accumulator"]) for r in runner.read_view().collect()})
    runner.stop()
    spark.stop()
    json.dump({"outcomes": outcomes, "views": views, "snapshot_seen": WaitingRunner.seen}, sys.stdout)


if __name__ == "__main__":
    main()
