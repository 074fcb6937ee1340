"""The cost of an engine's n-th small update: does it grow with the updates made before it?

    python -m benchmarks.update_series_bench [--updates 40] [--versions 16] [--window 5]
                                             [--out benchmarks/results/update-series.json]

An engine keeps state from update to update; whatever it keeps as a union of
earlier frames (an overlay of changes, a trace of pieces) must not make later
updates slower than earlier ones on the same data. Two series, on one
SparkSession (``local[2]``), each update's result checked:

* ``fixpoint``: the reachability engine on a chain of 30 nodes below root 0,
  each node also reached by a node nothing reaches (so no segment crosses the
  chain); ``--updates`` one-edge updates alternately remove and put back the
  edge ``(0, 1)`` (the chain dies, then comes back: 30 nodes removed, then
  added, every time). The stored data are the same at every odd update and at
  every even one, so only the updates made before can change the cost.
  Baseline: ``make`` of a fresh engine over the same roots and edges (a
  recompute that also writes the state), at each window.
* ``zset``: the Z-set dataflow running reachability as a loop
  (``iterate(distinct(roots + succ(X)))``) over a chain of 8 nodes;
  ``--versions`` versions alternately remove and put back the edge
  ``(0, 1)``. Baseline: a fresh dataflow fed the same edges in one version.

Printed per window of ``--window`` updates (the first, the middle and the last):
the median seconds of an update, the most tasks any stage of those updates
ran, the Spark jobs per update, and the baseline's median seconds over the same
stored data with the ratio baseline/update. An engine whose kept frames grow
shows medians and tasks rising from window to window.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import partial
from typing import Any

from benchmarks.measure import load_average, machine

CHAIN = 30
ZSET_CHAIN = 8


@dataclass(frozen=True)
class Window:
    """Updates ``first``..``last`` (1-based) of a series."""

    engine: str
    first: int
    last: int
    median_s: float
    max_tasks_per_stage: int
    jobs_per_update: float
    baseline_s: float
    baseline_per_update: float


class JobProbe:
    """The Spark jobs run by a callable, and the most tasks any of their stages ran."""

    def __init__(self, spark: Any) -> None:
        self.tracker = spark.sparkContext.statusTracker()

    def _jobs(self) -> set[int]:
        return set(self.tracker.getJobIdsForGroup(None))

    def run(self, fn: Callable[[], Any]) -> tuple[float, int, int, Any]:
        """Seconds, jobs, most tasks in a stage, and ``fn``'s result."""
        before = self._jobs()
        start = time.perf_counter()
        out = fn()
        seconds = time.perf_counter() - start
        new = self._jobs() - before
        tasks = [stage.numTasks for job in new for sid in self.tracker.getJobInfo(job).stageIds
                 if (stage := self.tracker.getStageInfo(sid)) is not None]
        return seconds, len(new), max(tasks, default=0), out


def windows_of(n: int, width: int) -> list[tuple[int, int]]:
    """The first, middle and last ``width`` updates of ``n`` (1-based, inclusive)."""
    middle = (n - width) // 2 + 1
    return sorted({(1, width), (middle, middle + width - 1), (n - width + 1, n)})


def chain_edges(length: int, dangling: bool) -> list[tuple[int, int]]:
    """``0 -> 1 -> .. -> length``; with ``dangling``, also ``100 + i -> i`` for each node
    (a node nothing reaches: the chain's nodes have two in-edges, so no segment)."""
    edges = [(i, i + 1) for i in range(length)]
    return edges + ([(100 + i, i) for i in range(1, length + 1)] if dangling else [])


def fixpoint_series(spark: Any, updates: int, width: int) -> list[Window]:
    from spark_impl.fixpoint.reachability import IncrementalReachability

    probe = JobProbe(spark)
    edges = chain_edges(CHAIN, dangling=True)
    roots_df = spark.createDataFrame([(0,)], "node bigint")

    def fresh() -> Any:
        engine = IncrementalReachability(spark, "bigint")
        engine.make(roots_df, spark.createDataFrame(edges, "src bigint, dst bigint"))
        return engine

    engine = fresh()
    runs = []
    for i in range(1, updates + 1):
        cut = i % 2 == 1
        change: dict[str, list[tuple[int, int]]] = {"remove_edges" if cut else "add_edges": [(0, 1)]}
        seconds, jobs, tasks, delta = probe.run(partial(engine.apply, **change))
        want = (0, CHAIN) if cut else (CHAIN, 0)
        if (delta.added_count, delta.removed_count) != want:
            raise AssertionError(f"update {i}: added/removed {delta.added_count, delta.removed_count}, not {want}")
        runs.append((seconds, jobs, tasks))
    return _windows("fixpoint", runs, width, probe, fresh)


REACH_LOOP: dict[str, Any] = {"inputs": ["edges", "roots"], "output": {
    "op": "iterate", "var": "x", "seed": {"op": "input", "name": "roots"}, "body": {"op": "distinct", "arg": {
        "op": "plus", "left": {"op": "input", "name": "roots"}, "right": {"op": "map", "fn": "snd", "arg": {
            "op": "map", "fn": "snd", "arg": {"op": "join", "left": {
                "op": "map", "fn": "dup", "arg": {"op": "var", "name": "x"}},
                "right": {"op": "input", "name": "edges"}}}}}}}}


def zset_series(spark: Any, versions: int, width: int) -> list[Window]:
    from spark_impl.protocol.zset import SparkZSetEngine

    probe = JobProbe(spark)
    edges = [((u, v), 1) for u, v in chain_edges(ZSET_CHAIN, dangling=False)]
    first_version: dict[str, list[tuple[Any, int]]] = {"roots": [(0, 1)], "edges": list(edges)}

    def fresh() -> Any:
        engine = SparkZSetEngine(spark)
        engine.build(REACH_LOOP)
        out = engine.step(first_version)
        if len(out) != ZSET_CHAIN + 1:
            raise AssertionError(f"a fresh loop derived {len(out)} nodes, not {ZSET_CHAIN + 1}")
        return engine

    engine = fresh()
    runs = []
    for i in range(1, versions + 1):
        weight = -1 if i % 2 == 1 else 1
        seconds, jobs, tasks, out = probe.run(partial(engine.step, {"edges": [((0, 1), weight)]}))
        if sorted(out) != [(n, weight) for n in range(1, ZSET_CHAIN + 1)]:
            raise AssertionError(f"version {i}: {out}")
        runs.append((seconds, jobs, tasks))
    return _windows("zset", runs, width, probe, fresh)


def _windows(engine: str, runs: list[tuple[float, int, int]], width: int, probe: JobProbe,
             fresh: Callable[[], Any]) -> list[Window]:
    """The series' windows, each with the median of three recomputes (``fresh``), taken after the series."""
    out = []
    for first, last in windows_of(len(runs), width):
        baseline = statistics.median(probe.run(fresh)[0] for _ in range(3))
        out.append(_window(engine, first, last, runs, baseline))
    return out


def _window(engine: str, first: int, last: int, runs: list[tuple[float, int, int]], baseline: float) -> Window:
    chosen = runs[first - 1:last]
    median = statistics.median(s for s, _, _ in chosen)
    return Window(engine, first, last, median, max(t for _, _, t in chosen),
                  statistics.mean(j for _, j, _ in chosen), baseline, baseline / median)


def markdown(rows: list[Window]) -> str:
    lines = ["| engine | updates | median s | most tasks in a stage | jobs per update | baseline s | baseline / update |",
             "|---|---|---|---|---|---|---|"]
    lines += [f"| {w.engine} | {w.first}–{w.last} | {w.median_s:.2f} | {w.max_tasks_per_stage} | "
              f"{w.jobs_per_update:.1f} | {w.baseline_s:.2f} | {w.baseline_per_update:.2f} |" for w in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.update_series_bench", description=__doc__.split("\n")[0])
    parser.add_argument("--updates", type=int, default=40, help="fixpoint updates (default 40)")
    parser.add_argument("--versions", type=int, default=16, help="Z-set versions (default 16)")
    parser.add_argument("--window", type=int, default=5, help="updates per reported window (default 5)")
    parser.add_argument("--out", help="write the rows, parameters and machine as JSON")
    args = parser.parse_args(argv)
    if min(args.updates, args.versions) < args.window or args.window < 1:
        parser.error("--updates and --versions must be at least --window, which is at least 1")
    from spark_impl.session import build_session

    spark = build_session(app_name="update-series-bench")
    load_before = load_average()
    rows = fixpoint_series(spark, args.updates, args.window)
    print(markdown(rows), flush=True)
    rows += zset_series(spark, args.versions, args.window)
    print(markdown(rows[len(rows) - len(windows_of(args.versions, args.window)):]), flush=True)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as out:
            json.dump({"benchmark": "update_series_bench", "params": vars(args), "rows": [asdict(r) for r in rows],
                       "machine": machine(), "load_average": {"before": load_before, "after": load_average()}},
                      out, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
