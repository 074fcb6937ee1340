"""``incspec pipeline`` on Structured Streaming: right views, nothing lost.

The expected view is a from-scratch fold of the input files in plain Python
(``fold_inputs``), never the pipeline's own output.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from tests.profiles import scenario_bound
from tests.spark.spark_process import ROOT, SLOW_RUN_LIMIT, application_env

pytestmark = pytest.mark.spark


Rows = list[dict[str, Any]]


def write_batch(folder: Path, name: str, rows: Rows, order: int) -> Path:
    """A JSON-lines change file whose modification time is its position ``order``
    (the streaming file source takes files oldest first), written aside and renamed into place."""
    folder.mkdir(parents=True, exist_ok=True)
    path, aside = folder / name, folder / f".{name}.tmp"  # a hidden file: the source skips it
    aside.write_text("".join(json.dumps(r) + "\n" for r in rows))
    stamp = 1_700_000_000 + 10 * order
    os.utime(aside, (stamp, stamp))
    aside.rename(path)  # whole at once: a --follow run may list the folder at any moment
    return path


def multisets(batches: Iterable[Rows]) -> dict[str, dict[int, int]]:
    """Each key's multiset of values after the batches, from scratch (keys left empty dropped)."""
    held: dict[str, dict[int, int]] = {}
    for rows in batches:
        for r in rows:
            values = held.setdefault(r["key"], {})
            values[int(r["value"])] = values.get(int(r["value"]), 0) + int(r.get("weight", 1))
    return {k: {v: n for v, n in vs.items() if n} for k, vs in held.items() if any(vs.values())}


def fold_inputs(batches: Iterable[Rows]) -> dict[str, int]:
    """The sum view of the batches, from scratch: Σ value·weight per key with values left."""
    return {k: sum(v * n for v, n in vs.items()) for k, vs in multisets(batches).items()}


def min_inputs(batches: Iterable[Rows]) -> dict[str, int]:
    """The min view of the batches, from scratch."""
    return {k: min(vs) for k, vs in multisets(batches).items()}


def view_of(spark: Any, out: Path, name: str = "reduce-sum") -> dict[str, int]:
    from spark_impl.pipeline import read_view

    return {r["key"]: int(r["accumulator"]) for r in read_view(spark, str(out), name).collect()}


def changes_of(spark: Any, out: Path, batch_id: int, name: str = "reduce-sum") -> list[tuple[Any, ...]]:
    """The changes micro-batch ``batch_id`` of a reduce view published, sorted: ``key``,
    ``present``, ``accumulator`` (an integer, or None)."""
    from spark_impl.pipeline import read_changes

    return sorted((r["key"], r["present"], r["accumulator"] and int(r["accumulator"]))
                  for r in read_changes(spark, str(out), name, batch_id).collect())


def run(spark: Any, inp: Path, out: Path, *, quarantine: bool = False, reducer: str = "sum",
        files_per_batch: int = 1, log: Any = lambda _: None, compaction_floor: int | None = None,
        path: str = "stream") -> int:
    from spark_impl.pipeline import ViewSpec
    from spark_impl.pipeline import run as run_pipeline
    from spark_impl.reduce.group_generations import COMPACTION_FLOOR

    spark.conf.unset("spark.sql.files.ignoreMissingFiles")
    return run_pipeline(spark, str(inp), str(out), None, [ViewSpec("reduce", reducer)],
                        quarantine=quarantine, files_per_batch=files_per_batch, log=log,
                        compaction_floor=COMPACTION_FLOOR if compaction_floor is None else compaction_floor,
                        reduce_path=path)


#: the reduce views' two paths (``--reduce-path``): the state store, and tables merged in bulk
#: (SKIP-DEC-SPARK-BULK)
PATHS = ["stream", "bulk"]


BATCHES: list[Rows] = [
    [{"key": "a", "value": 3}, {"key": "a", "value": 5}, {"key": "b", "value": 1, "weight": 2}],
    [{"key": "a", "value": 3, "weight": -1}, {"key": "c", "value": 4}],
    [{"key": "b", "value": 1, "weight": -1}, {"key": "a", "value": 7}],
]


@pytest.mark.spec("SKIP-DEF-9", "SKIP-DEF-10", "SKIP-DEC-SPARK-STATE", evidence="example")
@pytest.mark.parametrize("path", PATHS)
@pytest.mark.heavy
def test_views_and_changes_of_each_batch(spark: Any, tmp_path: Path, path: str) -> None:
    inp, out = tmp_path / "in", tmp_path / "out"
    for i, rows in enumerate(BATCHES):
        write_batch(inp, f"b{i}.jsonl", rows, i)
    assert run(spark, inp, out, path=path) == 0
    assert view_of(spark, out) == fold_inputs(BATCHES) == {"a": 12, "b": 1, "c": 4}
    assert [changes_of(spark, out, b) for b in range(3)] == CHANGES


#: the changes each of :data:`BATCHES` makes to the sum view
CHANGES = [[("a", True, 8), ("b", True, 2)], [("a", True, 5), ("c", True, 4)],
           [("a", True, 12), ("b", True, 1)]]


@pytest.mark.spec("SKIP-DEC-SPARK-STATE", evidence="example")
@pytest.mark.heavy
def test_a_partial_change_folder_is_never_taken_as_published(spark: Any, tmp_path: Path) -> None:
    """A folder ``batch=1`` holding a data file and no marker (what a crash leaves amid an
    object store's rename, which copies a folder file by file) is there when micro-batch 1
    runs: a reader does not see it, and the run deletes it and publishes the micro-batch's
    changes whole. (The folder alone was taken as published: micro-batch 1's changes were
    never written, the stray file read as them.)"""
    from spark_impl.pipeline import published_batches

    inp, out = tmp_path / "in", tmp_path / "out"
    write_batch(inp, "b0.jsonl", BATCHES[0], 0)
    assert run(spark, inp, out) == 0
    changes = out / "reduce-sum" / "changes"
    stray = sorted(p for p in (changes / "batch=0").iterdir() if p.name.endswith(".parquet"))[0]
    (changes / "batch=1").mkdir()
    shutil.copy(stray, changes / "batch=1" / stray.name)
    assert published_batches(spark, str(out), "reduce-sum") == [0]
    for i in (1, 2):
        write_batch(inp, f"b{i}.jsonl", BATCHES[i], i)
    assert run(spark, inp, out) == 0
    assert [changes_of(spark, out, b) for b in range(3)] == CHANGES
    assert published_prefixes(spark, out, BATCHES) == [1, 2, 3]


@pytest.mark.spec("SKIP-DEC-SPARK-STATE", evidence="example")
@pytest.mark.heavy
def test_an_output_written_without_markers_is_marked_at_the_next_run(spark: Any, tmp_path: Path) -> None:
    """An output published before markers (no ``_PUBLISHED`` anywhere): nothing of it is
    read; the next run marks the changes of the micro-batches its checkpoint committed and
    the snapshot ``_LATEST`` names, and goes on."""
    from spark_impl.pipeline import MARKER, published_batches, read_view

    inp, out = tmp_path / "in", tmp_path / "out"
    for i in (0, 1):
        write_batch(inp, f"b{i}.jsonl", BATCHES[i], i)
    assert run(spark, inp, out) == 0
    for marker in (out / "reduce-sum").rglob(MARKER):
        marker.unlink()
    assert published_batches(spark, str(out), "reduce-sum") == []
    with pytest.raises(FileNotFoundError, match=MARKER):
        read_view(spark, str(out), "reduce-sum")
    write_batch(inp, "b2.jsonl", BATCHES[2], 2)
    assert run(spark, inp, out) == 0
    assert [changes_of(spark, out, b) for b in range(3)] == CHANGES
    assert view_of(spark, out) == fold_inputs(BATCHES)


@pytest.mark.spec("SKIP-DEC-SPARK-STATE", evidence="example")
@pytest.mark.parametrize("path", PATHS)
def test_committed_inputs_are_never_read_again(spark: Any, tmp_path: Path, path: str) -> None:
    """A processed file deleted, another rewritten, then new batches: the views are
    those of the inputs as they were when processed."""
    inp, out = tmp_path / "in", tmp_path / "out"
    paths = [write_batch(inp, f"b{i}.jsonl", rows, i) for i, rows in enumerate(BATCHES[:2])]
    assert run(spark, inp, out, path=path) == 0
    paths[0].unlink()
    paths[1].write_text(json.dumps({"key": "zzz", "value": 1000}) + "\n")
    os.utime(paths[1], (1_700_000_010, 1_700_000_010))
    write_batch(inp, "b2.jsonl", BATCHES[2], 2)
    assert run(spark, inp, out, path=path) == 0
    assert view_of(spark, out) == fold_inputs(BATCHES)


@pytest.mark.spec("SKIP-DEF-8", "SKIP-DEC-SPARK-STATE", evidence="example")
@pytest.mark.parametrize("path", PATHS)
@pytest.mark.heavy
def test_an_invalid_batch_is_refused_then_quarantined(spark: Any, tmp_path: Path, path: str) -> None:
    inp, out = tmp_path / "in", tmp_path / "out"
    write_batch(inp, "b0.jsonl", BATCHES[0], 0)
    bad = write_batch(inp, "b1.jsonl", [{"key": "a", "value": 3, "weight": -2}], 1)  # a holds one 3
    write_batch(inp, "b2.jsonl", BATCHES[1], 2)
    messages: list[str] = []
    from spark_impl.pipeline import REFUSED, ViewSpec
    from spark_impl.pipeline import run as run_pipeline

    status = run_pipeline(spark, str(inp), str(out), None, [ViewSpec("reduce", "sum")],
                          log=messages.append, reduce_path=path)
    assert status == REFUSED
    refusal = next(m for m in messages if "refused" in m)
    assert "b1.jsonl" in refusal and "'a'" in refusal and "1 time(s)" in refusal and "2 time(s)" in refusal
    assert view_of(spark, out) == fold_inputs(BATCHES[:1])  # the view as before the refused batch
    assert bad.exists()
    assert run(spark, inp, out, quarantine=True, path=path) == 0
    assert not bad.exists() and (out / "_quarantine" / "b1.jsonl").exists()
    assert view_of(spark, out) == fold_inputs([BATCHES[0], BATCHES[1]])


ADD_THEN_REPLACE: list[Rows] = [
    [{"key": "a", "value": 3}, {"key": "b", "value": 1}],
    [{"key": "a", "value": 3, "weight": -1}, {"key": "a", "value": 4}],  # removes what file 0 added
]


@pytest.mark.parametrize("reducer,fold", [("sum", fold_inputs), ("min", min_inputs)])
@pytest.mark.parametrize("path", PATHS)
@pytest.mark.spec("SKIP-DEC-SPARK-PARTS", "SKIP-DEF-8", evidence="example")
def test_files_of_one_micro_batch_are_applied_in_order(spark: Any, tmp_path: Path, reducer: str,
                                                       fold: Any, path: str) -> None:
    """Two files in one micro-batch, the second removing a value the first added:
    accepted (each file is checked against what the files before it leave)."""
    inp, out = tmp_path / "in", tmp_path / "out"
    for i, rows in enumerate(ADD_THEN_REPLACE):
        write_batch(inp, f"b{i}.jsonl", rows, i)
    assert run(spark, inp, out, reducer=reducer, files_per_batch=2, path=path) == 0
    assert [p.name for p in (out / f"reduce-{reducer}" / "changes").iterdir()] == ["batch=0"]
    assert view_of(spark, out, f"reduce-{reducer}") == fold(ADD_THEN_REPLACE) == {"a": 4, "b": 1}


@pytest.mark.parametrize("reducer", ["sum", "min"])
@pytest.mark.parametrize("path", PATHS)
@pytest.mark.spec("SKIP-DEC-SPARK-PARTS", "SKIP-DEF-8", evidence="example")
def test_a_file_removing_what_a_later_file_adds_is_refused(spark: Any, tmp_path: Path,
                                                          reducer: str, path: str) -> None:
    """The same two files, the removing one first (older): refused, naming that file,
    though the micro-batch's net change is valid."""
    inp, out = tmp_path / "in", tmp_path / "out"
    remover = write_batch(inp, "b0.jsonl", ADD_THEN_REPLACE[1], 0)
    write_batch(inp, "b1.jsonl", ADD_THEN_REPLACE[0], 1)
    messages: list[str] = []
    assert run(spark, inp, out, reducer=reducer, files_per_batch=2, log=messages.append, path=path) == 3
    refusal = next(m for m in messages if "refused" in m)
    assert remover.name in refusal and "'a'" in refusal and "0 time(s)" in refusal
    assert "holds value 3 0 time(s)" in refusal  # the value itself, not its JSON text


@pytest.mark.spec("SKIP-DEC-SPARK-BULK", evidence="example")
def test_a_checkpoint_of_one_path_is_refused_by_the_other(spark: Any, tmp_path: Path) -> None:
    """A reduce view's state is its path's: a run on the other path says so in one line and
    starts nothing (exit status 2); on its own path the view goes on."""
    inp, out = tmp_path / "in", tmp_path / "out"
    write_batch(inp, "b0.jsonl", BATCHES[0], 0)
    assert run(spark, inp, out, path="bulk") == 0
    write_batch(inp, "b1.jsonl", BATCHES[1], 1)
    messages: list[str] = []
    assert run(spark, inp, out, path="stream", log=messages.append) == 2
    assert messages == ["pipeline: reduce-sum: its checkpoint holds the bulk path's state; run it "
                        "with --reduce-path bulk, or with another checkpoint"]
    assert view_of(spark, out) == fold_inputs(BATCHES[:1])
    assert run(spark, inp, out, path="bulk") == 0
    assert view_of(spark, out) == fold_inputs(BATCHES[:2])
    other, messages = tmp_path / "other", []
    assert run(spark, inp, other, path="stream") == 0
    assert run(spark, inp, other, path="bulk", log=messages.append) == 2
    assert "holds the stream path's state" in messages[0]


def test_a_min_view_keeps_its_bucket_count_across_runs(spark: Any, tmp_path: Path) -> None:
    """A fold view's bucket count is recorded in its checkpoint at the first run (the
    session's shuffle partitions) and kept by the next, whatever the session says then."""
    inp, out = tmp_path / "in", tmp_path / "out"
    write_batch(inp, "b0.jsonl", BATCHES[0], 0)
    assert run(spark, inp, out, reducer="min") == 0
    partitions = int(spark.conf.get("spark.sql.shuffle.partitions"))
    recorded = out / "_checkpoint" / "reduce-min" / "fold-buckets.json"
    record = {"buckets": partitions, "layout": 2}  # the state's layout with it (keyed_fold.STATE_LAYOUT)
    assert json.loads(recorded.read_text()) == record
    write_batch(inp, "b1.jsonl", BATCHES[1], 1)
    spark.conf.set("spark.sql.shuffle.partitions", str(partitions + 1))
    try:
        assert run(spark, inp, out, reducer="min") == 0
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", str(partitions))
    assert json.loads(recorded.read_text()) == record
    assert view_of(spark, out, "reduce-min") == min_inputs(BATCHES[:2]) == {"a": 5, "b": 1, "c": 4}


def random_batches(seed: int, count: int) -> list[Rows]:
    """Valid batches: inserts of random values and deletions of live ones."""
    rng = random.Random(seed)
    live: list[tuple[str, int]] = []
    batches: list[Rows] = []
    for _ in range(count):
        rows: Rows = []
        added: list[tuple[str, int]] = []
        for _ in range(rng.randint(1, 6)):
            if live and rng.random() < 0.4:  # only values present before the batch (Δ⁻ ⊆ C)
                key, value = live.pop(rng.randrange(len(live)))
                rows.append({"key": key, "value": value, "weight": -1})
            else:
                key, value = f"k{rng.randint(0, 5)}", rng.randint(-50, 50)
                added.append((key, value))
                rows.append({"key": key, "value": value, "weight": 1})
        live += added
        batches.append(rows)
    return batches


def random_graph_batches(seed: int, count: int, nodes: int = 8) -> list[Rows]:
    """Valid graph edits for the reach view: edges and roots added when absent and removed
    when present, none touched twice in one file."""
    rng = random.Random(seed)
    edges: set[tuple[int, int]] = set()
    roots: set[int] = set()
    batches: list[Rows] = []
    for _ in range(count):
        rows: Rows = []
        touched: set[tuple[int, int]] = set()
        for _ in range(rng.randint(1, 5)):
            if rng.random() < 0.25:  # a root (kept as an edge of src to itself in ``touched``)
                node = rng.randrange(nodes)
                if (node, node) in touched:
                    continue
                touched.add((node, node))
                weight = -1 if node in roots else 1
                (roots.discard if weight < 0 else roots.add)(node)
                rows.append({"kind": "root", "src": node, "dst": None, "weight": weight})
                continue
            if edges and rng.random() < 0.35:
                edge = sorted(edges)[rng.randrange(len(edges))]
            else:
                edge = (rng.randrange(nodes), rng.randrange(nodes))
            if edge in touched or edge[0] == edge[1]:
                continue
            touched.add(edge)
            weight = -1 if edge in edges else 1
            (edges.discard if weight < 0 else edges.add)(edge)
            rows.append({"kind": "edge", "src": edge[0], "dst": edge[1], "weight": weight})
        batches.append(rows)
    return batches


def reach_inputs(batches: Iterable[Rows]) -> set[int]:
    """The nodes reachable from the roots after the graph edits, from scratch."""
    edges: dict[tuple[int, int], int] = {}
    roots: dict[int, int] = {}
    for rows in batches:
        for r in rows:
            if r["kind"] == "root":
                roots[r["src"]] = roots.get(r["src"], 0) + r["weight"]
            else:
                edges[(r["src"], r["dst"])] = edges.get((r["src"], r["dst"]), 0) + r["weight"]
    live = {n for n, count in roots.items() if count > 0}
    frontier = set(live)
    while frontier:
        frontier = {d for (s, d), count in edges.items() if count > 0 and s in frontier} - live
        live |= frontier
    return live


def reach_of(spark: Any, out: Path) -> set[int]:
    from spark_impl.pipeline import read_view

    return {r["node"] for r in read_view(spark, str(out), "reach").collect()}


def published_reach_prefixes(spark: Any, out: Path, batches: list[Rows]) -> list[int]:
    """As :func:`published_prefixes`, for the reach view: micro-batches numbered 0, 1, ...
    with none missing, each adding only nodes not live and removing only live ones, each
    leaving the live set of a longer prefix of the input files. Returns those lengths. Only
    published folders (marked) are read."""
    from spark_impl.pipeline import published_batches, read_changes

    ids = published_batches(spark, str(out), "reach")
    assert ids == list(range(len(ids)))
    prefix_views = [reach_inputs(batches[:j]) for j in range(len(batches) + 1)]
    live: set[int] = set()
    lengths: list[int] = []
    for b in ids:
        rows = read_changes(spark, str(out), "reach", b).collect()
        nodes = [r["node"] for r in rows]
        assert len(nodes) == len(set(nodes)), f"micro-batch {b} names a node twice"
        for r in rows:
            assert (r["node"] in live) != r["added"], f"micro-batch {b}: {r} changes nothing"
            (live.add if r["added"] else live.discard)(r["node"])
        start = lengths[-1] + 1 if lengths else 1
        matches = [j for j in range(start, len(prefix_views)) if prefix_views[j] == live]
        assert matches, f"after micro-batch {b} the live set {sorted(live)} is no prefix's"
        lengths.append(matches[0])
    return lengths


#: kills per run of the test (:func:`tests.profiles.scenario_bound`: 8 under dev and ci, 20
#: under thorough); :mod:`tests.spark.pipeline_killer` chooses their moments
KILLS = scenario_bound(ci=8, thorough=20)
#: the views the kill test maintains in one run: a group reducer, a fold reducer, reach
KILLED_VIEWS = ("reduce:sum", "reduce:min", "reach")


def check_killed_views(spark: Any, out: Path, views: Iterable[str], batches: list[Rows],
                       graph: list[Rows]) -> None:
    """Each of ``views`` (of :data:`KILLED_VIEWS`) under ``out`` equals its from-scratch
    fold, and its published changes lead, exactly and with none missing, through the views
    of longer and longer prefixes of the input files to the whole's (two prefixes may have
    one view: the last change's prefix is the first that has the whole's)."""
    folds = {"reduce:sum": fold_inputs, "reduce:min": min_inputs}
    for view in views:
        if view == "reach":
            assert reach_of(spark, out) == reach_inputs(graph), "the reach view"
            last = published_reach_prefixes(spark, out, graph)[-1]
            assert reach_inputs(graph[:last]) == reach_inputs(graph), "the reach view's changes"
            continue
        name, fold = "reduce-" + view.split(":")[1], folds[view]
        assert view_of(spark, out, name) == fold(batches), f"the {view} view"
        last = published_prefixes(spark, out, batches, name, fold)[-1]
        assert fold(batches[:last]) == fold(batches), f"the {view} view's changes"


def write_killed_inputs(inp: Path, batches: list[Rows], graph: list[Rows]) -> None:
    """File ``i`` holds reduce batch ``i`` and graph batch ``i`` (each view reads its rows)."""
    for i, (rows, edits) in enumerate(zip(batches, graph, strict=True)):
        write_batch(inp, f"b{i:02d}.jsonl", rows + edits, i)


@pytest.mark.slow  # 8 (thorough: 20) killed pipeline processes of three views: 8 (20) minutes
@pytest.mark.spec("SKIP-DEC-SPARK-STATE", evidence="example")  # (its reach view: FIX-DEC-SPARK-STATE too; a check cites one paper)
def test_kill_9_at_random_moments_loses_nothing(spark: Any, tmp_path: Path) -> None:
    """``kill -9`` of the whole pipeline process group at :data:`KILLS` random moments (8;
    20 under the thorough profile) spread over
    its start, its micro-batches' writes, its snapshots and its end
    (:mod:`tests.spark.pipeline_killer`), of a run maintaining a sum, a min (a fold
    reducer) and a reach view over the same files, each run restarted until one finishes:
    every run that ends by itself exits 0, each final view equals an uninterrupted run's
    and its from-scratch fold, and every micro-batch's changes were published exactly once
    (none missing, each exact, together leading through the views of the files in order)."""
    from spark_impl.pipeline import ViewSpec
    from spark_impl.pipeline import run as run_pipeline
    from tests.spark.pipeline_killer import run_with_kills

    batches, graph = random_batches(seed=20261124, count=12), random_graph_batches(seed=20261127, count=12)
    inp, out, clean = tmp_path / "in", tmp_path / "out", tmp_path / "clean"
    write_killed_inputs(inp, batches, graph)
    specs = [ViewSpec.parse(v) for v in KILLED_VIEWS]
    assert run_pipeline(spark, str(inp), str(clean), None, specs, log=lambda _: None) == 0
    check_killed_views(spark, clean, KILLED_VIEWS, batches, graph)
    every_file = list(range(1, len(batches) + 1))  # uninterrupted, each file its micro-batch
    assert published_prefixes(spark, clean, batches) == published_reach_prefixes(spark, clean, graph) == every_file
    run_with_kills(inp, out, KILLED_VIEWS, KILLS, random.Random(7), tmp_path)
    check_killed_views(spark, out, KILLED_VIEWS, batches, graph)  # a restart may group files (SKIP-DEC-SPARK-PARTS)


#: the views the bulk path's kill test maintains: a group reducer and a fold reducer
BULK_KILLED_VIEWS = ("reduce:sum", "reduce:min")


@pytest.mark.slow  # 8 (thorough: 20) killed pipeline processes of two views: about 2 minutes
@pytest.mark.spec("SKIP-DEC-SPARK-BULK", evidence="example")
def test_kill_9_at_random_moments_loses_nothing_on_the_bulk_path(spark: Any, tmp_path: Path) -> None:
    """The kill test above with the reduce views on the bulk path (``--reduce-path bulk``):
    killed amid a step's table writes, between its publication and its manifest, or between
    its manifest and Spark's commit, a run started again neither loses nor applies twice a
    micro-batch, and publishes each micro-batch's changes exactly once."""
    from tests.spark.pipeline_killer import run_with_kills

    batches = random_batches(seed=20261207, count=12)
    inp, out = tmp_path / "in", tmp_path / "out"
    for i, rows in enumerate(batches):
        write_batch(inp, f"b{i:02d}.jsonl", rows, i)
    run_with_kills(inp, out, BULK_KILLED_VIEWS, KILLS, random.Random(11), tmp_path,
                   ("--reduce-path", "bulk"))
    check_killed_views(spark, out, BULK_KILLED_VIEWS, batches, [])  # a restart may group files


def published_prefixes(spark: Any, out: Path, batches: list[Rows], name: str = "reduce-sum",
                       fold: Callable[[list[Rows]], dict[str, int]] = fold_inputs) -> list[int]:
    """Check the published changes of view ``name`` (whose from-scratch view is ``fold``):
    micro-batches numbered 0, 1, ...
    with none missing, each changing exactly the keys whose entry differs, and each
    leaving (applied in order to an empty view) the view of a longer prefix of the
    input files. Returns those prefix lengths. Only published folders (marked) are read."""
    from spark_impl.pipeline import published_batches, read_changes

    ids = published_batches(spark, str(out), name)
    assert ids == list(range(len(ids)))
    prefix_views = [fold(batches[:j]) for j in range(len(batches) + 1)]
    view: dict[str, int] = {}
    lengths: list[int] = []
    for b in ids:
        rows = read_changes(spark, str(out), name, b).collect()
        before = dict(view)
        for r in rows:
            if r["present"]:
                view[r["key"]] = int(r["accumulator"])
            else:
                assert r["key"] in view, f"micro-batch {b} removes {r['key']!r}, not in the view"
                del view[r["key"]]
        differing = {k for k in before.keys() | view.keys() if before.get(k) != view.get(k)}
        assert sorted(r["key"] for r in rows) == sorted(differing), f"micro-batch {b}"
        start = lengths[-1] + 1 if lengths else 1
        matches = [j for j in range(start, len(prefix_views)) if prefix_views[j] == view]
        assert matches, f"after micro-batch {b} the view {view} is no prefix's view"
        lengths.append(matches[0])
    return lengths


@pytest.mark.slow  # a pipeline process started, crashed and started again
@pytest.mark.parametrize("reducer", ["sum", "min"])
@pytest.mark.parametrize("path", PATHS)
@pytest.mark.spec("SKIP-DEC-SPARK-STATE", evidence="example")
def test_a_micro_batch_run_again_after_its_changes_were_published_commits_its_state(
        spark: Any, tmp_path: Path, reducer: str, path: str) -> None:
    """The process dies in the second micro-batch right after publishing its changes, before
    Spark commits it; the next run re-runs that micro-batch and finds its changes there. It
    must still run the micro-batch's plan, whose stateful operator writes its state: a fold
    reducer's changes are lazy, and (publication skipped) nothing ran them, so Spark failed
    the re-run ("CheckpointInfo length: 0", found by ``python -m tests.spark.pipeline_killer
    --view reduce:min``). The view and the published changes are exact after it."""
    from spark_impl.pipeline import CRASH_ENV

    inp, out = tmp_path / "in", tmp_path / "out"
    for i, rows in enumerate(BATCHES):
        write_batch(inp, f"b{i}.jsonl", rows, i)
    command = [sys.executable, "-m", "spark_impl.pipeline", "--input", str(inp), "--output", str(out),
               "--view", f"reduce:{reducer}", "--reduce-path", path]
    crashed = subprocess.run(command, cwd=ROOT, env=application_env(**{CRASH_ENV: "1:published"}), capture_output=True, text=True, timeout=SLOW_RUN_LIMIT)
    assert crashed.returncode == 17, crashed.stdout + crashed.stderr
    assert run(spark, inp, out, reducer=reducer, path=path) == 0
    fold = {"sum": fold_inputs, "min": min_inputs}[reducer]
    assert view_of(spark, out, f"reduce-{reducer}") == fold(BATCHES)
    assert published_prefixes(spark, out, BATCHES, f"reduce-{reducer}", fold) == [1, 2, 3]


GRAPH_FILES: list[Rows] = [
    [{"kind": "root", "src": 1, "dst": None, "weight": 1},
     {"kind": "edge", "src": 1, "dst": 2, "weight": 1}, {"kind": "edge", "src": 2, "dst": 3, "weight": 1}],
    [{"kind": "edge", "src": 1, "dst": 2, "weight": -1}, {"kind": "edge", "src": 3, "dst": 4, "weight": 1}],
]


@pytest.mark.parametrize("files_per_batch", [1, 2])
@pytest.mark.spec("SKIP-DEC-SPARK-PARTS", evidence="example")
@pytest.mark.heavy
def test_the_reach_view_applies_files_in_order(spark: Any, tmp_path: Path, files_per_batch: int) -> None:
    """The second file removes an edge the first added: live {1} whether the files are
    one micro-batch or two (taken as one change, removals first, the edge would stay)."""
    from spark_impl.pipeline import ViewSpec, read_view
    from spark_impl.pipeline import run as run_pipeline

    inp, out = tmp_path / "in", tmp_path / "out"
    for i, rows in enumerate(GRAPH_FILES):
        write_batch(inp, f"g{i}.jsonl", rows, i)
    status = run_pipeline(spark, str(inp), str(out), None, [ViewSpec("reach")],
                          files_per_batch=files_per_batch, log=lambda _: None)
    assert status == 0
    assert sorted(r[0] for r in read_view(spark, str(out), "reach").collect()) == [1]
    batches = sorted(p.name for p in (out / "reach" / "changes").iterdir())
    assert batches == [f"batch={b}" for b in range(2 // files_per_batch)]


@pytest.mark.spec("FIX-DEC-SPARK-STATE", evidence="example")
@pytest.mark.heavy
def test_the_reach_view_resumes_from_its_saved_state(spark: Any, tmp_path: Path) -> None:
    """A second run over the same checkpoint starts from the state the first saved:
    the second file's removal of 1 -> 2 kills 2 and 3 (they are live only in the saved
    state), and 4 is never live; the second run's changes are exactly those."""
    from spark_impl.pipeline import ViewSpec, read_changes, read_view
    from spark_impl.pipeline import run as run_pipeline

    inp, out = tmp_path / "in", tmp_path / "out"
    write_batch(inp, "g0.jsonl", GRAPH_FILES[0], 0)
    assert run_pipeline(spark, str(inp), str(out), None, [ViewSpec("reach")], log=lambda _: None) == 0
    assert sorted(r[0] for r in read_view(spark, str(out), "reach").collect()) == [1, 2, 3]
    write_batch(inp, "g1.jsonl", GRAPH_FILES[1], 1)
    assert run_pipeline(spark, str(inp), str(out), None, [ViewSpec("reach")], log=lambda _: None) == 0
    assert sorted(r[0] for r in read_view(spark, str(out), "reach").collect()) == [1]
    second = read_changes(spark, str(out), "reach", 1).collect()
    assert sorted((r["node"], r["added"]) for r in second) == [(2, False), (3, False)]


@pytest.mark.slow  # a pipeline process started, killed and started again: minutes
@pytest.mark.parametrize("phase", ["saved"])  # the order that lost changes; "published" ran too (5 min each)
@pytest.mark.spec("FIX-DEC-SPARK-STATE", evidence="example")
def test_the_reach_view_loses_no_change_when_killed_between_publishing_and_saving(
        spark: Any, tmp_path: Path, phase: str) -> None:
    """The process dies in the second micro-batch right after its changes are published
    (``published``) or right after its state is saved (``saved``), then runs again: the
    second micro-batch's changes are exactly 2 and 3 leaving, and the view is {1}. (Saved
    before publishing, as it was, the second run found the batch applied and published
    nothing for it.)"""
    from spark_impl.pipeline import CRASH_ENV, ViewSpec, read_changes, read_view
    from spark_impl.pipeline import run as run_pipeline

    inp, out = tmp_path / "in", tmp_path / "out"
    for i, rows in enumerate(GRAPH_FILES):
        write_batch(inp, f"g{i}.jsonl", rows, i)
    command = [sys.executable, "-m", "spark_impl.pipeline", "--input", str(inp), "--output", str(out),
               "--view", "reach"]
    crashed = subprocess.run(command, cwd=ROOT, env=application_env(**{CRASH_ENV: f"1:{phase}"}),
                             capture_output=True, text=True, timeout=SLOW_RUN_LIMIT)
    assert crashed.returncode == 17, crashed.stdout + crashed.stderr
    assert run_pipeline(spark, str(inp), str(out), None, [ViewSpec("reach")], log=lambda _: None) == 0
    second = read_changes(spark, str(out), "reach", 1).collect()
    assert sorted((r["node"], r["added"]) for r in second) == [(2, False), (3, False)]
    assert sorted(r[0] for r in read_view(spark, str(out), "reach").collect()) == [1]


class _Query:
    """A streaming query's face as a stop sees it, running a micro-batch for ``polls`` reads
    of its status."""

    def __init__(self, polls: int) -> None:
        self.polls, self.isActive = polls, True

    @property
    def status(self) -> dict[str, bool]:
        self.polls -= 1
        return {"isTriggerActive": self.polls >= 0}


def test_a_stop_waits_for_the_micro_batch_under_way_and_no_longer_than_its_bound() -> None:
    """A query is stopped between two micro-batches when the one under way ends within the
    bound (a stop amid one wastes it, and Spark's stream thread dies of a stack overflow as it
    classifies the interruption), and no later than the bound when it does not."""
    import time

    from spark_impl.pipeline import _between_micro_batches

    ending = _Query(3)
    _between_micro_batches(ending, wait=600)  # type: ignore[arg-type]
    assert ending.polls == -1  # three reads under way, the fourth between micro-batches
    endless, began = _Query(10**9), time.monotonic()
    _between_micro_batches(endless, wait=0.3)  # type: ignore[arg-type]
    assert time.monotonic() - began >= 0.3 and endless.polls < 10**9
