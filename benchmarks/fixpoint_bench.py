"""Fixpoint: single-edge inserts and deletes against recomputing reachability from scratch.

A random graph of ``edges`` edges over ``nodes`` nodes (``src``, ``dst``
uniform, seeded), roots ``0..9``. Measured side by side in one run:

* recompute: :meth:`IncrementalReachability.make`, semi-naive BFS rounds as
  DataFrame joins, each round checkpointed, adaptive execution off;
* incremental: :meth:`IncrementalReachability.apply` with one inserted edge,
  or one deleted edge (an existing edge, chosen at random), each reporting
  the rows it touched (frontier elements and edge rows read), against the
  graph's size.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from pyspark.sql import SparkSession

from benchmarks.common import Series, ratio
from spark_impl.fixpoint_engine import IncrementalReachability


def graph(nodes: int, edges: int, seed: int = 11) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"src": rng.integers(0, nodes, edges, dtype=np.int64),
                          "dst": rng.integers(0, nodes, edges, dtype=np.int64)})
    return frame.drop_duplicates(ignore_index=True)


def run(spark: SparkSession, nodes: int, edges: int, updates: int,
        recomputes: int = 2) -> dict[str, float]:
    print(f"fixpoint: nodes={nodes:,} edges={edges:,} single-edge updates={updates}", flush=True)
    g = graph(nodes, edges)
    edge_df = spark.createDataFrame(g)
    roots = spark.createDataFrame(pd.DataFrame({"node": np.arange(10, dtype=np.int64)}))
    recompute = Series("recompute from scratch (BFS rounds on Spark)")
    engine = IncrementalReachability(spark, "bigint")
    live_rows = 0
    for _ in range(recomputes):
        engine = IncrementalReachability(spark, "bigint")
        live, work = recompute.time(lambda e=engine: e.make(roots, edge_df))
        live_rows = live.count()
    print("  " + recompute.line() + f"   rounds={work.rounds} live={live_rows:,}", flush=True)

    rng = np.random.default_rng(5)
    present = set(zip(g["src"].tolist(), g["dst"].tolist(), strict=True))
    inserts, deletes = Series("incremental: insert one edge"), Series("incremental: delete one edge")
    touched: list[int] = []
    for i in range(updates):
        if i % 2 == 0:
            edge = (int(rng.integers(0, nodes)), int(rng.integers(0, nodes)))
            delta = inserts.time(lambda x=edge: engine.apply(add_edges=[x]))
            present.add(edge)
        else:
            edge = sorted(present)[int(rng.integers(0, len(present)))]
            delta = deletes.time(lambda x=edge: engine.apply(remove_edges=[x]))
            present.discard(edge)
        touched.append(delta.work.elements_visited + delta.work.edges_scanned)
    for s in (inserts, deletes):
        print("  " + s.line(), flush=True)
    print(f"  rows touched per update: median {int(np.median(touched))}, max {max(touched)} "
          f"(graph: {len(g):,} edges, {live_rows:,} live)", flush=True)
    out = {"edges": float(len(g)), "recompute_median_s": recompute.median,
           "insert_median_s": inserts.median, "delete_median_s": deletes.median,
           "insert_speedup": ratio(recompute, inserts), "delete_speedup": ratio(recompute, deletes),
           "touched_median": float(np.median(touched))}
    print(f"  ratio recompute / insert: {out['insert_speedup']:.1f}x, "
          f"recompute / delete: {out['delete_speedup']:.1f}x", flush=True)
    return out
