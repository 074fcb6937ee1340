"""The bulk path of a reduce view (SKIP-DEC-SPARK-BULK): the same views, changes and refusals
as the reference, for sums, extrema and Python reducers, and a state that a failed step leaves
as it was."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.spark.oracle import ReduceModel, assert_replay_matches
from tests.spark.test_reduce import traces

pytestmark = pytest.mark.spark

NAMES = ["sum", "count", "min", "max"]


def bulk_engine(spark: Any, name: str) -> Any:
    from spark_impl.protocol.reduce import SparkReduceEngine

    engine = SparkReduceEngine(spark, path="bulk")
    engine.declare(name, {})
    return engine


def bulk_runner(spark: Any, root: str, seen: list[dict[Any, Any]] | None = None,
                reducer: Any = "sum", value_type: str = "bigint") -> Any:
    """A runner over ``root`` whose sink records each step's changes in ``seen``; ``reducer``:
    a built-in's name or a reducer (:mod:`spark_impl.reduce.reducer_kinds`)."""
    from spark_impl.reduce.bulk_view import BulkViewRunner

    def sink(changes: Any, batch_id: int) -> None:
        if seen is not None:
            seen.append({r["key"]: r["accumulator"] if r["present"] else None for r in changes.collect()})

    return BulkViewRunner(spark, reducer, "string", value_type, root, sink)


def step(spark: Any, runner: Any, rows: list[tuple[str, int, int]]) -> None:
    from spark_impl.driver_rows import frame_of_rows

    runner.step(frame_of_rows(spark, rows, runner.schema))


def view_of(runner: Any) -> dict[str, Any]:
    return {r["key"]: r["accumulator"] for r in runner.read_view().collect()}


@pytest.mark.spec("SKIP-DEC-SPARK-BULK", evidence="example")
def test_the_bulk_path_holds_every_reducer_and_the_adaptive_view_group_reducers_alone(spark: Any) -> None:
    from spark_impl.protocol.reduce import SparkReduceEngine
    from spark_impl.reduce.adaptive_view import AdaptiveViewRunner
    from spark_impl.reduce.bulk_view import BulkViewRunner
    from spark_impl.reduce.view_runner import ViewRunner

    engines = [bulk_engine(spark, name) for name in ("sum", "min", "xor")]
    adaptive = SparkReduceEngine(spark, path="adaptive")
    adaptive.declare("min", {})
    try:
        views = [dict(engine.load({"a": [3, 5]}).view) for engine in engines]
        assert views == [{"a": 8}, {"a": 3}, {"a": 6}]
        assert all(isinstance(engine.runner, BulkViewRunner) for engine in engines)
        assert dict(adaptive.load({"a": [3, 5]}).view) == {"a": 3}
        # a fold view's state store layout is not a group view's: it does not move
        assert isinstance(adaptive.runner, ViewRunner) and not isinstance(adaptive.runner, AdaptiveViewRunner)
    finally:
        for engine in [*engines, adaptive]:
            engine.close()


@pytest.mark.spec("SKIP-DEC-SPARK-BULK", evidence="example")
@pytest.mark.parametrize("name", ["min", "max"])
def test_an_extremum_on_the_bulk_path_declines_and_is_recomputed_as_the_reference_says(
        spark: Any, name: str) -> None:
    """min and max natively: removals at the extremum recompute the key from its stored values."""
    engine = bulk_engine(spark, name)
    try:
        assert_replay_matches(engine, ReduceModel(name), {"a": [3, 5, 7], "b": [1], "c": [4, 4]}, [
            ({"a": [1], "c": [6]}, {"b": [1], "a": [3]}),  # b empties; a's min 3 goes, 1 comes
            ({}, {"a": [1, 7]}),                             # a's min and max go together
            ({"b": [2, 2]}, {"c": [4]}),                    # c keeps a 4: its min stays
            ({"a": [0]}, {"c": [4, 6]}),                    # c empties
            ({}, {"c": [4]}),                               # c is gone: refused
        ])
    finally:
        engine.close()


def test_a_python_reducer_whose_remove_fails_on_a_missing_value_is_refused_by_the_check(
        spark: Any, tmp_path: Any) -> None:
    """The fold runs before the check; a ⊖ that raises on the value the check refuses yields the refusal."""
    from spark_impl.reduce.bulk_view import BulkViewRunner
    from spark_impl.reduce.maintained_view import InvalidDelta
    from spark_impl.reduce.reducer_kinds import PythonReducer

    def remove(a: int, v: int) -> int:
        if a < v:
            raise ValueError(f"cannot take {v} from {a}")
        return a - v

    strict_sum = PythonReducer("strict-sum", 0, lambda a, v: a + v, remove)
    runner = BulkViewRunner(spark, strict_sum, "string", "bigint", f"file://{tmp_path}", lambda c, i: None)
    step(spark, runner, [("a", 1, 1)])
    with pytest.raises(InvalidDelta) as refused:
        step(spark, runner, [("a", 5, -1)])
    assert (refused.value.key, refused.value.value, refused.value.available) == ("a", 5, 0)
    assert view_of(runner) == {"a": "1"}


@pytest.mark.spec("SKIP-DEC-SPARK-BULK", evidence="example")
def test_a_trace_on_the_bulk_path_matches_the_reference(spark: Any) -> None:
    """Load, add, remove, empty a key, re-add it, and an invalid delta (refused, state kept)."""
    engine = bulk_engine(spark, "sum")
    assert_replay_matches(engine, ReduceModel("sum"), {"a": [3, 5, 7], "b": [1], "c": [2, 2]}, [
        ({"a": [1]}, {"b": [1], "a": [3]}),   # b empties and leaves the view
        ({}, {"c": [2, 2, 2]}),                # c holds 2 twice: refused
        ({"b": [4]}, {"c": [2]}),              # b comes back
        ({"c": [5]}, {"c": [5]}),              # c's entry moves by 0: no change
    ])
    engine.close()


@settings(max_examples=4)  # each example is ~8 Spark jobs a step
@given(st.sampled_from(NAMES), traces())
@pytest.mark.heavy
@pytest.mark.spec("SKIP-DEC-SPARK-BULK", evidence="property")
def test_random_traces_on_the_bulk_path_match_the_reference(spark: Any, name: str, trace: Any) -> None:
    initial, steps = trace
    engine = bulk_engine(spark, name)
    try:
        assert_replay_matches(engine, ReduceModel(name), initial, steps)
    finally:
        engine.close()


def test_a_refusal_names_the_first_breach_and_one_at_each_other_key(spark: Any, tmp_path: Any) -> None:
    from spark_impl.reduce.maintained_view import InvalidDelta

    seen: list[dict[Any, Any]] = []
    runner = bulk_runner(spark, f"file://{tmp_path}", seen)
    step(spark, runner, [("a", 5, 1), ("a", 3, 1), ("b", 1, 1)])
    with pytest.raises(InvalidDelta) as refused:
        step(spark, runner, [("a", 5, -2), ("a", 3, -1), ("b", 7, -1), ("b", 1, 1)])
    first = refused.value
    assert (first.key, first.value, first.available, first.removed) == ("a", 5, 1, 2)
    assert [(o.key, o.value, o.available, o.removed) for o in first.others] == [("b", 7, 0, 1)]
    assert len(seen) == 1 and runner.version.number == 1  # nothing handed on, nothing committed
    step(spark, runner, [("a", 5, -1)])
    assert view_of(runner) == {"a": 3, "b": 1} and seen[-1] == {"a": 3}


@pytest.mark.spec("SKIP-DEC-SPARK-BULK", evidence="example")
@pytest.mark.parametrize("reducer", ["sum", "min", "xor"])
def test_a_batch_checked_with_its_keys_is_refused_as_one_checked_alone(spark: Any, tmp_path: Any,
                                                                      reducer: str) -> None:
    """After a step that removed, the next batch's removals are checked in the job that computes
    its touched keys: a breach is refused with the same facts, nothing handed on or committed;
    a batch that then removes nothing is taken as any."""
    from spark_impl.reduce.bulk_view import LastBatch
    from spark_impl.reduce.maintained_view import InvalidDelta
    from spark_impl.reduce.reducer_kinds import PythonReducer

    seen: list[dict[Any, Any]] = []
    xor = PythonReducer("xor", 0, lambda a, v: a ^ v, lambda a, v: a ^ v)
    runner = bulk_runner(spark, f"file://{tmp_path}", seen, reducer=xor if reducer == "xor" else reducer)
    step(spark, runner, [("a", 5, 1), ("a", 3, 1), ("b", 1, 1), ("b", 2, 1)])
    assert not runner._checked_with_keys(spark.createDataFrame([], "k string, v bigint, w bigint"))
    step(spark, runner, [("b", 2, -1)])  # a load removes nothing: this batch's check a job of its own
    assert runner.last_batch == LastBatch(1, True)
    with pytest.raises(InvalidDelta) as refused:
        step(spark, runner, [("a", 5, -2), ("a", 3, -1), ("b", 7, -1), ("c", 1, 1)])
    first = refused.value
    assert (first.key, first.value, first.available, first.removed) == ("a", 5, 1, 2)
    assert [(o.key, o.value, o.available, o.removed) for o in first.others] == [("b", 7, 0, 1)]
    assert len(seen) == 2 and runner.version.number == 2
    step(spark, runner, [("c", 4, 1)])  # predicted to remove, removes nothing
    assert runner.last_batch == LastBatch(1, False)
    # a Python reducer's accumulator is the canonical JSON text of its value
    expected = {"sum": {"a": 8, "b": 1, "c": 4}, "min": {"a": 3, "b": 1, "c": 4}, "xor": {"a": "6", "b": "1", "c": "4"}}
    assert view_of(runner) == expected[reducer] and seen[-1] == {"c": expected[reducer]["c"]}


@pytest.mark.spec("SKIP-DEC-SPARK-BULK", evidence="example")
def test_a_batch_predicted_to_be_merged_is_not_checked_with_its_keys(spark: Any, tmp_path: Any,
                                                                     monkeypatch: Any) -> None:
    """The check joins the touched keys' job when the last batch removed and a batch its size
    would be written as a run, whatever its size; a batch that would be merged is checked by
    its merge, and one of several parts part by part, after it."""
    from spark_impl.reduce import bulk_view

    runner = bulk_runner(spark, f"file://{tmp_path}", [])
    one_part = spark.createDataFrame([], "k string, v bigint, w bigint")
    several = spark.createDataFrame([], "k string, v bigint, w bigint, part string")
    step(spark, runner, [("a", v, 1) for v in range(8)])
    step(spark, runner, [("a", 0, -1), ("a", 1, -1), ("a", 9, 1)])
    assert runner._checked_with_keys(one_part) and not runner._checked_with_keys(several)
    monkeypatch.setattr(bulk_view, "RUNS_MIN", 2)  # a batch of 3 rows over 8 stored: merged
    assert runner._merge_due(runner.last_batch.rows) and not runner._checked_with_keys(one_part)
    step(spark, runner, [("a", 2, -1), ("a", 3, -1), ("a", 10, 1)])
    assert runner.version.pairs[0].startswith("base-") and len(runner.version.pairs) == 1
    assert view_of(runner) == {"a": 4 + 5 + 6 + 7 + 9 + 10}


@pytest.mark.spec("SKIP-DEC-SPARK-BULK", evidence="example")
def test_a_step_touching_many_keys_writes_a_new_keys_base(spark: Any, tmp_path: Any, monkeypatch: Any) -> None:
    """A step touching at most KEY_RUN_SHARE of the keys (or RUNS_MIN) writes their entries as
    a run; one touching more writes a new base of every key's newest entry, the runs gone."""
    from spark_impl.reduce import bulk_view

    monkeypatch.setattr(bulk_view, "RUNS_MIN", 1)
    monkeypatch.setattr(bulk_view, "KEY_RUN_SHARE", 0.1)
    runner = bulk_runner(spark, f"file://{tmp_path}", [])
    step(spark, runner, [(f"k{i}", 1, 1) for i in range(20)])
    assert runner.version.keys == ("keys-000001",)
    step(spark, runner, [("k0", 2, 1), ("k1", 2, 1)])  # 2 of 20 keys: a run
    assert runner.version.keys == ("keys-000001", "keyrun-000002")
    step(spark, runner, [("k2", 2, 1), ("k3", 2, 1), ("k4", 2, 1)])  # 3 of 20: a new base
    assert runner.version.keys == ("keys-000003",) and runner.version.key_run_rows == 0
    assert view_of(runner) == {f"k{i}": 3 if i < 5 else 1 for i in range(20)}


@pytest.mark.spec("SKIP-DEC-SPARK-BULK", evidence="example")
@pytest.mark.parametrize("reducer", ["sum", "min", "xor"])
def test_a_batch_read_from_a_folder_is_copied_as_its_run(spark: Any, tmp_path: Any, monkeypatch: Any,
                                                        reducer: str) -> None:
    """A batch given as a folder becomes a run by a copy of its files (the pairs hold values
    as the batch has them, a Python reducer's too), read back as the step read them (a null
    weight is 1, a zero weight nothing); the folder stays where it was; a runner built again
    reads the copy; a merge takes it in."""
    import pandas as pd

    from spark_impl.reduce import bulk_view
    from spark_impl.reduce.reducer_kinds import PythonReducer

    xor = PythonReducer("xor", 0, lambda a, v: a ^ v, lambda a, v: a ^ v)
    root = f"file://{tmp_path}/view"
    runner = bulk_runner(spark, root, reducer=xor if reducer == "xor" else reducer)
    step(spark, runner, [("a", 5, 1), ("a", 3, 1), ("b", 1, 1)])
    folder = tmp_path / "batch"
    folder.mkdir()
    batch = pd.DataFrame({"k": ["a", "b", "c", "c"], "v": [5, 2, 7, 9], "w": [-1, None, 1, 0]})
    batch.astype({"w": "Int64"}).to_parquet(folder / "part-0.parquet", index=False)
    runner.step_folder(f"file://{folder}")
    assert (folder / "part-0.parquet").exists()
    assert runner.version.raw == ("pairs-000002",)
    expected = {"sum": {"a": 3, "b": 3, "c": 7}, "min": {"a": 3, "b": 1, "c": 7},
                "xor": {"a": "3", "b": "3", "c": "7"}}[reducer]
    assert view_of(runner) == expected
    again = bulk_runner(spark, root, reducer=xor if reducer == "xor" else reducer)
    assert view_of(again) == expected and again.stored_sizes() == {"rows": 4, "keys": 3}
    monkeypatch.setattr(bulk_view, "RUNS_MIN", 1)  # the next batch merged: the copied run taken in
    step(spark, again, [("b", 2, -1), ("c", 7, -1)])
    assert again.version.pairs == ("base-000003",) and again.version.raw == ()
    assert again.stored_sizes() == {"rows": 2, "keys": 2}


@pytest.mark.parametrize("reducer", ["sum", "min"])
def test_a_null_key_is_a_key_like_any(spark: Any, tmp_path: Any, reducer: str) -> None:
    """The keys table and the pairs are joined on the key null-safely (as a stream view groups
    it): a null key's entry is replaced at each step, never duplicated, and its removals are
    checked against its own values."""
    from spark_impl.reduce.maintained_view import InvalidDelta

    seen: list[dict[Any, Any]] = []
    runner = bulk_runner(spark, f"file://{tmp_path}", seen, reducer=reducer)
    step(spark, runner, [(None, 3, 1), (None, 5, 1), ("a", 1, 1)])  # type: ignore[list-item]
    step(spark, runner, [(None, 3, -1), (None, 7, 1)])  # type: ignore[list-item]
    expected = {None: 12, "a": 1} if reducer == "sum" else {None: 5, "a": 1}
    assert view_of(runner) == expected and seen[-1] == {None: expected[None]}
    assert runner.read_view().count() == 2
    with pytest.raises(InvalidDelta):
        step(spark, runner, [(None, 3, -1)])  # type: ignore[list-item]


def test_an_overflowing_sum_is_refused_and_the_state_kept(spark: Any, tmp_path: Any) -> None:
    from spark_impl.reduce.maintained_view import InvalidInput

    big = 9 * 10**37  # twice that leaves decimal(38,0)
    runner = bulk_runner(spark, f"file://{tmp_path}", value_type="decimal(38,0)")
    step(spark, runner, [("a", big, 1), ("b", 1, 1)])
    with pytest.raises(InvalidInput, match=r"key 'a': its accumulator leaves decimal\(38,0\)"):
        step(spark, runner, [("a", big - 1, 1)])
    assert view_of(runner) == {"a": big, "b": 1}


@pytest.mark.spec("SKIP-DEC-SPARK-BULK", evidence="example")
def test_a_step_that_fails_before_its_manifest_leaves_the_last_version_in_force(
        spark: Any, tmp_path: Any, monkeypatch: Any) -> None:
    """Tables written, manifest not written into place (a crash there): a runner built again
    reads the version before the step, and the step run again commits it."""
    root = f"file://{tmp_path}"
    runner = bulk_runner(spark, root)
    step(spark, runner, [("a", 1, 1), ("b", 2, 1)])
    write_text = runner.fs.write_text

    def crash(path: str, text: str) -> None:
        if path.endswith(".json"):
            raise OSError("killed before the manifest")
        write_text(path, text)

    monkeypatch.setattr(runner.fs, "write_text", crash)
    with pytest.raises(OSError, match="killed"):
        step(spark, runner, [("a", 1, -1), ("c", 3, 1)])
    again = bulk_runner(spark, root)
    assert again.version.number == 1 and view_of(again) == {"a": 1, "b": 2}
    step(spark, again, [("a", 1, -1), ("c", 3, 1)])
    assert view_of(bulk_runner(spark, root)) == {"b": 2, "c": 3}


def test_a_sink_that_fails_commits_nothing(spark: Any, tmp_path: Any) -> None:
    from spark_impl.reduce.bulk_view import BulkViewRunner

    root = f"file://{tmp_path}"
    step(spark, bulk_runner(spark, root), [("a", 1, 1)])

    def broken(changes: Any, batch_id: int) -> None:
        raise RuntimeError("the sink is down")

    runner = BulkViewRunner(spark, "sum", "string", "bigint", root, broken)
    with pytest.raises(RuntimeError, match="down"):
        step(spark, runner, [("a", 1, 1)])
    assert bulk_runner(spark, root).version.number == 1 and view_of(bulk_runner(spark, root)) == {"a": 1}


def test_runs_past_their_share_are_merged_into_one_base(spark: Any, tmp_path: Any, monkeypatch: Any) -> None:
    import spark_impl.reduce.bulk_view as bulk

    monkeypatch.setattr(bulk, "RUNS_MIN", 2)
    runner = bulk_runner(spark, f"file://{tmp_path}")
    step(spark, runner, [("a", 1, 1), ("a", 2, 1), ("b", 3, 1), ("b", 4, 1)])
    assert runner.version.pairs == ("base-000001",) and runner.version.base_rows == 4
    step(spark, runner, [("a", 1, -1), ("c", 5, 2)])  # 2 run rows: not past max(2, 0.5 · 4)
    assert runner.version.pairs == ("base-000001", "pairs-000002")
    step(spark, runner, [("a", 2, -1)])               # 3 run rows: merged; (a, ·) is gone
    assert runner.version.pairs == ("base-000003",) and runner.version.base_rows == 3
    assert runner.stored_sizes() == {"rows": 3, "keys": 2}
    assert view_of(runner) == {"b": 7, "c": 10}
    names = set(runner.fs.names(runner.state))
    assert {"base-000001", "pairs-000002"}.isdisjoint(names)


@pytest.mark.parametrize("reducer", ["sum", "min"])
def test_a_step_that_merges_checks_its_removals_in_the_merge(spark: Any, tmp_path: Any, monkeypatch: Any,
                                                              reducer: str) -> None:
    """A batch that takes the runs past their share is merged with them and the base in one
    aggregation, which is also its check: a breach is refused as the check names it, nothing is
    committed nor left behind, and the batch that holds is merged."""
    import spark_impl.reduce.bulk_view as bulk
    from spark_impl.reduce.maintained_view import InvalidDelta

    monkeypatch.setattr(bulk, "RUNS_MIN", 2)
    seen: list[dict[Any, Any]] = []
    runner = bulk_runner(spark, f"file://{tmp_path}", seen, reducer=reducer)
    step(spark, runner, [("a", 1, 1), ("a", 2, 1), ("b", 3, 1), ("b", 4, 1)])
    with pytest.raises(InvalidDelta) as refused:  # (a, 1) held once, removed twice; (b, 9) never held
        step(spark, runner, [("a", 1, -2), ("b", 9, -1), ("c", 5, 1)])
    first = refused.value
    assert (first.key, first.value, first.available, first.removed) == ("a", 1, 1, 2)
    assert [(o.key, o.value, o.available, o.removed) for o in first.others] == [("b", 9, 0, 1)]
    assert runner.version.number == 1 and len(seen) == 1
    assert "base-000002" not in set(runner.fs.names(runner.state))
    step(spark, runner, [("a", 1, -1), ("b", 4, -1), ("c", 5, 1)])  # 3 rows: past max(2, 0.5 · 4)
    assert runner.version.pairs == ("base-000002",) and runner.version.base_rows == 3
    assert view_of(runner) == {"a": 2, "b": 3, "c": 5}
    # b's sum moves (7 to 3), its min (3) does not
    assert seen[-1] == ({"a": 2, "b": 3, "c": 5} if reducer == "sum" else {"a": 2, "c": 5})


def test_a_batch_of_several_parts_that_merges_is_checked_part_by_part(spark: Any, tmp_path: Any,
                                                                      monkeypatch: Any) -> None:
    """A later part may not lend a removal its value (SKIP-DEC-SPARK-PARTS), merge or none."""
    import spark_impl.reduce.bulk_view as bulk
    from spark_impl.driver_rows import frame_of_rows
    from spark_impl.reduce.maintained_view import InvalidDelta

    monkeypatch.setattr(bulk, "RUNS_MIN", 2)
    runner = bulk_runner(spark, f"file://{tmp_path}")
    step(spark, runner, [("a", 1, 1), ("b", 2, 1)])
    parts = "k string, v bigint, w bigint, part string, file string"
    with pytest.raises(InvalidDelta):  # its net, (c, 3): +1 -1 +1, holds; part 1 removes it first
        runner.step(frame_of_rows(spark, [("c", 3, -1, "1", "f1"), ("c", 3, 2, "2", "f2"), ("a", 1, 1, "2", "f2")],
                                  parts))
    assert runner.version.number == 1
    runner.step(frame_of_rows(spark, [("c", 3, 1, "1", "f1"), ("c", 3, -1, "2", "f2"), ("a", 1, 1, "2", "f2")],
                              parts))
    assert runner.version.pairs == ("base-000002",) and view_of(runner) == {"a": 2, "b": 2}


def test_the_keys_table_takes_runs_of_the_touched_keys_then_a_new_base(spark: Any, tmp_path: Any,
                                                                       monkeypatch: Any) -> None:
    """A step writes its touched keys' entries as a run (a key gone as an entry of size 0), so
    it costs O(touched keys); readers take each key's newest entry; past the runs' share the
    keys are written as a new base. A runner built again reads the same view."""
    import spark_impl.reduce.bulk_view as bulk

    monkeypatch.setattr(bulk, "RUNS_MIN", 2)
    root = f"file://{tmp_path}"
    seen: list[dict[Any, Any]] = []
    runner = bulk_runner(spark, root, seen)
    step(spark, runner, [("a", 1, 1), ("b", 2, 1), ("c", 3, 1), ("d", 4, 1)])
    assert runner.version.keys == ("keys-000001",) and runner.version.key_base_rows == 4
    step(spark, runner, [("a", 1, -1)])  # a gone: 1 run row, within max(2, 0.5 · 4)
    assert runner.version.keys == ("keys-000001", "keyrun-000002")
    assert view_of(runner) == {"b": 2, "c": 3, "d": 4} and runner.stored_sizes()["keys"] == 3
    step(spark, runner, [("a", 5, 1)])  # a back: 2 run rows, still within
    assert runner.version.keys == ("keys-000001", "keyrun-000002", "keyrun-000003")
    assert seen[-1] == {"a": 5} and view_of(bulk_runner(spark, root)) == {"a": 5, "b": 2, "c": 3, "d": 4}
    step(spark, runner, [("c", 3, -1), ("c", 6, 1)])  # 3 run rows: the keys written as a new base
    assert runner.version.keys == ("keys-000004",) and runner.version.key_base_rows == 4
    assert seen[-1] == {"c": 6} and view_of(bulk_runner(spark, root)) == {"a": 5, "b": 2, "c": 6, "d": 4}
    assert {"keys-000001", "keyrun-000002", "keyrun-000003"}.isdisjoint(set(runner.fs.names(runner.state)))


def test_runs_past_their_count_are_compacted_into_one(spark: Any, tmp_path: Any, monkeypatch: Any) -> None:
    """Small batches add a run each, of the pairs and of the keys; past :data:`MAX_RUNS` runs
    they are compacted into one (a pair's rows summed, a key's newest entry), so a step reads a
    bounded number of tables; the compacted run still holds what the runs held."""
    import spark_impl.reduce.bulk_view as bulk
    from spark_impl.reduce.maintained_view import InvalidDelta

    monkeypatch.setattr(bulk, "MAX_RUNS", 2)
    root = f"file://{tmp_path}"
    runner = bulk_runner(spark, root)
    step(spark, runner, [("a", 1, 1), ("a", 2, 1), ("b", 3, 1), ("b", 4, 1)])
    step(spark, runner, [("a", 1, -1)])
    step(spark, runner, [("a", 7, 1)])
    assert runner.version.pairs == ("base-000001", "pairs-000002", "pairs-000003")
    assert runner.version.keys == ("keys-000001", "keyrun-000002", "keyrun-000003")
    step(spark, runner, [("a", 7, -1), ("b", 9, 1), ("c", 5, 1)])
    # (a, 1): -1 and (b, 9), (c, 5): +1 are left of the runs; (a, 7) came and went
    assert runner.version.pairs == ("base-000001", "pairs-000004") and runner.version.run_rows == 3
    assert runner.version.keys == ("keys-000001", "keyrun-000004") and runner.version.key_run_rows == 3
    for gone in ([("a", 7, -1)], [("a", 1, -1)]):
        with pytest.raises(InvalidDelta):
            step(spark, runner, gone)
    assert view_of(bulk_runner(spark, root)) == {"a": 2, "b": 16, "c": 5}
    assert runner.stored_sizes() == {"rows": 5, "keys": 3}


def test_small_runs_are_compacted_early_and_large_ones_only_when_many() -> None:
    """Compacting costs what reading the runs does: small runs at MAX_RUNS, large ones at four times that."""
    from spark_impl.reduce.bulk_view import COMPACT_ROWS, MAX_RUNS, _compacted

    assert not _compacted(MAX_RUNS - 1, 10)
    assert _compacted(MAX_RUNS, COMPACT_ROWS)
    assert not _compacted(MAX_RUNS, COMPACT_ROWS + 1)  # e.g. four 10^5-change batches' runs
    assert not _compacted(4 * MAX_RUNS - 1, 10**7)
    assert _compacted(4 * MAX_RUNS, 10**7)  # small runs piled on large ones stay bounded
