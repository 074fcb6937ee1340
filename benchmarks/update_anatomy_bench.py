"""Where a small fixpoint update's time goes: Spark jobs, their stages and tasks, the time
spent inside jobs, and the driver's time between them (planning, Py4J, Python).

    python -m benchmarks.update_anatomy_bench [--sizes 30,300,3000] [--updates 8] [--out FILE]

Per size ``n``: a graph of ``n`` nodes and ``2n`` random edges (seeded), node 0 the root
with edges to nodes 1-3 that no update removes (so the live set does not die out), made
by the engine; then ``--warmups`` updates (default 2) and ``--updates`` measured ones, each adding
and removing one to three random edges. Every update's delta is checked against a
recomputation in Python (the live set before, the delta, the live set after); the engine's
stored edges and live nodes are counted at the end and checked against the generator's. Per update, from Spark's own status
store: the jobs it ran, their completed stages and tasks, the seconds between each job's
submission and completion (``in_jobs``), and the rest of the update's wall time
(``driver``: between jobs, before the first and after the last). Printed: the medians
per size. The conformance suite's and the tests' fixpoint cases are such updates, on
graphs of tens of nodes: this is the fixed cost issue 31 asks to bring down.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any

from benchmarks.measure import load_average, machine, write_results

Edge = tuple[int, int]


@dataclass(frozen=True)
class Anatomy:
    """One update: its wall time, and what Spark's status store recorded of its jobs."""

    wall_s: float
    jobs: int
    stages: int
    tasks: int
    in_jobs_s: float

    @property
    def driver_s(self) -> float:
        return self.wall_s - self.in_jobs_s


def jobs_since(spark: Any, since_ms: int) -> list[tuple[int, int, int, int]]:
    """``(submitted ms, completed ms, completed stages, completed tasks)`` of every job
    submitted at or after ``since_ms`` (Spark's status store; the UI need not run)."""
    store = spark.sparkContext._jsc.sc().statusStore()
    found = []
    jobs = store.jobsList(None).iterator()
    while jobs.hasNext():
        job = jobs.next()
        submitted, completed = job.submissionTime(), job.completionTime()
        if submitted.isEmpty() or submitted.get().getTime() < since_ms:
            continue
        if completed.isEmpty():
            raise RuntimeError(f"job {job.jobId()} had not completed when its update returned")
        found.append((submitted.get().getTime(), completed.get().getTime(), job.numCompletedStages(),
                      job.numCompletedTasks()))
    return found


def lfp(roots: set[int], edges: set[Edge]) -> set[int]:
    """The nodes reachable from ``roots`` (the check's recomputation)."""
    live, frontier = set(roots), list(roots)
    successors: dict[int, list[int]] = {}
    for u, v in edges:
        successors.setdefault(u, []).append(v)
    while frontier:
        for v in successors.get(frontier.pop(), ()):
            if v not in live:
                live.add(v)
                frontier.append(v)
    return live


def measure_size(spark: Any, n: int, updates: int, seed: int, warmups: int = 2
                 ) -> tuple[list[Anatomy], dict[str, int]]:
    """Make a graph of ``n`` nodes and ``2n`` edges, then time ``warmups + updates`` small
    updates (the warm-ups not kept), each checked; with the engine's stored sizes at the end."""
    from spark_impl.fixpoint.reachability import IncrementalReachability

    rng = random.Random(seed)
    # the root's own edges stay, so that updates keep reaching live nodes
    spine = {(0, i) for i in range(1, min(n, 4))}
    edges = spine | {(rng.randrange(n), rng.randrange(n)) for _ in range(2 * n)}
    engine = IncrementalReachability(spark, "bigint")
    engine.make(spark.createDataFrame([(0,)], "node bigint"),
                spark.createDataFrame(sorted(edges), "src bigint, dst bigint"))
    live = lfp({0}, edges)
    kept = []
    for i in range(warmups + updates):
        removable = sorted(edges - spine)
        removed = set(rng.sample(removable, min(len(removable), rng.randint(1, 3))))
        added = {(rng.randrange(n), rng.randrange(n)) for _ in range(rng.randint(1, 3))} - edges
        since_ms, started = int(time.time() * 1000) - 1, time.perf_counter()
        delta = engine.apply(add_edges=sorted(added), remove_edges=sorted(removed))
        wall = time.perf_counter() - started
        jobs = jobs_since(spark, since_ms)
        edges = (edges - removed) | added
        expected = lfp({0}, edges)
        if (delta.added, delta.removed) != (expected - live, live - expected):
            raise SystemExit(f"size {n}, update {i}: the engine's delta is not the recomputation's")
        live = expected
        if i >= warmups:
            kept.append(Anatomy(round(wall, 3), len(jobs), sum(j[2] for j in jobs), sum(j[3] for j in jobs),
                                round(sum(j[1] - j[0] for j in jobs) / 1000, 3)))
    stored = engine.sizes()
    if (stored["edges"], stored["live"]) != (len(edges), len(live)):
        raise SystemExit(f"size {n}: the engine stores {stored}, the generator {len(edges)} edges and "
                         f"{len(live)} live nodes")
    return kept, stored


FIELDS = ("wall_s", "jobs", "stages", "tasks", "in_jobs_s", "driver_s")


def medians(rows: list[Anatomy]) -> dict[str, float]:
    return {f: round(statistics.median(getattr(r, f) for r in rows), 3) for f in FIELDS}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.update_anatomy_bench",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="30,300,3000", help="graph sizes in nodes, comma-separated")
    p.add_argument("--updates", type=int, default=8, help="measured updates per size (after the warm-ups; default 8)")
    p.add_argument("--warmups", type=int, default=2, help="updates run first and not kept (default 2)")
    p.add_argument("--seed", type=int, default=20261129)
    p.add_argument("--out", help="write the results here (JSON)")
    args = p.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    if not sizes or min(sizes) < 2 or args.updates < 1 or args.warmups < 0:
        p.error("--sizes needs sizes of at least 2 nodes, --updates at least 1, --warmups at least 0")
    from spark_impl.session import build_session

    spark = build_session(app_name="update-anatomy-bench")
    results: dict[str, Any] = {"benchmark": "update_anatomy_bench", "machine": machine(),
                               "params": {"sizes": sizes, "updates": args.updates, "warmups": args.warmups,
                                          "seed": args.seed},
                               "rows": []}
    print("| nodes | edges | live | wall s | jobs | stages | tasks | in jobs s | driver s |\n|---|---|---|---|---|---|---|---|---|")
    for n in sizes:
        load_before = load_average()
        rows, stored = measure_size(spark, n, args.updates, args.seed + n, args.warmups)
        m = medians(rows)
        results["rows"].append({"nodes": n, "stored": stored, "medians": m, "updates": [{**asdict(r), "driver_s": r.driver_s}
                                                                       for r in rows],
                                "load_average_before": load_before, "load_average_after": load_average()})
        print(f"| {n:,} | {stored['edges']:,} | {stored['live']:,} | " + " | ".join(f"{m[f]:g}" for f in FIELDS) + " |", flush=True)
    write_results(args.out, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
