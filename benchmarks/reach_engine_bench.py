"""Single-edge updates of the Spark reachability engine against a Spark recompute.

    python -m benchmarks.reach_engine_bench [--quick] [--sizes 10000,100000,1000000]
                                            [--graph powerlaw|chain] [--repeats 3]
                                            [--out benchmarks/results/reach-engine.json]

For each size (number of edges) a graph is generated on the executors (no
driver lists): ``powerlaw``, sources skewed towards small ids (a few hubs,
node 0 the root), or ``chain``, a long path with random shortcuts. The
engine is loaded with ``make``; then, ``--repeats`` times each:

* insert: a new edge from a hub to a fresh node (one element added);
* delete: the same edge removed again (one element removed);
* recompute: the live set from scratch over the same stored edges, by plain
  Spark (semi-naive BFS rounds of DataFrame joins, nothing written: the
  cheapest recompute, so the hardest baseline), its live count checked
  against the engine's; and ``make`` on a fresh engine (a recompute that also
  writes the state durably).

Printed per size: the stored edge and live-node counts, the median seconds of
each operation, the recompute/insert and recompute/delete ratios (plain recompute), the Spark
jobs of one insert and of one delete (the most over the repeats, counted with
the SparkContext's status tracker), and the driver JVM heap in use after the
updates; with ``--out``, the rows, the parameters and the machine (cores,
memory, load average before and after each size, versions) as JSON. The updates' outcome (one node added
then removed) is checked, so a broken engine cannot report a fast time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from functools import partial
from typing import Any

QUICK_SIZES = (1_000, 10_000, 100_000)
FULL_SIZES = (10_000, 100_000, 1_000_000)


def graph(spark: Any, edges: int, kind: str) -> Any:
    """``(src, dst)`` bigint edges, generated on the executors."""
    from pyspark.sql import functions as F

    nodes = max(edges // 4, 2)
    ids = spark.range(edges)
    if kind == "chain":
        chain = spark.range(nodes - 1).select(F.col("id").alias("src"), (F.col("id") + 1).alias("dst"))
        extra = ids.limit(max(edges - (nodes - 1), 0)).select(
            (F.rand(7) * nodes).cast("bigint").alias("src"), (F.rand(8) * nodes).cast("bigint").alias("dst"))
        return chain.unionByName(extra).distinct()
    # sources skewed to small ids (u^3 puts most mass on a few hubs), targets uniform
    return ids.select((F.pow(F.rand(1), 3) * nodes).cast("bigint").alias("src"),
                      (F.rand(2) * nodes).cast("bigint").alias("dst")).distinct()


def native_reach(roots: Any, edges: Any) -> int:
    """The size of the live set from scratch: semi-naive BFS rounds, each
    frontier joined with the edges and cut from its lineage."""
    from pyspark.sql import functions as F

    live = roots.select("node").distinct().localCheckpoint()
    frontier, n = live, live.count()
    while n:
        step = (edges.join(frontier.select(F.col("node").alias("src")), "src")
                .select(F.col("dst").alias("node")).distinct())
        frontier = step.join(live, "node", "left_anti").localCheckpoint()
        n = frontier.count()
        live = live.unionByName(frontier).localCheckpoint()
    return int(live.count())


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def heap_mb(spark: Any) -> float:
    runtime = spark.sparkContext._jvm.java.lang.Runtime.getRuntime()
    return float(runtime.totalMemory() - runtime.freeMemory()) / 2**20


def newest_job(spark: Any) -> int:
    """The id of the session's newest Spark job (ids count up from 0)."""
    return int(max([-1, *spark.sparkContext.statusTracker().getJobIdsForGroup(None)]))


def counted(spark: Any, fn: Callable[[], Any]) -> tuple[float, int, Any]:
    """Seconds, Spark jobs and result of ``fn()``."""
    before = newest_job(spark)
    seconds, out = timed(fn)
    return seconds, newest_job(spark) - before, out


def bench_size(spark: Any, edges: int, kind: str, repeats: int) -> dict[str, Any]:
    from spark_impl.fixpoint_engine import IncrementalReachability

    edge_df = graph(spark, edges, kind).localCheckpoint(eager=True)
    roots = spark.createDataFrame([(0,)], "node bigint")
    engine = IncrementalReachability(spark, "bigint")
    make_s, _ = timed(lambda: engine.make(roots, edge_df))
    sizes = engine.sizes()
    fresh = 10 * edges  # ids never used by the generator
    inserts, deletes, insert_jobs, delete_jobs = [], [], [], []
    for i in range(repeats):
        edge = [(0, fresh + i)]
        t, jobs, delta = counted(spark, partial(engine.apply, add_edges=edge))
        assert (delta.added_count, delta.removed_count) == (1, 0), (delta.added_count, delta.removed_count)
        inserts.append(t)
        insert_jobs.append(jobs)
        t, jobs, delta = counted(spark, partial(engine.apply, remove_edges=edge))
        assert (delta.added_count, delta.removed_count) == (0, 1), (delta.added_count, delta.removed_count)
        deletes.append(t)
        delete_jobs.append(jobs)
    recomputes = []
    for _ in range(repeats):
        t, live = timed(lambda: native_reach(roots, edge_df))
        assert live == sizes["live"], (live, sizes["live"])
        recomputes.append(t)
    remakes = [timed(lambda: IncrementalReachability(spark, "bigint").make(roots, edge_df))[0]
               for _ in range(repeats)]
    ins, dele, rec, remake = (statistics.median(x) for x in (inserts, deletes, recomputes, remakes))
    return {"edges": sizes["edges"], "live": sizes["live"], "make_s": make_s, "insert_s": ins,
            "delete_s": dele, "recompute_s": rec, "remake_s": remake, "recompute_per_insert": rec / ins,
            "recompute_per_delete": rec / dele, "insert_jobs": max(insert_jobs),
            "delete_jobs": max(delete_jobs), "driver_heap_mb": heap_mb(spark)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help=f"sizes {QUICK_SIZES}")
    parser.add_argument("--sizes", help="comma-separated edge counts")
    parser.add_argument("--graph", choices=("powerlaw", "chain"), default="powerlaw")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--driver-memory", default="6g")
    parser.add_argument("--out", help="write the results as JSON to this file")
    args = parser.parse_args(argv)
    sizes = (tuple(int(s) for s in args.sizes.split(",")) if args.sizes
             else QUICK_SIZES if args.quick else FULL_SIZES)
    from spark_impl.session import build_session

    spark = build_session(app_name="reach-engine-bench", conf={"spark.driver.memory": args.driver_memory})
    print(f"graph={args.graph} repeats={args.repeats} (medians; seconds)")
    header = ("edges", "live", "make_s", "insert_s", "delete_s", "recompute_s", "remake_s", "recompute_per_insert",
              "recompute_per_delete", "insert_jobs", "delete_jobs", "driver_heap_mb")
    print("  ".join(f"{h:>20}" for h in header))
    from benchmarks.measure import load_average, machine

    info = machine(str(spark.sparkContext._jvm.java.lang.System.getProperty("java.version")))
    rows = []
    for n in sizes:
        load_before = load_average()
        row = {"nominal_edges": n, **bench_size(spark, n, args.graph, args.repeats),
               "load_average_before": load_before, "load_average_after": load_average()}
        rows.append(row)
        print("  ".join(f"{row[h]:>20.3f}" if isinstance(row[h], float) else f"{row[h]:>20}" for h in header),
              flush=True)
        if args.out:  # after every size: a long run stopped half-way keeps what it measured
            with open(args.out, "w") as f:
                json.dump({"benchmark": "reach_engine_bench", "machine": info,
                           "params": {"graph": args.graph, "repeats": args.repeats, "sizes": list(sizes),
                                      "driver_memory": args.driver_memory},
                           "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
