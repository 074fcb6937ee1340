"""Single-edge updates of reachability as a Z-set program with ``iterate`` on Spark,
against recomputing the program at the new version.

    python -m benchmarks.zset_iterate_bench [--sizes 1000,10000,100000] [--repeats 3]
                                            [--driver-memory 6g]
                                            [--out benchmarks/results/zset-iterate.json]

The program is ``X = distinct(roots + snd(snd(dup(X) ⋈ edges)))``
(:data:`benchmarks.workloads.REACH_PROGRAM`), root ``0``, over the power-law
graphs of :func:`benchmarks.reach_engine_bench.powerlaw` (generated on the
executors). The engine (:class:`spark_impl.zset.dataflow.ZSetDataflow`) takes the
whole graph as its first version; then, ``--repeats`` times each:

* insert: a new edge from the root to a fresh node, one version (its output
  delta checked: exactly that node, weight +1);
* delete: the same edge removed, the next version (the node, weight -1);
* recompute: the program evaluated from scratch at the current version (a
  fresh engine given the whole graph as its one version), its live count
  checked against the maintained output's; and plain Spark semi-naive BFS
  (:func:`benchmarks.reach_engine_bench.native_reach`) over the same edges.

Printed per size: stored edges and live nodes, median seconds of each, the
ratios recompute / insert and recompute / delete, the Spark jobs of an update
(most over the repeats), the loop iterations of an update and of a recompute
(the engine's ``work`` counters), and the load average. ``--out`` writes the
rows, parameters and machine as JSON after every size; with ``--append`` the
file's rows of other sizes are kept (a long size measured on its own, the
short ones later), each row saying the commit and driver memory it ran with.
"""

from __future__ import annotations

import argparse
import json
import statistics
from typing import Any

from benchmarks.reach_engine_bench import counted, native_reach, powerlaw, timed

SIZES = (1_000, 10_000, 100_000)


def delta_rows(out: Any) -> dict[str, int]:
    """An output delta (a handful of rows after a single-edge update) as ``{e: w}``."""
    return {r["e"]: int(r["w"]) for r in out.collect()}


def bench_size(spark: Any, edges: int, repeats: int) -> dict[str, Any]:
    from pyspark.sql import functions as F

    from benchmarks.engines import zset_edges
    from benchmarks.workloads import REACH_PROGRAM
    from spark_impl.zset.dataflow import Program, ZSetDataflow

    edge_df = powerlaw(spark, edges).localCheckpoint(eager=True)
    roots = spark.createDataFrame([("0", 1)], "e string, w bigint")
    program = Program.from_json(REACH_PROGRAM)

    def from_scratch() -> tuple[ZSetDataflow, int]:
        flow = ZSetDataflow(spark, program)
        live = flow.step({"roots": roots, "edges": zset_edges(edge_df, 1)}).where(F.col("w") > 0).count()
        return flow, int(live)

    load_s, (flow, live) = timed(from_scratch)
    stored = edge_df.count()
    first_iterations = flow.work["iterations"]
    fresh = 10 * edges  # ids the generator never uses
    inserts: list[float] = []
    deletes: list[float] = []
    jobs: list[int] = []
    iterations: list[int] = []
    for i in range(repeats):
        edge = spark.createDataFrame([(0, fresh + i)], "src bigint, dst bigint")
        for weight, times in ((1, inserts), (-1, deletes)):
            changed = {"edges": zset_edges(edge, weight)}
            t, n_jobs, out = counted(spark, lambda: delta_rows(flow.step(changed)))  # noqa: B023 (called at once)
            if out != {str(fresh + i): weight}:
                raise AssertionError(f"edge (0, {fresh + i}) weight {weight}: output delta {out}")
            times.append(t)
            jobs.append(n_jobs)
            iterations.append(flow.work["iterations"])
    recomputes: list[float] = []
    natives: list[float] = []
    node_roots = spark.createDataFrame([(0,)], "node bigint")
    for _ in range(repeats):
        t, (_, again) = timed(from_scratch)
        if again != live:
            raise AssertionError(f"recompute: {again} live nodes, the maintained output {live}")
        recomputes.append(t)
        t, native = timed(lambda: native_reach(node_roots, edge_df))
        if native != live:
            raise AssertionError(f"plain Spark BFS: {native} live nodes, the engine {live}")
        natives.append(t)
    ins, dele, rec, nat = (statistics.median(x) for x in (inserts, deletes, recomputes, natives))
    return {"edges": stored, "live": live, "load_s": load_s, "insert_s": ins, "delete_s": dele,
            "recompute_s": rec, "native_s": nat, "recompute_per_insert": rec / ins,
            "recompute_per_delete": rec / dele, "update_jobs": max(jobs),
            "update_iterations": max(iterations), "recompute_iterations": first_iterations}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", help=f"comma-separated edge counts (default {SIZES})")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--driver-memory", default="6g", help="the driver's heap (in local mode, the executors' too)")
    parser.add_argument("--out", help="write the results as JSON to this file")
    parser.add_argument("--append", action="store_true",
                        help="keep the --out file's rows of sizes this run does not measure")
    args = parser.parse_args(argv)
    sizes = tuple(int(s) for s in args.sizes.split(",")) if args.sizes else SIZES
    kept = earlier_rows(args.out, args.repeats, sizes) if args.append else []
    from benchmarks.measure import load_average, machine, session_conf
    from spark_impl.session import build_session

    spark = build_session(app_name="zset-iterate-bench", conf=session_conf(None, args.driver_memory))
    info = machine(str(spark.sparkContext._jvm.java.lang.System.getProperty("java.version")))
    header = ("edges", "live", "load_s", "insert_s", "delete_s", "recompute_s", "native_s",
              "recompute_per_insert", "recompute_per_delete", "update_jobs", "update_iterations",
              "recompute_iterations")
    print(f"repeats={args.repeats} (medians; seconds)")
    print("  ".join(f"{h:>14}" for h in header))
    rows = []
    for n in sizes:
        before = load_average()
        row = {"nominal_edges": n, **bench_size(spark, n, args.repeats),
               "load_average_before": before, "load_average_after": load_average(),
               "commit": info.get("commit"), "driver_memory": args.driver_memory}
        rows.append(row)
        print("  ".join(f"{row[h]:>14.3f}" if isinstance(row[h], float) else f"{row[h]:>14}" for h in header),
              flush=True)
        if args.out:  # after every size: a run stopped half-way keeps what it measured
            every = sorted(kept + rows, key=lambda r: int(r["nominal_edges"]))
            with open(args.out, "w") as f:
                json.dump({"benchmark": "zset_iterate_bench", "machine": info,
                           "params": {"repeats": args.repeats, "sizes": [r["nominal_edges"] for r in every],
                                      "driver_memory": args.driver_memory}, "rows": every}, f, indent=1)


def earlier_rows(path: str | None, repeats: int, sizes: tuple[int, ...]) -> list[dict[str, Any]]:
    """The rows of an earlier results file (``--append``) whose sizes this run
    does not measure, each with the commit and driver memory of its run;
    refused when the file is another benchmark's or ran another repeat count."""
    if path is None:
        raise SystemExit("--append needs --out")
    try:
        with open(path) as f:
            earlier = json.load(f)
    except FileNotFoundError:
        return []
    if earlier.get("benchmark") != "zset_iterate_bench" or earlier["params"]["repeats"] != repeats:
        raise SystemExit(f"{path}: not a zset_iterate_bench file with --repeats {repeats}; not appending to it")
    return [{"commit": earlier["machine"].get("commit"),
             "driver_memory": earlier["params"].get("driver_memory", "1g"), **row}
            for row in earlier["rows"] if int(row["nominal_edges"]) not in sizes]


if __name__ == "__main__":
    main()
