"""The engines on a standalone cluster (tests/cluster/conftest.py): a driver process, one
worker's executor in another JVM with Python workers of its own, state at
``$INCSPEC_CHECKPOINT_DIR`` (a ``file://`` folder: on one machine every process sees it).

Each scenario is an application of its own, in a process of its own, started in a scratch
folder with the project on the driver's path alone: an executor imports the project from
the zip the session ships (spark_impl/shipping.py). Results are read back without Spark
(pyarrow), and compared with views computed here from the inputs.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import threading
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


class FolderWatch:
    """The paths (files and folders, relative) seen under ``folder`` while the watch runs,
    looked at every :data:`WATCH_INTERVAL` seconds on a thread of its own: an executor's local
    folders live only as long as its application."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.seen = folder, set[str]()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _look(self) -> None:
        self.seen |= {str(p.relative_to(self.folder)) for p in self.folder.rglob("*")}

    def _watch(self) -> None:
        while not self._stop.wait(WATCH_INTERVAL):
            with contextlib.suppress(FileNotFoundError):  # a folder deleted while listed
                self._look()

    def __enter__(self) -> FolderWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


#: how often the executors' local folders are listed while the pipeline runs go
WATCH_INTERVAL = 0.2


@dataclass
class PipelineRuns:
    """Two runs of ``incspec pipeline`` on the cluster, the second after a second file came;
    the paths seen under the workers' local folders while they ran."""

    work: Path
    checkpoint: Path
    runs: list[Scenario]
    views: list[dict[str, dict[Any, int]]]
    executor_local: set[str]


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
    with FolderWatch(cluster.standalone.worker_local_dir) as local:
        for index in range(len(BATCHES)):
            write_batch(work / "in", index)
            run = cluster.run(args, cwd=work, checkpoint=f"file://{shared / 'rdd'}")
            assert run.returncode == 0, cluster.explain(run)
            runs.append(run)
            views.append({view: published_view(work / "out", view) for view in VIEWS})
    return PipelineRuns(work, shared, runs, views, local.seen)


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
    local folders, which held no reliable checkpoint (``rdd-N``) while the runs went, were
    deleted by the worker as each application ended."""
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
    seen = pipeline_runs.executor_local
    assert any(re.match(r"worker-\d+/", p) for p in seen), "no executor's local folder seen while the runs went"
    assert not [p for p in seen if re.search(r"(^|/)rdd-\d+(/|$)", p)], sorted(seen)
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


#: an application over small data (as the conformance adapter's) that asks an executor's Python
#: worker where it imports ``spark_impl`` from, and which options its executor's JVM was started
#: with (the worker's nearest ancestor process running ``CoarseGrainedExecutorBackend``). Run
#: as ``__main__``: the function is pickled by value, not by reference to this file.
EXECUTOR_PROBE = """
import json
from spark_impl.session import build_session

def probe(_):
    import os, spark_impl
    pid, jvm = os.getpid(), []
    while pid > 1 and not jvm:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            args = f.read().decode().split(chr(0))
        jvm = args if "org.apache.spark.executor.CoarseGrainedExecutorBackend" in args else []
        with open(f"/proc/{pid}/stat") as f:
            pid = int(f.read().rsplit(")", 1)[1].split()[1])
    return {"import": os.path.abspath(spark_impl.__file__), "jvm": jvm}

spark = build_session(app_name="incspec-cluster-executor-probe", small_data=True)
try:
    [found] = spark.sparkContext.parallelize([0], 1).map(probe).collect()
    print(json.dumps(found))
finally:
    spark.stop()
"""


@pytest.fixture(scope="module")
def executor_probe(cluster: Cluster, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """:data:`EXECUTOR_PROBE`'s answer, its driver run without the tier's short-lived JVM
    options (so that its executors' are the small-data session's own)."""
    work = tmp_path_factory.mktemp("executor-probe")
    run = cluster.run(["-c", EXECUTOR_PROBE], cwd=work, checkpoint=f"file://{work / 'ckpt'}", short_lived=False)
    assert run.returncode == 0, cluster.explain(run)
    found: dict[str, Any] = json.loads(run.stdout.strip().splitlines()[-1])
    return found


def test_c_an_executor_imports_the_project_from_the_shipped_zip(cluster: Cluster,
                                                                executor_probe: dict[str, Any]) -> None:
    """An executor's Python worker imports ``spark_impl`` from the zip the session shipped
    into the executor's working folder, not from wherever the project is installed (the driver
    runs in a scratch folder with the project on its own path alone). It failed with nothing
    shipped: the executor imported a stale checkout the environment's install pointed at."""
    imported = Path(executor_probe["import"])
    assert imported.name == "__init__.py" and imported.parent.name == "spark_impl", imported
    assert re.fullmatch(r"incspec-packages-[0-9a-f]+\.zip", imported.parent.parent.name), imported
    assert imported.is_relative_to(cluster.standalone.worker_dir), imported  # an executor's working folder


def test_c_a_small_data_sessions_executors_run_the_client_compiler_alone(executor_probe: dict[str, Any]) -> None:
    """A small-data session (the conformance adapter's) starts its executors' JVMs with
    :data:`~spark_impl.session.SMALL_DATA_EXECUTOR_JAVA_OPTIONS` (HotSpot's C1 alone): the
    executor's own command line says so."""
    from spark_impl.session import SMALL_DATA_EXECUTOR_JAVA_OPTIONS

    jvm = executor_probe["jvm"]
    assert "org.apache.spark.executor.CoarseGrainedExecutorBackend" in jvm, jvm
    assert set(SMALL_DATA_EXECUTOR_JAVA_OPTIONS.split()) <= set(jvm), jvm
