"""The engines on a standalone cluster (tests/cluster/conftest.py): a driver process, one
worker's executor in another JVM with Python workers of its own, state at
``$INCSPEC_CHECKPOINT_DIR`` (a ``file://`` folder: on one machine every process sees it).

Each scenario is an application of its own, in a process of its own, started in a scratch
folder with the project on the driver's path alone: an executor imports the project from
the zip the session ships (spark_impl/shipping.py). Results are read back without Spark
(pyarrow), and compared with views computed here from the inputs.
"""

from __future__ import annotations

import json
import os
import random
import re
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.cluster.conftest import Cluster, Scenario

pytestmark = [pytest.mark.spark, pytest.mark.cluster]

Rows = list[dict[str, Any]]
Edge = tuple[int, int]

#: two change files: the second removes values, among them keys' minima (a fold reducer
#: then declines the removal and refolds the key's values) and one key's every value
BATCHES: list[Rows] = [
    [{"key": "a", "value": 5, "weight": 1}, {"key": "a", "value": 2, "weight": 1},
     {"key": "b", "value": -3, "weight": 2}, {"key": "b", "value": 7, "weight": 1},
     {"key": "c", "value": 9, "weight": 1}, {"key": "d", "value": 4, "weight": 3}],
    [{"key": "a", "value": 2, "weight": -1}, {"key": "b", "value": -3, "weight": -1},
     {"key": "c", "value": 9, "weight": -1}, {"key": "d", "value": 1, "weight": 1},
     {"key": "e", "value": 11, "weight": 2}],
]
#: the reach view's rows in the same files: a root and a chain, then the chain cut and
#: rejoined by another way (3 stays live through 4, 2 leaves)
GRAPH: list[Rows] = [
    [{"kind": "root", "src": 1, "dst": None, "weight": 1},
     {"kind": "edge", "src": 1, "dst": 2, "weight": 1}, {"kind": "edge", "src": 2, "dst": 3, "weight": 1}],
    [{"kind": "edge", "src": 1, "dst": 2, "weight": -1}, {"kind": "edge", "src": 1, "dst": 4, "weight": 1},
     {"kind": "edge", "src": 4, "dst": 3, "weight": 1}],
]
VIEWS = ("reduce:sum", "reduce:min", "reach")


def multisets(batches: Iterable[Rows]) -> dict[str, dict[int, int]]:
    """Each key's values with their counts after the batches (emptied keys dropped)."""
    bags: dict[str, dict[int, int]] = {}
    for rows in batches:
        for r in rows:
            bag = bags.setdefault(r["key"], {})
            bag[r["value"]] = bag.get(r["value"], 0) + r["weight"]
            if bag[r["value"]] == 0:
                del bag[r["value"]]
    return {k: bag for k, bag in bags.items() if bag}


def live_nodes(files: list[Rows]) -> set[int]:
    """The reach view of the graph files, from scratch: the nodes reachable from the roots."""
    roots: set[int] = set()
    edges: set[Edge] = set()
    for rows in files:
        for r in rows:
            if r["kind"] == "root":
                roots = roots | {r["src"]} if r["weight"] > 0 else roots - {r["src"]}
            else:
                edges = edges | {(r["src"], r["dst"])} if r["weight"] > 0 else edges - {(r["src"], r["dst"])}
    return set(bfs_ranks(roots, edges))


def recomputed(view: str, batches: list[Rows]) -> dict[str, int]:
    bags = multisets(batches)
    if view == "reduce:sum":
        return {k: sum(v * n for v, n in bag.items()) for k, bag in bags.items()}
    return {k: min(bag) for k, bag in bags.items()}


def write_batch(folder: Path, index: int) -> None:
    """Change file ``index``, its modification time its position (oldest is read first)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"b{index}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in BATCHES[index] + GRAPH[index]))
    stamp = 1_700_000_000 + 10 * index
    os.utime(path, (stamp, stamp))


def published_view(out: Path, view: str) -> dict[Any, int]:
    """The newest complete snapshot of ``view`` (``OUTPUT/NAME/view/_LATEST``, marked
    published), read by pyarrow: a reduce view's accumulator per key, the reach view's rank
    per node."""
    import pyarrow.parquet as pq

    folder = out / view.replace(":", "-") / "view"
    snapshot = folder / (folder / "_LATEST").read_text().strip()
    assert (snapshot / "_PUBLISHED").exists(), snapshot
    table = pq.read_table(snapshot)
    key, value = ("node", "rank") if view == "reach" else ("key", "accumulator")
    return {k: int(a) for k, a in zip(table.column(key).to_pylist(), table.column(value).to_pylist(), strict=True)}


@dataclass
class PipelineRuns:
    """Two runs of ``incspec pipeline`` on the cluster, the second after a second file came."""

    work: Path
    checkpoint: Path
    runs: list[Scenario]
    views: list[dict[str, dict[Any, int]]]


@pytest.fixture(scope="module")
def pipeline_runs(cluster: Cluster, tmp_path_factory: pytest.TempPathFactory) -> PipelineRuns:
    """A first run over file 0, a second (a new application: new executors, whose local
    folders the worker deleted with the first) over files 0 and 1; the views after each."""
    work = tmp_path_factory.mktemp("pipeline")
    shared = work / "shared"
    args = ["-m", "spark_impl.pipeline", "--input", str(work / "in"), "--output", f"file://{work / 'out'}",
            "--checkpoint", f"file://{shared / 'views'}"]
    for view in VIEWS:
        args += ["--view", view]
    runs, views = [], []
    for index in range(len(BATCHES)):
        write_batch(work / "in", index)
        run = cluster.run(args, cwd=work, checkpoint=f"file://{shared / 'rdd'}")
        assert run.returncode == 0, cluster.explain(run)
        runs.append(run)
        views.append({view: published_view(work / "out", view) for view in VIEWS})
    return PipelineRuns(work, shared, runs, views)


@pytest.mark.spec("SKIP-DEC-SPARK-STATE", evidence="example")
def test_a_sum_view_over_two_batches_equals_the_recomputation(pipeline_runs: PipelineRuns) -> None:
    """reduce:sum after each run equals the sum recomputed from the files read so far, the
    second run starting from the state the first application left in the checkpoint."""
    assert [v["reduce:sum"] for v in pipeline_runs.views] == [
        recomputed("reduce:sum", BATCHES[:1]), recomputed("reduce:sum", BATCHES)]


def test_b_min_view_runs_its_fold_on_the_executor(pipeline_runs: PipelineRuns) -> None:
    """reduce:min is a fold reducer: KeyedFold and its add and remove, pickled by reference,
    run in the executor's Python workers (which import spark_impl from the shipped zip).
    The second file removes the minima of a and b (the fold declines and refolds the key: a's
    next value, b's other copy) and c's only value."""
    first, second = recomputed("reduce:min", BATCHES[:1]), recomputed("reduce:min", BATCHES)
    assert second == {"a": 5, "b": -3, "d": 1, "e": 11}
    assert [v["reduce:min"] for v in pipeline_runs.views] == [first, second]


def test_the_reach_view_resumes_from_the_state_saved_by_the_first_application(
        pipeline_runs: PipelineRuns) -> None:
    """The reach view (the fixpoint engine per micro-batch) after each run is the set of
    nodes reachable in the graph files read so far; the second application restored the
    engine's state from what the first saved under the checkpoint: the cut edge 1 -> 2 is
    only in that state, and 2 leaves."""
    assert [set(v["reach"]) for v in pipeline_runs.views] == [live_nodes(GRAPH[:1]), live_nodes(GRAPH)]
    assert [set(v["reach"]) for v in pipeline_runs.views] == [{1, 2, 3}, {1, 3, 4}]


def state_files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def test_d_the_views_state_lives_in_the_checkpoint_location(cluster: Cluster, pipeline_runs: PipelineRuns) -> None:
    """Each view's committed micro-batches and state (a reduce view's state store versions, the
    reach view's saved tables) are under the given checkpoint location (two micro-batches, one
    per run), the reach engine's stored tables under $INCSPEC_CHECKPOINT_DIR; the worker's folders hold no
    state: each executor's working folder only its logs and the shipped packages, and its
    local folders were deleted by the worker as each application ended."""
    for view in VIEWS[:2]:
        folder = pipeline_runs.checkpoint / "views" / view.replace(":", "-")
        files = state_files(folder)
        assert {"commits/0", "commits/1", "offsets/0", "offsets/1"} <= set(files), files
        assert any(re.match(r"state/0/\d+/.*\.(changelog|zip)$", f) for f in files), files
    reach = state_files(pipeline_runs.checkpoint / "views" / "reach")
    assert {"commits/0", "commits/1", "reach-state/_LATEST", "reach-state/v=1/tables.json"} <= set(reach), reach
    for table in ("roots", "edges", "live", "segments"):
        assert any(re.match(rf"reach-state/base-\d+/{table}/.*\.parquet$", f) for f in reach), reach
    engine_tables = [f for f in state_files(pipeline_runs.checkpoint / "rdd") if re.search(r"/rdd-\d+/part-\d+$", f)]
    assert engine_tables, "the reach view's engine wrote no reliable checkpoint under $INCSPEC_CHECKPOINT_DIR"
    executors = sorted(p for p in cluster.standalone.worker_dir.glob("*/app-*/*") if p.is_dir())
    assert {e.parent.parent.name for e in executors} == set(cluster.standalone.worker_names()), (
        "an executor on each worker", executors)
    for executor in executors:
        names = {p.name for p in executor.iterdir()}
        assert names - {"stdout", "stderr"} and all(
            re.fullmatch(r"incspec-packages-[0-9a-f]+\.zip", n) for n in names - {"stdout", "stderr"}), names
    # the worker deleted each application's local folders when it ended: whatever the second
    # run found of the first's state, it found in the checkpoint location
    assert state_files(cluster.standalone.worker_local_dir) == []



def bfs_ranks(roots: set[int], edges: set[Edge]) -> dict[int, int]:
    """Each reachable node's distance from the roots (the live set with make's ranks)."""
    rank = dict.fromkeys(roots, 0)
    queue = deque(sorted(roots))
    while queue:
        u = queue.popleft()
        for x, v in sorted(edges):
            if x == u and v not in rank:
                rank[v] = rank[u] + 1
                queue.append(v)
    return rank


def random_graph(seed: int) -> tuple[set[int], set[Edge], dict[str, list[Any]]]:
    rng = random.Random(seed)
    edges = {(rng.randrange(30), rng.randrange(30)) for _ in range(45)}
    roots = {0, 1}
    removed = sorted(rng.sample(sorted(edges), 6))
    added = sorted({(rng.randrange(30), rng.randrange(30)) for _ in range(4)} - edges)
    batch: dict[str, list[Any]] = {"add_roots": [7], "remove_roots": [1], "add_edges": added,
                                   "remove_edges": removed}
    return roots, edges, batch


def test_c_fixpoint_make_and_update_on_the_cluster(cluster: Cluster, tmp_path: Path) -> None:
    """The reachability engine's make then one batch: the live set and its ranks are the
    breadth-first distances after make; after the batch the live set is the fixpoint of the
    changed graph, every rank justified (a root 0, any other above one of its live
    derivers), and the delta the difference. The executor's Python imports the project
    from the shipped zip in the executor's working folder. The engine's stored tables are reliable checkpoints
    under $INCSPEC_CHECKPOINT_DIR, none under the executor's local folders."""
    roots, edges, batch = random_graph(20261127)
    graph = {"roots": sorted(roots), "edges": sorted(edges), "batch": batch}
    (tmp_path / "graph.json").write_text(json.dumps(graph))
    checkpoint = tmp_path / "shared" / "ckpt"
    run = cluster.run(["-m", "tests.cluster.fixpoint_scenario", str(tmp_path / "graph.json"),
                       str(tmp_path / "result.json"), str(cluster.standalone.worker_local_dir)],
                      cwd=tmp_path, checkpoint=f"file://{checkpoint}")
    assert run.returncode == 0, cluster.explain(run)
    result = json.loads((tmp_path / "result.json").read_text())
    made = {int(n): r for n, r in result["made"].items()}
    assert made == bfs_ranks(roots, edges)
    new_roots = (roots | set(batch["add_roots"])) - set(batch["remove_roots"])
    new_edges = (edges - {tuple(e) for e in batch["remove_edges"]}) | {tuple(e) for e in batch["add_edges"]}
    updated = {int(n): r for n, r in result["updated"].items()}
    assert set(updated) == set(bfs_ranks(new_roots, new_edges))
    for node, rank in updated.items():
        if node in new_roots:
            assert rank == 0, (node, rank)
        else:
            assert any(v == node and u in updated and updated[u] < rank for u, v in new_edges), (node, rank)
    assert (set(result["added"]), set(result["removed"])) == (set(updated) - set(made), set(made) - set(updated))
    assert set(made) != set(updated)  # the batch changes the live set: the update did work
    imported = Path(result["executor_import"])
    assert re.fullmatch(r"incspec-packages-[0-9a-f]+\.zip", imported.parent.parent.name), imported
    assert imported.is_relative_to(cluster.standalone.worker_dir), imported  # an executor's working folder
    location = result["checkpoint_dir"]
    assert location.startswith(f"file:{checkpoint}/"), location
    parts = [f for f in state_files(checkpoint) if re.search(r"/rdd-\d+/part-\d+$", f)]
    assert parts, state_files(checkpoint)
    assert result["executor_files"], "the executor's local folder was empty while the application ran"
    assert not [f for f in result["executor_files"] if re.search(r"(^|/)rdd-\d+/", f)], result["executor_files"]
