"""``incspec pipeline``'s reach view: changes published exactly once whatever the point of a
crash, snapshots labelled with the micro-batch they hold, input rows checked.

The crash and snapshot tests drive the view's ``handle`` as the streaming query does
(micro-batch ``n`` run again after a crash until it returns), without a query: each
write of a micro-batch is a point a crash can hit, and a thread can be held inside
``handle`` while another asks for a snapshot.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.spark.test_pipeline import GRAPH_FILES, Rows, write_batch

pytestmark = pytest.mark.spark

#: a third file putting 1 -> 2 back: 2, 3 and 4 become live
GRAPH = [*GRAPH_FILES, [{"kind": "edge", "src": 1, "dst": 2, "weight": 1}]]
#: the live set after each file
LIVE = [[1, 2, 3], [1], [1, 2, 3, 4]]
#: the changes of each micro-batch of :data:`GRAPH`, one file each
GRAPH_CHANGES = [[(1, True), (2, True), (3, True)], [(2, False), (3, False)], [(2, True), (3, True), (4, True)]]


class Crash(Exception):
    """The crash injected into a micro-batch."""


def edits(spark: Any, rows: Rows, file: str) -> Any:
    """``rows`` as the input stream gives them: the weight a variant, ``file`` one part."""
    from pyspark.sql import functions as F

    frame = spark.createDataFrame(
        [(r["kind"], r["src"], r.get("dst"), json.dumps(r["weight"]) if "weight" in r else None)
         for r in rows], "kind string, src bigint, dst bigint, weight string")
    return (frame.withColumn("weight", F.parse_json("weight"))
            .withColumn("file", F.lit(file)).withColumn("part", F.lit(file)))


def micro_batch(spark: Any, rows: Rows, file: str) -> Any:
    """``rows`` as the reach view's query hands them to ``handle``: checked."""
    from spark_impl.pipeline import reach_checked

    return reach_checked(edits(spark, rows, file))


def reach_view(spark: Any, out: Path) -> Any:
    """The reach view over the output folder ``out`` (its checkpoint inside), as a run starts it."""
    from spark_impl.pipeline import Outputs, ReachView, ViewSpec, as_url
    from spark_impl.storage.hadoop_fs import HadoopFS

    url = as_url(str(out))
    fs = HadoopFS(spark, url)
    return ReachView(spark, ViewSpec("reach"), edits(spark, GRAPH[0], "g0"), Outputs(fs, f"{url}/reach"),
                     fs, f"{url}/_checkpoint/reach")


@contextmanager
def crashing(monkeypatch: pytest.MonkeyPatch, at: int | None) -> Iterator[list[str]]:
    """Every write to the file system (a rename, a text written, a deletion) counted in the
    returned list; with ``at``, the write numbered ``at`` (from 0) raises :class:`Crash`
    instead, the writes before it done."""
    from spark_impl.storage.hadoop_fs import HadoopFS

    done: list[str] = []

    def counted(name: str) -> Callable[..., Any]:
        original = getattr(HadoopFS, name)

        def write(self: HadoopFS, *args: Any) -> Any:
            if len(done) == at:
                raise Crash(f"crash before {name}{args}")
            done.append(f"{name} {args[1] if name == 'rename' else args[0]}")  # renamed: into place
            return original(self, *args)
        return write

    with monkeypatch.context() as patch:
        for name in ("rename", "write_text", "delete"):
            patch.setattr(HadoopFS, name, counted(name))
        yield done


def published(spark: Any, out: Path) -> list[list[tuple[int, bool]]]:
    """Each published micro-batch's changes, in order (none missing; only marked folders)."""
    from spark_impl.pipeline import published_batches, read_changes

    batches = published_batches(spark, str(out), "reach")
    assert batches == list(range(len(batches)))
    return [sorted((r["node"], r["added"]) for r in read_changes(spark, str(out), "reach", b).collect())
            for b in batches]


def outcome(spark: Any, out: Path) -> tuple[list[list[tuple[int, bool]]], list[int]]:
    """Each published micro-batch's changes and the published view."""
    return published(spark, out), live_of(spark, out)


@pytest.mark.slow  # a crashed and resumed run per write of micro-batch 1: 18 minutes for both cases
@pytest.mark.parametrize("compacting", [False, True], ids=["saving-the-overlay", "saving-new-bases"])
@pytest.mark.spec("FIX-DEC-SPARK-STATE", evidence="example")
def test_a_crash_at_any_write_of_a_micro_batch_publishes_its_changes_exactly_once(
        spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compacting: bool) -> None:
    """The second micro-batch crashes before each of its writes in turn and after the last;
    a fresh view over the same checkpoint runs it again, then the third: each micro-batch's
    published changes and the view equal an uninterrupted run's. Its writes: the changes
    and their marker; the state's version, the changes saved with it and their marker, the
    engine's overlay or (``compacting``: every changed table merged into a new base) the new
    bases and their markers, the manifest; ``_LATEST``; the versions and bases no longer
    needed, deleted."""
    from spark_impl.pipeline import as_url

    if compacting:
        monkeypatch.setattr("spark_impl.storage.keyed_tables.COMPACT_MIN", 0)
    batches = [micro_batch(spark, rows, f"g{i}") for i, rows in enumerate(GRAPH)]
    clean = reach_view(spark, tmp_path / "clean")
    url = as_url(str(tmp_path / "clean"))
    for i, batch in enumerate(batches):
        with crashing(monkeypatch, None) as writes:
            clean.handle(batch, i)
        if i == 1:
            points = list(writes)
    clean.snapshot("", len(batches) - 1)
    expected = outcome(spark, tmp_path / "clean")
    assert expected == (GRAPH_CHANGES, LIVE[-1])
    assert points[:2] == [f"rename {url}/reach/changes/batch=1", f"write_text {url}/reach/changes/batch=1/_PUBLISHED"]
    state = [w.split(" ", 1)[0] + " " + w.split("/reach-state/", 1)[1] for w in points[2:]]
    latest = state.index("write_text _LATEST")
    assert state[:2] == ["rename v=1/changes", "write_text v=1/changes/_PUBLISHED"]
    # the cut 1 -> 2: the edges change, 2 and 3 leave the live set; the roots do not change
    new_bases = {w.split("/")[1] for w in state[2:latest] if " base-1/" in w}
    folders = [f"{kind} {folder}{end}" for folder in (*(f"base-1/{t}" for t in sorted(new_bases)),
                                                      *([] if compacting else ["v=1/overlay"]))
               for kind, end in (("rename", ""), ("write_text", "/_PUBLISHED"))]
    assert state[2:latest] == [*folders, "write_text v=1/tables.json"]
    assert {"edges", "live"} <= new_bases and "roots" not in new_bases if compacting else not new_bases
    # then what no longer serves: version 0, and in base-0 the tables that have new bases
    assert state[latest + 1:] == [*(f"delete base-0/{t}" for t in sorted(new_bases)), "delete v=0"]
    for at in range(len(points) + 1):
        out = tmp_path / f"crash-{at}"
        first = reach_view(spark, out)
        first.handle(batches[0], 0)
        with crashing(monkeypatch, at), pytest.raises(Crash):
            first.handle(batches[1], 1)
            raise Crash("after the last write, before the micro-batch is committed")
        resumed = reach_view(spark, out)  # the run after the crash: micro-batch 1 again
        for i in (1, 2):
            resumed.handle(batches[i], i)
        resumed.snapshot("", 2)
        assert outcome(spark, out) == expected, f"crash before write {at}"


def state_root(out: Path) -> Path:
    return out / "_checkpoint" / "reach" / "reach-state"


def saved_state(out: Path) -> list[str]:
    """What the reach view's saved state holds: its files and folders two levels down."""
    root = state_root(out)
    names = (str(p.relative_to(root)) for p in [*root.glob("*"), *root.glob("*/*")] if not p.name.startswith("."))
    return sorted(name for name in names if not name.startswith("_staging"))


@pytest.mark.spec("FIX-DEC-SPARK-STATE", evidence="example")
@pytest.mark.heavy
def test_a_micro_batch_saves_the_changes_of_the_tables_and_a_restart_reads_them_back(
        spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Micro-batch 0 builds the tables, saved as the bases ``base-0``; micro-batch 1 cuts
    1 -> 2 and adds 3 -> 4: its version holds its changes, the engine's overlay and the
    manifest naming base-0's tables, and no table is written again. The overlay holds the
    tables' changes: the two edges, 2 and 3 leaving the live set, and the segment 1 -> 2 ->
    3 marked where the batch breaks it (at 2, and after 3). A fresh view over the same
    checkpoint (a restart) then has the segment index the first saved, marks included,
    without building it (building refused meanwhile), and applies micro-batch 2 exactly.
    (Every micro-batch wrote the roots, the edges and the live set whole, and each restart
    built the segment index anew: pointer-jumping rounds over the whole graph.)"""
    from spark_impl.fixpoint import segments

    out = tmp_path / "out"
    first = reach_view(spark, out)
    for i in (0, 1):
        first.handle(micro_batch(spark, GRAPH[i], f"g{i}"), i)
    assert saved_state(out) == ["_LATEST", "base-0", "base-0/edges", "base-0/live", "base-0/roots",
                                "base-0/segments", "v=1", "v=1/changes", "v=1/overlay", "v=1/tables.json"]
    overlay = spark.read.parquet(str(state_root(out) / "v=1" / "overlay")).collect()
    assert sorted((r["table"], r["src"], r["dst"], r["present"]) for r in overlay if r["table"] == "edges") == [
        ("edges", 1, 2, False), ("edges", 3, 4, True)]
    assert sorted((r["node"], r["present"]) for r in overlay if r["table"] == "live") == [(2, False), (3, False)]
    assert sorted((r["node"], r["cut_before"], r["cut_after"]) for r in overlay if r["table"] == "segments") == [
        (2, True, False), (3, False, True)]
    assert {r["table"] for r in overlay} == {"edges", "live", "segments"}

    def index(view: Any) -> list[tuple[Any, ...]]:
        return sorted(tuple(r) for r in view.engine.stored.current("segments").collect())

    def refused(*_: Any) -> Any:
        raise AssertionError("the segment index was built at a restart")

    saved = index(first)
    assert saved == [(1, 1, 0, 2, False, False), (2, 1, 1, 2, True, False), (3, 1, 2, 2, False, True)]
    resumed = reach_view(spark, out)
    with monkeypatch.context() as patch:
        patch.setattr(segments, "build", refused)
        resumed.handle(micro_batch(spark, GRAPH[1], "g1"), 1)  # micro-batch 1 again: state read, no change
        assert index(resumed) == saved
        resumed.handle(micro_batch(spark, GRAPH[2], "g2"), 2)
    resumed.snapshot("", 2)
    assert outcome(spark, out) == (GRAPH_CHANGES, LIVE[-1])


@pytest.mark.spec("FIX-DEC-SPARK-STATE", evidence="example")
@pytest.mark.heavy
def test_a_state_saved_whole_by_an_earlier_version_is_read_back(spark: Any, tmp_path: Path) -> None:
    """A checkpoint whose last version holds the roots, edges and live tables whole (as the
    reach view saved them before it saved changes) is read back, the segment index built from
    it; the next micro-batches apply exactly, and the next version saves new bases."""
    import shutil

    from spark_impl.pipeline import STATE_TABLES

    out = tmp_path / "out"
    first = reach_view(spark, out)
    first.handle(micro_batch(spark, GRAPH[0], "g0"), 0)
    root = state_root(out)
    for name in STATE_TABLES:
        getattr(first.engine, name).all().write.parquet(str(root / "v=0" / name))
    shutil.rmtree(root / "base-0")
    (root / "v=0" / "tables.json").unlink()
    resumed = reach_view(spark, out)
    for i in (1, 2):
        resumed.handle(micro_batch(spark, GRAPH[i], f"g{i}"), i)
    resumed.snapshot("", 2)
    assert outcome(spark, out) == (GRAPH_CHANGES, LIVE[-1])
    assert "base-1/segments" in saved_state(out) and "v=0" not in saved_state(out)


@pytest.mark.spec("FIX-DEC-SPARK-STATE", evidence="example")
@pytest.mark.heavy
def test_a_crash_amid_an_object_store_rename_publishes_the_changes_once(
        spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Micro-batch 1 crashes once part of its changes' data files is in place, before its
    marker (an object store renames a folder file by file: the crash falls amid the copy);
    the run after it publishes the micro-batch's changes whole and once, and the view is
    exact. (The folder alone was taken as published: the changes of micro-batch 1 were
    those of the files copied before the crash.)"""
    from spark_impl.storage.hadoop_fs import HadoopFS

    out = tmp_path / "out"
    first = reach_view(spark, out)
    first.handle(micro_batch(spark, GRAPH[0], "g0"), 0)
    rename = HadoopFS.rename

    def cut_short(self: HadoopFS, source: str, target: str) -> None:
        rename(self, source, target)
        if target.endswith("/reach/changes/batch=1"):
            data = sorted(p for p in Path(target.removeprefix("file://")).iterdir()
                          if not p.name.startswith(("_", ".")))
            assert len(data) > 1, data  # one copied, one not
            for p in data[1:]:
                p.unlink()
            raise Crash(f"crash amid the rename of {target}")

    with monkeypatch.context() as patch, pytest.raises(Crash):
        patch.setattr(HadoopFS, "rename", cut_short)
        first.handle(micro_batch(spark, GRAPH[1], "g1"), 1)
    resumed = reach_view(spark, out)  # the run after the crash: micro-batch 1 again
    for i in (1, 2):
        resumed.handle(micro_batch(spark, GRAPH[i], f"g{i}"), i)
    resumed.snapshot("", 2)
    assert outcome(spark, out) == (GRAPH_CHANGES, LIVE[-1])


@pytest.mark.spec("FIX-DEC-SPARK-STATE", evidence="example")
@pytest.mark.heavy
def test_a_micro_batch_run_again_after_its_state_was_saved_publishes_its_changes(
        spark: Any, tmp_path: Path) -> None:
    """Micro-batch 1 applied and saved, its published changes gone (an output folder not
    the one the checkpoint's run wrote, say) and the micro-batch run again, as Spark does
    when its commit was lost: its changes are published again from those saved with the
    state, not as an empty change set."""
    import shutil

    out = tmp_path / "out"
    first = reach_view(spark, out)
    for i in (0, 1):
        first.handle(micro_batch(spark, GRAPH[i], f"g{i}"), i)
    shutil.rmtree(out / "reach" / "changes" / "batch=1")
    reach_view(spark, out).handle(micro_batch(spark, GRAPH[1], "g1"), 1)
    assert published(spark, out)[1] == [(2, False), (3, False)]


@pytest.mark.spec("FIX-DEC-SPARK-STATE", "FIX-DEC-BATCH", evidence="example")
@pytest.mark.heavy
def test_the_reach_view_brings_neither_a_micro_batch_nor_its_delta_to_the_driver(
        spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two micro-batches, the second of two files (1 -> 2 cut, 3 -> 4 added; 1 -> 2 put
    back: each file its own change, composed to 4 added): no DataFrame collected meanwhile
    brings a node, an edge or an edit (only the files' names and one-row aggregates come to
    the driver; the search for an invalid row finds none), and the published changes are
    exact. Before, each micro-batch was collected
    into the driver and the output delta collected into driver sets."""
    frames = type(spark.range(1))  # the session's DataFrame class (classic, not Connect)
    collected: list[tuple[list[str], int]] = []  # each collect's columns and rows
    collect = frames.collect

    def recorded(frame: Any) -> Any:
        rows = collect(frame)
        collected.append((frame.columns, len(rows)))
        return rows

    out = tmp_path / "out"
    view = reach_view(spark, out)
    with monkeypatch.context() as patch:
        patch.setattr(frames, "collect", recorded)
        view.handle(micro_batch(spark, GRAPH[0], "g0"), 0)
        view.handle(micro_batch(spark, GRAPH[1], "g1").unionByName(micro_batch(spark, GRAPH[2], "g2")), 1)
    graph_columns = {"node", "src", "dst", "kind"}
    # the one query of graph rows allowed: the first invalid row, to refuse the batch (none here)
    assert collected and [c for c in collected if graph_columns & set(c[0]) and c[1]] == []
    assert published(spark, out) == [[(1, True), (2, True), (3, True)], [(4, True)]]
    view.snapshot(str(out / "_checkpoint" / "reach"), 1)
    assert live_of(spark, out) == LIVE[2]


@pytest.mark.spec("FIX-DEC-SPARK-STATE", evidence="example")
@pytest.mark.heavy
def test_a_snapshot_asked_for_while_a_micro_batch_applies_holds_the_micro_batch_it_names(
        spark: Any, tmp_path: Path) -> None:
    """A snapshot of micro-batch 0 asked for (as the run's main thread does once 0 is
    committed) while micro-batch 1 is held just after the engine applied it: the snapshot
    published is labelled with the micro-batch whose view it holds (it was ``v=0``
    holding micro-batch 1's view)."""
    from spark_impl.pipeline import read_view

    out = tmp_path / "out"
    view = reach_view(spark, out)
    view.handle(micro_batch(spark, GRAPH[0], "g0"), 0)
    applied, go = threading.Event(), threading.Event()
    apply = view.engine.apply_frame

    def held(edits: Any) -> Any:
        delta = apply(edits)
        applied.set()
        go.wait(timeout=300)
        return delta

    view.engine.apply_frame = held
    errors: list[BaseException] = []

    def running(call: Callable[[], None]) -> threading.Thread:
        def body() -> None:
            try:
                call()
            except BaseException as error:  # noqa: BLE001 (re-raised by the test's thread)
                errors.append(error)
        thread = threading.Thread(target=body)
        thread.start()
        return thread

    handling = running(lambda: view.handle(micro_batch(spark, GRAPH[1], "g1"), 1))
    assert applied.wait(timeout=300)
    snapshotting = running(lambda: view.snapshot("", 0))
    snapshotting.join(timeout=5)  # unguarded, the snapshot is taken now, amid micro-batch 1
    go.set()
    handling.join()
    snapshotting.join()
    assert not errors, errors
    label = int((out / "reach" / "view" / "_LATEST").read_text().strip().removeprefix("v="))
    nodes = sorted(r["node"] for r in read_view(spark, str(out), "reach").collect())
    assert (label, nodes) == (1, LIVE[1])


@pytest.mark.parametrize("bad,said", [
    ({"kind": "edge", "src": None, "dst": 2, "weight": 1}, "column src: missing or null"),
    ({"kind": "edge", "src": 1, "dst": None, "weight": 1}, "column dst: missing or null"),
    ({"kind": None, "src": 1, "dst": 2, "weight": 1}, "column kind: missing or null"),
    ({"kind": "loop", "src": 1, "dst": 2}, 'column kind: "loop" is not edge or root'),
    ({"kind": "edge", "src": 1, "dst": 2, "weight": 1.5}, "column weight: 1.5 is not a non-zero"),
    ({"kind": "edge", "src": 1, "dst": 2, "weight": "x"}, 'column weight: "x" is not a non-zero'),
    ({"kind": "edge", "src": 1, "dst": 2, "weight": 0}, "column weight: 0 is not a non-zero"),
    ({"kind": "root", "src": 1, "dst": None, "weight": None}, "column weight: null is not"),
])
@pytest.mark.spec("SKIP-DEC-SPARK-STATE", evidence="example")
def test_an_invalid_graph_edit_says_its_column_and_value(spark: Any, bad: dict[str, Any], said: str) -> None:
    from spark_impl.pipeline import reach_checked

    rows = reach_checked(edits(spark, [GRAPH[0][1], bad], "g")).collect()
    assert rows[0]["invalid"] is None and rows[1]["invalid"].startswith(said)


@pytest.mark.spec("SKIP-DEC-SPARK-STATE", evidence="example")
def test_a_valid_graph_edit_reads_as_written(spark: Any) -> None:
    """A root's ``dst`` is ignored, a missing weight is ``+1``, ``-1.0`` is ``-1``."""
    from spark_impl.pipeline import reach_checked

    rows = [{"kind": "root", "src": 1}, {"kind": "edge", "src": 1, "dst": 2, "weight": -1.0}]
    checked = reach_checked(edits(spark, rows, "g")).collect()
    assert [(r["kind"], r["src"], r["dst"], r["weight"], r["invalid"]) for r in checked] == [
        ("root", 1, None, None, None), ("edge", 1, 2, -1, None)]


def run_reach(spark: Any, inp: Path, out: Path, *, quarantine: bool = False,
              log: Callable[[str], None] = lambda _: None) -> int:
    from spark_impl.pipeline import ViewSpec
    from spark_impl.pipeline import run as run_pipeline

    return run_pipeline(spark, str(inp), str(out), None, [ViewSpec("reach")], quarantine=quarantine, log=log)


def live_of(spark: Any, out: Path) -> list[int]:
    from spark_impl.pipeline import read_view

    return sorted(r["node"] for r in read_view(spark, str(out), "reach").collect())


@pytest.mark.spec("SKIP-DEC-SPARK-STATE", evidence="example")
@pytest.mark.heavy
def test_an_invalid_graph_edit_is_refused_naming_file_line_column_and_value(
        spark: Any, tmp_path: Path) -> None:
    """A null source on line 2 of the second file: the micro-batch is refused in one line
    naming the file, the line and the column, exit status 3, the view as the first file left it."""
    inp, out = tmp_path / "in", tmp_path / "out"
    write_batch(inp, "g0.jsonl", GRAPH[0], 0)
    write_batch(inp, "g1.jsonl", [GRAPH[1][1], {"kind": "edge", "src": None, "dst": 2, "weight": 1}], 1)
    messages: list[str] = []
    assert run_reach(spark, inp, out, log=messages.append) == 3
    refusal = next(m for m in messages if "refused" in m)
    assert "g1.jsonl, line 2: column src: missing or null" in refusal and "\n" not in refusal
    assert live_of(spark, out) == LIVE[0]
    assert sorted(p.name for p in (out / "reach" / "changes").iterdir()) == ["batch=0"]


@pytest.mark.spec("SKIP-DEC-SPARK-STATE", evidence="example")
@pytest.mark.heavy
def test_an_invalid_graph_edit_is_quarantined(spark: Any, tmp_path: Path) -> None:
    """With ``--on-invalid quarantine`` the run goes on without the file (a weight of 1.5),
    which is moved aside; the view is the other files'."""
    inp, out = tmp_path / "in", tmp_path / "out"
    write_batch(inp, "g0.jsonl", GRAPH[0], 0)
    bad = write_batch(inp, "g1.jsonl", [{"kind": "edge", "src": 1, "dst": 2, "weight": 1.5}], 1)
    write_batch(inp, "g2.jsonl", [{"kind": "edge", "src": 3, "dst": 4, "weight": 1}], 2)
    assert run_reach(spark, inp, out, quarantine=True) == 0
    assert not bad.exists() and (out / "_quarantine" / "g1.jsonl").exists()
    assert live_of(spark, out) == [1, 2, 3, 4]
