"""What a group reducer's state keeps once its groups are emptied: generations and compaction
(issue 32, finding 8; SKIP-DEC-SPARK-STATE, spark_impl/reduce/group_generations.py)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spark_impl.reduce.group_generations import GroupCounts
from tests.spark.oracle import ReduceModel, assert_replay_matches
from tests.spark.test_reduce import traces

pytestmark = pytest.mark.spark

ROWS = "k bigint, v bigint, w bigint"
#: four change files: the second empties every key the first filled, two new keys follow
EMPTYING_FILES: list[list[dict[str, Any]]] = [
    [{"key": "a", "value": 3}, {"key": "a", "value": 5}, {"key": "b", "value": 1, "weight": 2}],
    [{"key": "a", "value": 3, "weight": -1}, {"key": "a", "value": 5, "weight": -1},
     {"key": "b", "value": 1, "weight": -2}],
    [{"key": "c", "value": 4}],
    [{"key": "d", "value": 6}],
]


class Recorded:
    """A view runner's sink: each micro-batch's changes, ``key -> accumulator`` (None: gone)."""

    def __init__(self) -> None:
        self.steps: list[dict[int, Any]] = []

    def __call__(self, changes: Any, _: int) -> None:
        self.steps.append({r["key"]: r["accumulator"] if r["present"] else None for r in changes.collect()})


def sum_runner(spark: Any, root: str, sink: Recorded, floor: int) -> Any:
    from spark_impl.reduce.view_runner import ViewRunner

    return ViewRunner(spark, "sum", "bigint", "bigint", root, sink, compaction_floor=floor)


def state_rows(spark: Any, checkpoint: str) -> int:
    """Every row of a view's state store, whatever its generation or multiplicity."""
    return int(spark.read.format("statestore").load(checkpoint).count())


def state_read_whole(runner: Any) -> int:
    """Bytes the last micro-batch read from the state store by iterating over it (RocksDB's
    count): Spark's pass over every group looking for groups to evict, while a watermark is
    in the plan. A micro-batch that reads only the groups it touches reads none so."""
    (operator,) = runner.progress["stateOperators"]
    return int(operator["customMetrics"].get("rocksdbTotalBytesReadThroughIterator", 0))


def counted(runner: Any) -> GroupCounts:
    """The runner's groups counted from its state (what its kept counts must equal)."""
    return runner.view.group_counts(runner.spark, f"{runner.root}/checkpoint", runner.generations.current)


@pytest.mark.spec("SKIP-DEC-SPARK-STATE", evidence="example")
@pytest.mark.heavy
def test_a_group_view_whose_keys_are_all_emptied_keeps_no_state_rows(spark: Any, tmp_path: Any) -> None:
    """Five keys get two values each, then lose them: the view is empty, and the compaction
    that follows (floor 1) leaves the state, two steps later, only the groups of the values
    added since. Without generations the 15 emptied groups stay for ever (before the fix this
    test failed: 19 state rows for 4 live groups).

    Only those two steps pass over the whole state (the watermark's eviction); every other
    step reads only the groups it touches. Before the watermark was taken out of the plan
    between compactions, every step passed over the whole state (30 MB read a 100-change
    step over 2.2·10^5 groups): this test failed at its first step."""
    root, seen = f"file://{tmp_path}", Recorded()
    runner = sum_runner(spark, root, seen, floor=1)
    try:
        keys = range(5)
        runner.step(spark.createDataFrame([(k, v, 1) for k in keys for v in (10, 20)], ROWS))
        assert runner.compaction.counts == counted(runner) == GroupCounts(live=15, emptied=0)
        assert state_read_whole(runner) == 0
        assert not runner.view.evicting
        runner.step(spark.createDataFrame([(k, v, -1) for k in keys for v in (10, 20)], ROWS))
        assert seen.steps[-1] == dict.fromkeys(keys) and runner.read_view().count() == 0
        assert runner.stored_sizes() == {"rows": 0, "keys": 0}
        assert state_read_whole(runner) == 0
        # emptied 15 >= max(live 0, floor 1): compacted into generation 1, which holds nothing
        assert runner.generations.current == 1 and runner.compaction.counts == GroupCounts(live=0, emptied=0)
        assert runner.view.evicting  # the plan holds the watermark until generation 0 is evicted
        runner.step(spark.createDataFrame([(99, 1, 1)], ROWS))  # reads generation 1
        assert seen.steps[-1] == {99: 1}
        assert state_read_whole(runner) > 0 and runner.view.evicting
        runner.step(spark.createDataFrame([(98, 2, 1)], ROWS))  # evicts generation 0
        assert seen.steps[-1] == {98: 2}
        assert state_read_whole(runner) > 0 and runner.progress is not None
        assert runner.progress["stateOperators"][0]["numRowsRemoved"] == 15  # generation 0's groups
        assert not runner.view.evicting  # built again without the watermark
        assert {r["key"]: r["accumulator"] for r in runner.read_view().collect()} == {99: 1, 98: 2}
        assert runner.compaction.counts == counted(runner) == GroupCounts(live=4, emptied=0)
        stored = state_rows(spark, f"{root}/checkpoint")
        assert stored == 4, f"{stored} state rows kept for a view of 2 keys and 2 pairs"
        runner.step(spark.createDataFrame([(98, 2, -1), (97, 3, 1)], ROWS))
        assert seen.steps[-1] == {98: None, 97: 3} and state_read_whole(runner) == 0
    finally:
        runner.stop()


@pytest.mark.spec("SKIP-DEC-SPARK-STATE", evidence="example")
@pytest.mark.heavy
def test_an_older_generation_is_evicted_when_the_new_one_is_read_in_a_micro_batch_of_its_own(
        spark: Any, tmp_path: Any) -> None:
    """The compaction's generation (no live group: a file without rows) is read by a
    micro-batch without rows, which sets no watermark; the rows of the next step set it, and
    the step after evicts generation 0. The view keeps the watermark until then. Before, it
    was dropped two micro-batches after the compaction, counted, not seen: here, after the
    step that set the watermark, so generation 0's 3 emptied groups stayed in the state for
    ever (this test failed: 5 state rows)."""
    root, seen = f"file://{tmp_path}", Recorded()
    runner = sum_runner(spark, root, seen, floor=1)
    try:
        runner.step(spark.createDataFrame([(1, 10, 1)], ROWS))
        runner.step(spark.createDataFrame([(1, 10, -1)], ROWS))  # emptied: generation 1 written
        assert runner.generations.current == 1 and runner.view.evicting
        runner.step(spark.createDataFrame([], ROWS))  # generation 1's file alone: no row, no watermark
        assert runner.view.evicting
        runner.step(spark.createDataFrame([(99, 1, 1)], ROWS))  # sets the watermark
        assert runner.view.evicting, "the watermark was dropped before generation 0 was evicted"
        runner.step(spark.createDataFrame([(98, 2, 1)], ROWS))  # evicts generation 0
        assert runner.progress is not None
        assert runner.progress["stateOperators"][0]["numRowsRemoved"] == 2  # key 1's group, pair (1, 10)'s
        assert not runner.view.evicting
        assert seen.steps[-2:] == [{99: 1}, {98: 2}]
        stored = state_rows(spark, f"{root}/checkpoint")
        assert stored == 4, f"{stored} state rows kept for a view of 2 keys and 2 pairs"
    finally:
        runner.stop()


@pytest.mark.spec("SKIP-DEC-SPARK-STATE", evidence="example")
@pytest.mark.heavy
def test_a_compacted_view_resumed_in_a_new_runner_reads_its_generation_once(
        spark: Any, tmp_path: Any) -> None:
    """A runner compacts and stops before the next step; a runner built again on the same
    folder counts the state's groups, reads the new generation's rows with its first step
    (each live group once, not doubled), refuses an invalid step first with the state
    unchanged, and its changes and view are the recomputation's."""
    root, seen = f"file://{tmp_path}", Recorded()
    first = sum_runner(spark, root, seen, floor=1)
    first.step(spark.createDataFrame([(1, 5, 2), (1, 7, 1), (2, 3, 1)], ROWS))  # 1: 17, 2: 3
    first.step(spark.createDataFrame([(2, 3, -1)], ROWS))  # key 2 emptied: 2 groups
    assert first.generations.current == 0  # not due: 2 emptied < 3 live
    first.stop()
    second = sum_runner(spark, root, seen, floor=1)
    assert second.compaction.counts == GroupCounts(live=3, emptied=2)
    second.compact()
    assert second.generations.current == 1
    second.stop()
    third = sum_runner(spark, root, seen, floor=1)
    assert {r["key"]: r["accumulator"] for r in third.read_view().collect()} == {1: 17}
    with pytest.raises(Exception, match="invalid delta"):
        third.step(spark.createDataFrame([(1, 7, -2)], ROWS))  # 7 occurs once at key 1
    third.step(spark.createDataFrame([(1, 5, -1), (3, 4, 1)], ROWS))
    assert seen.steps[-1] == {1: 12, 3: 4}
    third.step(spark.createDataFrame([(1, 7, -1)], ROWS))
    assert seen.steps[-1] == {1: 5}
    assert {r["key"]: r["accumulator"] for r in third.read_view().collect()} == {1: 5, 3: 4}
    # (1, 7) emptied: 1 < max(4 live, 1), no compaction due
    assert third.compaction.counts == counted(third) == GroupCounts(live=4, emptied=1)
    assert state_rows(spark, f"{root}/checkpoint") == 5  # generation 0 evicted: keys 1, 3, pairs (1, 5), (1, 7), (3, 4)
    third.stop()


@settings(max_examples=4)  # each example is ~10 Spark jobs and a restart a compaction
@given(st.sampled_from(["sum", "count"]), traces())
@pytest.mark.spec("SKIP-DEC-SPARK-STATE", evidence="property")
@pytest.mark.heavy
def test_random_traces_compacting_after_every_emptying_step_match_recompute(
        spark: Any, name: str, trace: Any) -> None:
    """The reduce engine with compaction due as soon as a group is emptied (floor 1): every
    step's view and changes are the recomputation's, refusals included."""
    from spark_impl.protocol.reduce import SparkReduceEngine

    initial, steps = trace
    engine = SparkReduceEngine(spark, compaction_floor=1)
    engine.declare(name, {})
    try:
        assert_replay_matches(engine, ReduceModel(name), initial, steps)
    finally:
        engine.close()


def test_a_compaction_is_due_once_the_emptied_groups_reach_the_live_ones_and_the_floor() -> None:
    counts = GroupCounts()
    counts.add(filled=10, emptied=0)
    assert (counts.live, counts.emptied) == (10, 0) and not counts.due(floor=1)
    counts.add(filled=2, emptied=9)
    assert (counts.live, counts.emptied) == (3, 9) and counts.due(floor=1)
    assert not counts.due(floor=10)


@pytest.mark.spec("SKIP-DEC-SPARK-STATE", evidence="example")
@pytest.mark.heavy
def test_the_pipeline_compacts_a_sum_view_between_runs(spark: Any, tmp_path: Any) -> None:
    """``incspec pipeline`` with a sum view, compaction floor 1, over three runs: the first
    empties every key (its second file removes what its first added) and ends by compacting;
    the second reads the new generation with its file, the third's file evicts the old one.
    Every run's view and every micro-batch's published changes are the recomputation's, and
    the state holds the live groups only."""
    from spark_impl.pipeline import ViewSpec
    from spark_impl.pipeline import run as run_pipeline
    from tests.spark.test_pipeline import changes_of, fold_inputs, view_of, write_batch

    inp, out, messages = tmp_path / "in", tmp_path / "out", list[str]()
    batches = EMPTYING_FILES
    runs = [batches[:2], batches[2:3], batches[3:]]
    written = 0
    for files in runs:
        for rows in files:
            write_batch(inp, f"b{written}.jsonl", rows, written)
            written += 1
        spark.conf.unset("spark.sql.files.ignoreMissingFiles")
        assert run_pipeline(spark, str(inp), str(out), None, [ViewSpec("reduce", "sum")],
                            compaction_floor=1, log=messages.append) == 0
        assert view_of(spark, out) == fold_inputs(batches[:written])
    assert [changes_of(spark, out, b) for b in range(4)] == [
        [("a", True, 8), ("b", True, 2)], [("a", False, None), ("b", False, None)],
        [("c", True, 4)], [("d", True, 6)]]
    assert sum("re-stated as generation 1" in m for m in messages) == 1, messages
    stored = state_rows(spark, f"file://{out}/_checkpoint/reduce-sum")
    assert stored == 4, f"{stored} state rows for keys c, d and their pairs"


def applied_files(out: Any, name: str) -> set[str]:
    """The names of the input files in the committed micro-batches of view ``name``, read from
    its checkpoint (the input folder is its query's first source)."""
    from spark_impl.storage.local_fs import LocalFS
    from spark_impl.storage.query_log import committed_files

    checkpoint = f"file://{out}/_checkpoint/{name}"
    return {path.rsplit("/", 1)[-1] for path in committed_files(LocalFS(), checkpoint)}


@pytest.mark.spec("SKIP-DEC-SPARK-STATE", evidence="example")
@pytest.mark.heavy
def test_a_follow_run_keeps_every_view_going_and_compacts_a_sum_view_as_it_runs(
        spark: Any, tmp_path: Any) -> None:
    """``incspec pipeline --follow`` with a sum view (compaction floor 1) and a min view, files
    placed while it runs: both views apply every file as it comes (before, the views ran one
    after another, and under ``--follow`` the first never ended: the min view never ran); the
    sum view, emptied by the second file, is compacted without the run being started again
    (its query stopped, the live groups re-stated, the query started again), and the files
    after it evict the old generation. When stopped, the run exits 0 with each view, each
    micro-batch's published changes and the sum view's state those of the files."""
    import threading
    import time

    from spark_impl.pipeline import ViewSpec
    from spark_impl.pipeline import run as run_pipeline
    from tests.spark.test_pipeline import changes_of, fold_inputs, min_inputs, view_of, write_batch

    inp, out, messages = tmp_path / "in", tmp_path / "out", list[str]()
    batches = EMPTYING_FILES
    views = ["reduce-sum", "reduce-min"]
    stop, status = threading.Event(), list[int]()
    spark.conf.unset("spark.sql.files.ignoreMissingFiles")
    follower = threading.Thread(target=lambda: status.append(run_pipeline(
        spark, str(inp), str(out), None, [ViewSpec("reduce", "sum"), ViewSpec("reduce", "min")],
        follow=True, compaction_floor=1, log=messages.append, stop=stop)), daemon=True)
    inp.mkdir()
    follower.start()
    try:
        for index, rows in enumerate(batches):
            write_batch(inp, f"b{index}.jsonl", rows, index)
            deadline = time.monotonic() + 600  # a generous bound on a loaded machine, not a speed check
            # the emptying file's compaction is awaited too: a file placed before it would be
            # in the old generation's last micro-batch, and the eviction a micro-batch later
            while not (all(f"b{index}.jsonl" in applied_files(out, name) for name in views)
                       and (index != 1 or any("re-stated as generation 1" in m for m in messages))):
                assert follower.is_alive(), f"the run ended: {status}\n" + "\n".join(messages[-20:])
                assert time.monotonic() < deadline, f"file {index} not applied:\n" + "\n".join(messages[-20:])
                time.sleep(0.5)
    finally:
        stop.set()
        follower.join(300)
    assert status == [0], messages
    # the run's log and each view's committed files with a failure: it failed so once in CI,
    # under load, when a stop for the eviction restart interrupted a micro-batch's handler
    story = "\n".join([*messages, *(f"{n}: {sorted(applied_files(out, n))}" for n in views)])
    assert view_of(spark, out) == fold_inputs(batches) == {"c": 4, "d": 6}, story
    assert view_of(spark, out, "reduce-min") == min_inputs(batches)
    # the new generation's rows may come in a micro-batch of their own (the restarted query
    # finds them before the next file): it changes nothing
    batches_published = sorted(int(p.name.removeprefix("batch=")) for p in (out / "reduce-sum" / "changes").glob("batch=*"))
    assert batches_published == list(range(len(batches_published)))
    published = [changes_of(spark, out, b) for b in batches_published]
    assert [c for c in published if c] == [
        [("a", True, 8), ("b", True, 2)], [("a", False, None), ("b", False, None)],
        [("c", True, 4)], [("d", True, 6)]]
    assert len(published) <= 5, published
    # compacted once, while the run went on (it was never started again)
    assert sum("re-stated as generation 1" in m for m in messages) == 1, messages
    stored = state_rows(spark, f"file://{out}/_checkpoint/reduce-sum")
    assert stored == 4, f"{stored} state rows for keys c, d and their pairs"


@pytest.mark.spec("SKIP-DEC-SPARK-STATE", evidence="example")
def test_a_group_checkpoint_without_generations_is_refused_in_one_line(spark: Any, tmp_path: Any) -> None:
    """A checkpoint with committed micro-batches whose generations folder is missing (as an
    earlier version wrote them: its state's groups have no generation) is refused when the
    view is built, before its query starts, with what to do."""
    import shutil

    from spark_impl.errors import SparkEngineError

    root = f"file://{tmp_path}"
    runner = sum_runner(spark, root, Recorded(), floor=1)
    runner.step(spark.createDataFrame([(1, 5, 1)], ROWS))
    runner.stop()
    shutil.rmtree(tmp_path / "compaction")
    with pytest.raises(SparkEngineError, match="without generations.*start a new checkpoint"):
        sum_runner(spark, root, Recorded(), floor=1)

