"""A cluster scenario (a process of its own, tests/cluster/conftest.py): the reachability
engine's ``make`` and one ``apply`` on the master ``$INCSPEC_SPARK_MASTER``.

    python -m tests.cluster.fixpoint_scenario GRAPH.json RESULT.json [LOCAL_DIR]

GRAPH holds ``roots``, ``edges`` and one ``batch`` (``add_roots``, ``remove_roots``,
``add_edges``, ``remove_edges``) of integer nodes; RESULT gets the live set with ranks
after ``make`` and after the batch, the batch's output delta and the session's
checkpoint location, where an executor imported ``spark_impl`` from, and, given an executor's local folder (the same machine), the
files under it while the application still runs (once it ends the worker deletes them).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from spark_impl.fixpoint.reachability import IncrementalReachability
from spark_impl.session import build_session


def ranks(frame: Any) -> dict[str, int]:
    return {str(r["node"]): int(r["rank"]) for r in frame.collect()}


def files_under(folder: str) -> list[str]:
    return sorted(os.path.relpath(os.path.join(root, f), folder) for root, _, files in os.walk(folder) for f in files)


def executor_import(spark: Any) -> str:
    """Where an executor's Python worker imports ``spark_impl`` from, as an absolute path (the
    zip is on its path by a name relative to the executor's working folder; this module runs
    as ``__main__``: the function is pickled by value)."""
    found: list[str] = spark.sparkContext.parallelize([0], 1).map(
        lambda _: __import__("os").path.abspath(__import__("spark_impl").__file__)).collect()
    return found[0]


def main(graph_file: str, result_file: str, local_dir: str | None = None) -> None:
    with open(graph_file, encoding="utf-8") as source:
        graph = json.load(source)
    spark = build_session(app_name="incspec-cluster-fixpoint")
    try:
        engine = IncrementalReachability(spark, node_type="bigint")
        roots = spark.createDataFrame([(r,) for r in graph["roots"]], "node bigint")
        edges = spark.createDataFrame([tuple(e) for e in graph["edges"]], "src bigint, dst bigint")
        made, _ = engine.make(roots, edges)
        result: dict[str, Any] = {"made": ranks(made)}
        batch = graph["batch"]
        delta = engine.apply(batch["add_roots"], batch["remove_roots"],
                             [tuple(e) for e in batch["add_edges"]], [tuple(e) for e in batch["remove_edges"]])
        result.update({"updated": ranks(engine.current()), "added": sorted(delta.added),
                       "removed": sorted(delta.removed),
                       "checkpoint_dir": spark.sparkContext.getCheckpointDir(),
                       "executor_import": executor_import(spark),
                       "executor_files": files_under(local_dir) if local_dir else []})
    finally:
        spark.stop()
    with open(result_file, "w", encoding="utf-8") as out:
        json.dump(result, out)


if __name__ == "__main__":
    main(*sys.argv[1:4])
