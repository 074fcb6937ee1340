"""Single-edge updates of the Spark reachability engine against a Spark recompute.

    python -m benchmarks.reach_engine_bench [--quick] [--sizes 10000,100000,1000000]
                                            [--graph powerlaw|chains] [--chain-length 32]
                                            [--repeats 3] [--no-root-removal]
                                            [--out benchmarks/results/reach-engine.json]

For each size (number of edges) a graph is generated on the executors (no
driver lists), node 0 the one root:

* ``powerlaw``: sources skewed towards small ids (a few hubs), targets
  uniform;
* ``chains``: half the edges a power-law backbone as above, the other half
  chains of ``--chain-length`` nodes, each hung from the root by its first
  edge and reached by nothing else: the deep cascades where contraction is
  hardest (a chain's head edge removed kills the whole chain, one node per
  round).

The engine is loaded with ``make``; then, ``--repeats`` times each:

* insert and delete: ``powerlaw``, a new edge from the root to a fresh node,
  then the same edge removed again (one element added, then removed);
  ``chains``, a chain's head edge removed (the chain dies, ``chain-length``
  cascade rounds), then put back (the chain comes back, ``chain-length``
  expansion rounds);
* recompute: the live set from scratch over the same stored edges, by plain
  Spark (semi-naive BFS rounds of DataFrame joins, nothing written: the
  cheapest recompute, so the hardest baseline), its live count checked
  against the engine's; and ``make`` on a fresh engine (a recompute that also
  writes the state durably).

Then, once (unless ``--no-root-removal``): the root removed, which kills the
whole live set (every live node examined and removed by the cascade), and put
back, which derives it all again; both through ``apply`` as one-row batches
(never the bulk path), each checked to remove or add exactly the live set.

Printed per size: the stored edge and live-node counts, the median seconds of
each operation, the recompute/insert and recompute/delete ratios (plain recompute), the Spark
jobs of one insert and of one delete (the most over the repeats, counted with
the SparkContext's status tracker), the root removal and re-addition, and the
driver's memory: the Python process's resident set after the size (it holds
DataFrame handles and counts, never nodes, so it stays flat as the graph
grows), the JVM heap in use and the heap retained just after a full
collection (in ``local`` mode the executors share that JVM, so it holds the
cached tables too and is not the driver's alone; with ``--master
local-cluster[1,2,MB]`` the executors run in a JVM of their own and it is); with
``--out``, the rows, the parameters and the machine (cores, memory, load
average before and after each size, versions) as JSON. Every update's outcome
is checked, so a broken engine cannot report a fast time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

QUICK_SIZES = (1_000, 10_000, 100_000)
FULL_SIZES = (10_000, 100_000, 1_000_000)


def powerlaw(spark: Any, edges: int) -> Any:
    """``edges`` draws of ``(src, dst)`` over ``edges / 4`` nodes: sources skewed to small
    ids (``u^3`` puts most mass on a few hubs), targets uniform; duplicates dropped."""
    from pyspark.sql import functions as F

    nodes = max(edges // 4, 2)
    return spark.range(edges).select((F.pow(F.rand(1), 3) * nodes).cast("bigint").alias("src"),
                                     (F.rand(2) * nodes).cast("bigint").alias("dst")).distinct()


@dataclass(frozen=True)
class Chains:
    """The chains of a ``chains`` graph: ``count`` chains of ``length`` nodes, ids from
    ``first`` on (above every backbone node); chain ``c``'s nodes are
    ``first + c·length + j``, its head edge ``(0, first + c·length)``."""

    first: int
    count: int
    length: int

    def head_edge(self, c: int) -> tuple[int, int]:
        return (0, self.first + c * self.length)


def chains_graph(spark: Any, edges: int, length: int) -> tuple[Any, Chains]:
    """A power-law backbone of about ``edges / 2`` edges and chains of ``length`` nodes
    (``length`` edges each, the head edge from the root included) for the other half."""
    from pyspark.sql import functions as F

    count = max((edges // 2) // length, 1)
    backbone = powerlaw(spark, edges - count * length)
    chains = Chains(first=max((edges - count * length) // 4, 2), count=count, length=length)
    position = F.col("id") % length
    node = chains.first + F.col("id")
    links = spark.range(count * length).select(
        F.when(position == 0, F.lit(0)).otherwise(node - 1).cast("bigint").alias("src"),
        node.cast("bigint").alias("dst"))
    return backbone.unionByName(links), chains


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


def retained_heap_mb(spark: Any) -> float:
    """The driver JVM's heap just after a full collection (:meth:`JvmHeap.retained_bytes`)."""
    from benchmarks.measure import JvmHeap

    return JvmHeap.of_session(spark).retained_bytes() / 2**20


def newest_job(spark: Any) -> int:
    """The id of the session's newest Spark job (ids count up from 0)."""
    return int(max([-1, *spark.sparkContext.statusTracker().getJobIdsForGroup(None)]))


def counted(spark: Any, fn: Callable[[], Any]) -> tuple[float, int, Any]:
    """Seconds, Spark jobs and result of ``fn()``."""
    before = newest_job(spark)
    seconds, out = timed(fn)
    return seconds, newest_job(spark) - before, out


def python_rss_mb() -> float:
    """The driver's Python process: resident set now (Linux ``/proc``), in MiB."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def checked(spark: Any, expect: tuple[int, int], **batch: Any) -> tuple[float, int]:
    """Seconds and Spark jobs of ``engine.apply(**batch)``, its (added, removed) counts checked."""
    engine = batch.pop("engine")
    t, jobs, delta = counted(spark, partial(engine.apply, **batch))
    got = (delta.added_count, delta.removed_count)
    if got != expect:
        raise AssertionError(f"{batch}: expected (added, removed) = {expect}, got {got}")
    return t, jobs


def bench_size(spark: Any, edges: int, kind: str, repeats: int, chain_length: int = 32,
               root_removal: bool = True) -> dict[str, Any]:
    from spark_impl.fixpoint.reachability import IncrementalReachability

    if kind == "chains":
        generated, chains = chains_graph(spark, edges, chain_length)
    else:
        generated, chains = powerlaw(spark, edges), None
    edge_df = generated.localCheckpoint(eager=True)
    roots = spark.createDataFrame([(0,)], "node bigint")
    engine = IncrementalReachability(spark, "bigint")
    make_s, _ = timed(lambda: engine.make(roots, edge_df))
    sizes = engine.sizes()
    fresh = 10 * edges  # ids never used by the generator
    inserts, deletes, insert_jobs, delete_jobs = [], [], [], []
    for i in range(repeats):
        if chains is None:
            edge, grown = [(0, fresh + i)], 1
            t, jobs = checked(spark, (grown, 0), engine=engine, add_edges=edge)
            inserts.append(t)
            insert_jobs.append(jobs)
        else:  # a chain cut off, then hung back: first the delete, then the insert
            edge, grown = [chains.head_edge(i % chains.count)], chains.length
        t, jobs = checked(spark, (0, grown), engine=engine, remove_edges=edge)
        deletes.append(t)
        delete_jobs.append(jobs)
        if chains is not None:
            t, jobs = checked(spark, (grown, 0), engine=engine, add_edges=edge)
            inserts.append(t)
            insert_jobs.append(jobs)
    recomputes = []
    for _ in range(repeats):
        t, live = timed(lambda: native_reach(roots, edge_df))
        assert live == sizes["live"], (live, sizes["live"])
        recomputes.append(t)
    remakes = [timed(lambda: IncrementalReachability(spark, "bigint").make(roots, edge_df))[0]
               for _ in range(repeats)]
    ins, dele, rec, remake = (statistics.median(x) for x in (inserts, deletes, recomputes, remakes))
    row = {"edges": sizes["edges"], "live": sizes["live"], "make_s": make_s, "insert_s": ins,
           "delete_s": dele, "recompute_s": rec, "remake_s": remake, "recompute_per_insert": rec / ins,
           "recompute_per_delete": rec / dele, "insert_jobs": max(insert_jobs),
           "delete_jobs": max(delete_jobs), "changed_per_update": grown}
    if root_removal:  # every live node dies, then comes back: through apply, one row each
        row["root_removal_s"], _ = checked(spark, (0, sizes["live"]), engine=engine, remove_roots=[0])
        row["root_readd_s"], _ = checked(spark, (sizes["live"], 0), engine=engine, add_roots=[0])
    return {**row, "driver_python_rss_mb": python_rss_mb(), "driver_heap_mb": heap_mb(spark),
            "driver_heap_retained_mb": retained_heap_mb(spark)}


def main(argv: list[str] | None = None) -> None:
    from benchmarks.measure import EXECUTOR_MEMORY_HELP, MASTER_HELP, session_conf

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help=f"sizes {QUICK_SIZES}")
    parser.add_argument("--sizes", help="comma-separated edge counts")
    parser.add_argument("--graph", choices=("powerlaw", "chains"), default="powerlaw")
    parser.add_argument("--chain-length", type=int, default=32, help="nodes per chain (chains graphs)")
    parser.add_argument("--no-root-removal", action="store_true", help="skip the root removal and re-addition")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--driver-memory", default="6g")
    parser.add_argument("--master", help=MASTER_HELP)
    parser.add_argument("--executor-memory", default="8g", help=EXECUTOR_MEMORY_HELP)
    parser.add_argument("--out", help="write the results as JSON to this file")
    args = parser.parse_args(argv)
    sizes = (tuple(int(s) for s in args.sizes.split(",")) if args.sizes
             else QUICK_SIZES if args.quick else FULL_SIZES)
    from spark_impl.session import build_session

    spark = build_session(args.master, app_name="reach-engine-bench",
                          conf=session_conf(args.master, args.driver_memory, args.executor_memory))
    print(f"graph={args.graph} repeats={args.repeats} (medians; seconds)")
    header = ("edges", "live", "make_s", "insert_s", "delete_s", "recompute_s", "remake_s", "recompute_per_insert",
              "recompute_per_delete", "insert_jobs", "delete_jobs", "root_removal_s", "root_readd_s",
              "driver_python_rss_mb", "driver_heap_mb", "driver_heap_retained_mb")
    print("  ".join(f"{h:>14}" for h in header))
    from benchmarks.measure import load_average, machine

    info = machine(str(spark.sparkContext._jvm.java.lang.System.getProperty("java.version")))
    rows = []
    for n in sizes:
        load_before = load_average()
        row = {"nominal_edges": n, **bench_size(spark, n, args.graph, args.repeats, args.chain_length,
                                                          not args.no_root_removal),
               "load_average_before": load_before, "load_average_after": load_average()}
        rows.append(row)
        shown = [row.get(h, "-") for h in header]
        print("  ".join(f"{v:>14.3f}" if isinstance(v, float) else f"{v:>14}" for v in shown), flush=True)
        if args.out:  # after every size: a long run stopped half-way keeps what it measured
            with open(args.out, "w") as f:
                json.dump({"benchmark": "reach_engine_bench", "machine": info,
                           "params": {"graph": args.graph, "repeats": args.repeats, "sizes": list(sizes),
                                      "chain_length": args.chain_length if args.graph == "chains" else None,
                                      "driver_memory": args.driver_memory,
                                      "master": args.master,
                                      "executor_memory": args.executor_memory if args.master else None},
                           "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
