"""Saving and restoring the reach view's state: by its changes against whole, as the graph grows.

    python -m benchmarks.reach_save_bench [--quick] [--sizes 10000,100000,1000000]
                                          [--repeats 3] [--out benchmarks/results/reach-save.json]

For each size (number of edges) a ``powerlaw`` graph (``benchmarks.reach_engine_bench``)
is loaded into the reachability engine with ``make``, and its tables saved as version 0
(:class:`~spark_impl.storage.saved_tables.SavedTables`: every base written). Then,
``--repeats`` times: a single-edge insert applied (its delta checked: one node added),
and the state saved both ways over exactly the same stored tables:

* ``save_changes_s``: as the reach view saves a micro-batch now (the overlay, the bases
  not saved yet, the manifest; the versions no longer needed deleted);
* ``save_whole_s``: as it saved one before: the roots, edges and live tables written whole.

Once per size, restored both ways into a fresh engine, its live count checked against
the stored one: ``restore_changes_s`` reads the saved bases and overlay back (the segment
index with them), ``restore_whole_s`` reads the three whole tables and builds the segment
index anew. Printed per size: the stored edges and live nodes, the rows each save wrote
(the overlay's rows against the three tables'), the medians and their ratios.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from functools import partial
from typing import Any

from benchmarks.reach_engine_bench import powerlaw, timed

QUICK_SIZES = (1_000, 10_000, 100_000)
FULL_SIZES = (10_000, 100_000, 1_000_000)
WHOLE_TABLES = ("roots", "edges", "live")


def save_changes(saved: Any, state: Any, version: int) -> None:
    """As the reach view saves a micro-batch's state now."""
    saved.save(state, version)
    saved.clean(version)


def save_whole(publish: Any, tables: dict[str, Any], folder: str) -> None:
    """As the reach view saved a micro-batch's state before: each table written whole."""
    for name, frame in tables.items():
        publish(frame, f"{folder}/{name}")


def bench_size(spark: Any, edges: int, repeats: int, folder: str) -> dict[str, Any]:
    from spark_impl.fixpoint.reachability import IncrementalReachability
    from spark_impl.pipeline import Outputs
    from spark_impl.storage.hadoop_fs import HadoopFS
    from spark_impl.storage.saved_tables import SavedTables

    root = f"file://{folder}/{edges}"
    fs = HadoopFS(spark, root)
    publish = Outputs(fs, root).publish
    saved = SavedTables(spark, fs, f"{root}/changes", publish)
    edge_df = powerlaw(spark, edges).localCheckpoint(eager=True)
    roots = spark.createDataFrame([(0,)], "node bigint")
    engine = IncrementalReachability(spark, "bigint")
    engine.make(roots, edge_df)
    saved.save(engine.stored, 0)
    by_changes, whole, overlay_rows = [], [], []
    for i in range(1, repeats + 1):
        delta = engine.apply(add_edges=[(0, 10 * edges + i)])  # a fresh node: one added
        if (delta.added_count, delta.removed_count) != (1, 0):
            raise AssertionError(f"insert {i}: (added, removed) = {(delta.added_count, delta.removed_count)}")
        state = engine.stored
        overlay_rows.append(0 if state.overlay is None else state.overlay.count())
        by_changes.append(timed(partial(save_changes, saved, state, i))[0])
        tables = {name: getattr(engine, name).all() for name in WHOLE_TABLES}
        whole.append(timed(partial(save_whole, publish, tables, f"{root}/whole/v={i}"))[0])
    sizes = engine.sizes()

    def restored(restore: Any) -> float:
        fresh = IncrementalReachability(spark, "bigint")
        seconds, _ = timed(lambda: restore(fresh))
        live = fresh.sizes()["live"]
        if live != sizes["live"]:
            raise AssertionError(f"restored live set: {live} nodes, stored {sizes['live']}")
        return seconds

    restore_changes = restored(lambda fresh: fresh.resume(saved.load(repeats, fresh.stored)))
    restore_whole = restored(lambda fresh: fresh.restore(
        *(spark.read.parquet(f"{root}/whole/v={repeats}/{name}") for name in WHOLE_TABLES)))
    save_c, save_w = statistics.median(by_changes), statistics.median(whole)
    return {"edges": sizes["edges"], "live": sizes["live"], "roots": sizes["roots"],
            "overlay_rows": max(overlay_rows), "whole_rows": sum(sizes.values()),
            "save_changes_s": save_c, "save_whole_s": save_w, "whole_per_changes": save_w / save_c,
            "restore_changes_s": restore_changes, "restore_whole_s": restore_whole,
            "restore_whole_per_changes": restore_whole / restore_changes}


def main(argv: list[str] | None = None) -> None:
    from benchmarks.measure import load_average, machine, session_conf
    from spark_impl.session import build_session

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help=f"sizes {QUICK_SIZES}")
    parser.add_argument("--sizes", help="comma-separated edge counts")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--driver-memory", default="6g")
    parser.add_argument("--out", help="write the results as JSON to this file")
    args = parser.parse_args(argv)
    sizes = (tuple(int(s) for s in args.sizes.split(",")) if args.sizes
             else QUICK_SIZES if args.quick else FULL_SIZES)
    spark = build_session(None, app_name="reach-save-bench", conf=session_conf(None, args.driver_memory, "8g"))
    info = machine(str(spark.sparkContext._jvm.java.lang.System.getProperty("java.version")))
    header = ("edges", "live", "overlay_rows", "whole_rows", "save_changes_s", "save_whole_s", "whole_per_changes",
              "restore_changes_s", "restore_whole_s", "restore_whole_per_changes")
    print(f"repeats={args.repeats} (medians; seconds)")
    print("  ".join(f"{h:>14}" for h in header))
    rows = []
    with tempfile.TemporaryDirectory(prefix="reach-save-bench-") as folder:
        for n in sizes:
            load_before = load_average()
            row = {"nominal_edges": n, **bench_size(spark, n, args.repeats, folder),
                   "load_average_before": load_before, "load_average_after": load_average()}
            rows.append(row)
            print("  ".join(f"{row[h]:>14.3f}" if isinstance(row[h], float) else f"{row[h]:>14}" for h in header),
                  flush=True)
            if args.out:  # after every size: a run stopped half-way keeps what it measured
                with open(args.out, "w") as f:
                    json.dump({"benchmark": "reach_save_bench", "machine": info,
                               "params": {"repeats": args.repeats, "sizes": list(sizes),
                                          "driver_memory": args.driver_memory}, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
