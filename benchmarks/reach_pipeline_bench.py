"""The reach view of ``incspec pipeline`` loading a graph, the driver's heap measured.

    python -m benchmarks.reach_pipeline_bench [--sizes 100000,1000000,10000000]
                                              [--master 'local-cluster[2,1,6144]' | standalone]
                                              [--driver-memory 1g] [--executor-memory 5g]
                                              [--out benchmarks/results/reach-pipeline.json]

For each size (number of edges), a power-law graph (``benchmarks.reach_engine_bench``),
root 0, is written as one Parquet file of edits, and :func:`spark_impl.pipeline.run` with
the reach view loads it (micro-batch 0: the engine's bulk path, its tables saved); the
published view's size is checked against a plain Spark recompute over the same edges.
Then a second file adds one edge from the root to a fresh node and a second run (a
restart: the saved state read back) applies it, its published changes checked (that node
added, nothing else).

Recorded per size: the seconds of each run; the driver JVM's heap retained just after a
full collection, and its peak over the size (the heap pools' peaks summed: an upper
bound); the driver Python's resident set. The executors run in JVMs of their own
(``local-cluster``, the default; ``standalone``, a standalone master and two workers
started from the wheel for the run, :mod:`spark_impl.standalone`, each with one core and
the executor memory; or a cluster's master URL), so the heap is the driver's alone: the reach view brings neither a batch nor a delta to it, so it stays flat as the
graph grows.
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchmarks.reach_engine_bench import native_reach, powerlaw, python_rss_mb, timed

SIZES = (100_000, 1_000_000, 10_000_000)
MASTER = "local-cluster[2,1,6144]"
#: ``--master standalone``: a standalone cluster started for the run (:func:`cluster_master`)
STANDALONE = "standalone"


def write_edits(spark: Any, edits: Any, folder: str, name: str) -> None:
    """``edits`` as one Parquet file ``folder/name`` (a file is one change of the view)."""
    staging = f"{folder}/_staging-{name}"
    edits.coalesce(1).write.parquet(staging)
    [part] = glob.glob(f"{staging}/part-*.parquet")
    shutil.move(part, f"{folder}/{name}")
    shutil.rmtree(staging)


def bench_size(spark: Any, edges: int, folder: str) -> dict[str, Any]:
    from pyspark.sql import functions as F

    from benchmarks.measure import JvmHeap
    from spark_impl.pipeline import ViewSpec, read_changes, read_view, run

    inp, out = f"{folder}/{edges}/in", f"{folder}/{edges}/out"
    os.makedirs(inp)
    graph = powerlaw(spark, edges).localCheckpoint(eager=True)
    root = spark.createDataFrame([("root", 0, None, 1)], "kind string, src bigint, dst bigint, weight bigint")
    write_edits(spark, root.unionByName(graph.select(F.lit("edge").alias("kind"), "src", "dst",
                                                     F.lit(1).cast("bigint").alias("weight"))), inp, "g0.parquet")
    heap = JvmHeap.of_session(spark)
    heap.reset()

    def pipeline() -> None:
        if run(spark, inp, out, None, [ViewSpec("reach")], log=lambda _: None) != 0:
            raise AssertionError(f"the pipeline's run over {inp} failed")

    load_s, _ = timed(pipeline)
    live = read_view(spark, out, "reach").count()
    expected = native_reach(spark.createDataFrame([(0,)], "node bigint"), graph)
    if live != expected:
        raise AssertionError(f"the reach view holds {live} nodes, a recompute {expected}")
    fresh = 10 * edges
    write_edits(spark, spark.createDataFrame([("edge", 0, fresh, 1)],
                                             "kind string, src bigint, dst bigint, weight bigint"), inp, "g1.parquet")
    restart_s, _ = timed(pipeline)
    changes = sorted((r["node"], r["added"]) for r in read_changes(spark, out, "reach", 1).collect())
    if changes != [(fresh, True)]:
        raise AssertionError(f"the one-edge file changed {changes}, not [({fresh}, True)]")
    return {"edges": graph.count(), "live": live, "load_s": load_s, "restart_one_edge_s": restart_s,
            "driver_heap_retained_mb": heap.retained_bytes() / 2**20, "driver_heap_peak_mb": heap.peak_bytes() / 2**20,
            "driver_heap_max_mb": heap.max_bytes() / 2**20, "driver_python_rss_mb": python_rss_mb()}


#: the columns printed per size
HEADER = ("edges", "live", "load_s", "restart_one_edge_s", "driver_heap_retained_mb", "driver_heap_peak_mb",
          "driver_heap_max_mb", "driver_python_rss_mb")


@contextmanager
def cluster_master(master: str, folder: str, executor_memory: str) -> Iterator[tuple[str, dict[str, str]]]:
    """The master URL to run on and the settings it needs: ``standalone`` starts a master and
    two 1-core workers under ``folder`` (each offering ``executor_memory`` to its executor) for
    the block; any other master is used as it is."""
    if master != STANDALONE:
        yield master, {}
        return
    from spark_impl.standalone import standalone_cluster

    with standalone_cluster(Path(folder) / "standalone", memory=executor_memory) as cluster:
        yield cluster.url, {**cluster.app_conf(), "spark.pyspark.python": sys.executable}


def main(argv: list[str] | None = None) -> None:
    from benchmarks.measure import EXECUTOR_MEMORY_HELP, machine, session_conf
    from spark_impl.session import build_session

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", help=f"comma-separated edge counts (default {SIZES})")
    parser.add_argument("--master", default=MASTER, help=(
        "Spark master URL (executors in JVMs of their own), or 'standalone': a standalone master "
        "and two workers started for the run"))
    parser.add_argument("--driver-memory", default="1g")
    parser.add_argument("--executor-memory", default="5g", help=EXECUTOR_MEMORY_HELP)
    parser.add_argument("--out", help="write the results as JSON to this file")
    args = parser.parse_args(argv)
    sizes = tuple(int(s) for s in args.sizes.split(",")) if args.sizes else SIZES
    params = {"sizes": list(sizes), "master": args.master, "driver_memory": args.driver_memory,
              "executor_memory": args.executor_memory}
    with (tempfile.TemporaryDirectory(prefix="reach-pipeline-bench-") as folder,
          cluster_master(args.master, folder, args.executor_memory) as (master, cluster_conf)):
        os.environ.setdefault("INCSPEC_CHECKPOINT_DIR", f"file://{folder}/engine-checkpoints")
        spark = build_session(master, app_name="reach-pipeline-bench",
                              conf={**session_conf(master, args.driver_memory, args.executor_memory),
                                    **cluster_conf})
        results = {"benchmark": "reach_pipeline_bench",
                   "machine": machine(str(spark.sparkContext._jvm.java.lang.System.getProperty("java.version"))),
                   "params": params, "rows": []}
        print(f"master={args.master} ({master}) driver memory={args.driver_memory} (seconds, MiB)")
        print("  ".join(f"{h:>14}" for h in HEADER))
        try:
            for n in sizes:
                measure_size(spark, n, folder, results, args.out)
        finally:
            spark.stop()  # the executors' JVMs end with the application, not killed at exit


def measure_size(spark: Any, n: int, folder: str, results: dict[str, Any], out: str | None) -> None:
    """One size measured, its row added to ``results`` and printed, and (``out``) the
    results so far written: a run stopped half-way keeps what it measured."""
    from benchmarks.measure import load_average, write_results

    load_before = load_average()
    row = {"nominal_edges": n, **bench_size(spark, n, folder),
           "load_average_before": load_before, "load_average_after": load_average()}
    results["rows"].append(row)
    print("  ".join(f"{row[h]:>14.1f}" if isinstance(row[h], float) else f"{row[h]:>14}" for h in HEADER), flush=True)
    write_results(out, results)


if __name__ == "__main__":
    main()
