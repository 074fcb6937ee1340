"""The Spark reduce engine against the reference (SKIP-DEF-5, SKIP-DEF-8..10)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.protocols import EngineError
from tests.spark.oracle import ReduceModel, assert_replay_matches

if TYPE_CHECKING:
    from spark_impl.protocol.reduce import RunnerPath

pytestmark = pytest.mark.spark

NAMES = ["sum", "count", "min", "max"]


def engine_for(spark: Any, name: str, params: dict[str, Any] | None = None,
               path: RunnerPath = "stream") -> Any:
    from spark_impl.protocol.reduce import SparkReduceEngine

    engine = SparkReduceEngine(spark, path=path)
    engine.declare(name, params or {})
    return engine


@pytest.mark.parametrize("name", ["min"])  # the suite's cases cover every reducer; min declines
@pytest.mark.heavy
def test_trace_matches_recompute(spark: Any, name: str) -> None:
    """Load, then deltas that add, remove, empty a key, and re-add it."""
    engine, model = engine_for(spark, name), ReduceModel(name)
    steps: list[tuple[dict[Any, list[int]], dict[Any, list[int]]]] = [
        ({"a": [1], "c": [4]}, {"b": [1], "a": [3]}),
        ({}, {"a": [5, 7]}),          # removes the minimum and the maximum of "a"
        ({"b": [2, 2]}, {"c": [4]}),  # "c" empties and leaves the view
        ({("t", 1): [-3]}, {"b": [2]}),
    ]
    obs = engine.load({"a": [3, 5, 7], "b": [1], ("t", 1): [2, 2]})
    assert (dict(obs.view), dict(obs.changes)) == model.load({"a": [3, 5, 7], "b": [1], ("t", 1): [2, 2]})
    for plus, minus in steps:
        obs = engine.apply(plus, minus)
        assert (dict(obs.view), dict(obs.changes)) == model.apply(plus, minus), (plus, minus)


@pytest.mark.parametrize("name", ["saturating_sum"])  # a Python reducer: the check is not native
@pytest.mark.parametrize("path", ["stream", "bulk"])
@pytest.mark.heavy
def test_invalid_delta_refused_and_state_unchanged(spark: Any, name: str, path: RunnerPath) -> None:
    params = {"cap": 100} if name == "saturating_sum" else {}
    engine = engine_for(spark, name, params, path=path)
    before = engine.load({"a": [3, 5], "b": [1]})
    with pytest.raises(EngineError) as refused:
        engine.apply({"a": [1]}, {"a": [5, 5]})  # 5 occurs once in C(a)
    assert refused.value.error_class == "invalid-delta"
    assert "'a'" in str(refused.value) and "5" in str(refused.value)
    # The refused delta left nothing behind: the next valid delta sees the old state.
    after = engine.apply({}, {"b": [1]})
    assert dict(after.view) == {"a": 8}
    assert dict(after.changes) == {"b": None}
    assert dict(before.view) == {"a": 8, "b": 1}


@pytest.mark.parametrize("path", ["stream", "bulk"])  # bulk: SKIP-DEC-SPARK-BULK's tables
def test_removing_from_an_absent_key_is_refused(spark: Any, path: RunnerPath) -> None:
    engine = engine_for(spark, "count", path=path)
    engine.load({"a": ["x"]})
    with pytest.raises(EngineError) as refused:
        engine.apply({}, {"z": ["x"]})
    assert refused.value.error_class == "invalid-delta"


def test_unknown_reducer_is_malformed_input(spark: Any) -> None:
    from spark_impl.protocol.reduce import SparkReduceEngine

    with pytest.raises(EngineError) as refused:
        SparkReduceEngine(spark).declare("no-such-reducer", {})
    assert refused.value.error_class == "malformed-input"


@pytest.mark.parametrize("path", ["stream", "bulk"])
def test_ill_formed_reducer_runs_skip_update(spark: Any, path: RunnerPath) -> None:
    """saturating_sum runs as declared (SKIP-DEF-10): removals first, then additions."""
    engine = engine_for(spark, "saturating_sum", {"cap": 10}, path=path)
    assert dict(engine.load({"a": [3, 5, 7]}).view) == {"a": 10}
    # update: (10 - 3) then min(10, 7 + 1) = 8, while a recompute would give min(10, 13) = 10
    assert dict(engine.apply({"a": [1]}, {"a": [3]}).view) == {"a": 8}


keys = st.sampled_from(["a", "b", ("t", 1)])
values = st.integers(-4, 4)


@st.composite
def traces(draw: Any) -> tuple[dict[Any, list[int]], list[tuple[dict[Any, list[int]], dict[Any, list[int]]]]]:
    initial = draw(st.dictionaries(keys, st.lists(values, max_size=4)))
    current = {k: list(vs) for k, vs in initial.items()}
    steps = []
    for _ in range(draw(st.integers(1, 3))):
        plus = draw(st.dictionaries(keys, st.lists(values, max_size=2), max_size=2))
        minus: dict[Any, list[int]] = {}
        for k, vs in current.items():
            chosen = draw(st.lists(st.sampled_from(vs), max_size=2, unique=True)) if vs else []
            if chosen:
                minus[k] = chosen
        if draw(st.booleans()):  # sometimes an invalid removal
            minus.setdefault("b", []).append(9)
        steps.append((plus, minus))
        if not ("b" in minus and 9 in minus["b"] and 9 not in current.get("b", [])):
            for k, vs in minus.items():
                for v in vs:
                    current[k].remove(v)
            for k, vs in plus.items():
                current.setdefault(k, []).extend(vs)
    return initial, steps


@settings(max_examples=4)  # lowered: each example is ~10 Spark jobs (~2 s)
@given(st.sampled_from(NAMES), traces())
@pytest.mark.heavy
def test_random_traces_match_recompute(spark: Any, name: str, trace: Any) -> None:
    initial, steps = trace
    assert_replay_matches(engine_for(spark, name), ReduceModel(name), initial, steps)


@pytest.mark.parametrize("path", ["stream", "bulk"])
def test_python_reducer_declining_remove_recomputes_the_key(spark: Any, tmp_path: Any,
                                                            path: RunnerPath) -> None:
    """The library face with a user reducer: a custom min whose remove declines on the
    minimum; those keys are refolded from their values kept in the state store (the
    tables, on the bulk path) (SKIP-DEC-PARTIAL), the others updated in place."""
    from spark_impl.reduce.bulk_view import BulkViewRunner
    from spark_impl.reduce.reducer_kinds import PythonReducer
    from spark_impl.reduce.view_runner import ViewRunner

    custom_min = PythonReducer(
        "custom-min", None,
        lambda a, v: v if a is None or v < a else a,
        lambda a, v: None if a is None or v <= a else a,
    )
    seen: list[dict[str, Any]] = []

    def sink(changes: Any, batch_id: int) -> None:
        seen.append({r["key"]: r["accumulator"] if r["present"] else None for r in changes.collect()})

    kind = ViewRunner if path == "stream" else BulkViewRunner
    runner = kind(spark, custom_min, "string", "bigint", f"file://{tmp_path}", sink)
    try:
        rows = "k string, v bigint, w bigint"
        runner.step(spark.createDataFrame([("a", 3, 1), ("a", 5, 2), ("b", 1, 1), ("c", 8, 1)], rows))
        runner.step(spark.createDataFrame([("a", 3, -1), ("b", 2, 1), ("c", 9, 1)], rows))
        # a declined (3 was its min) and was refolded; b and c kept their min: no change
        assert seen == [{"a": "3", "b": "1", "c": "8"}, {"a": "5"}]
        view = {r["key"]: r["accumulator"] for r in runner.read_view().collect()}
        assert view == {"a": "5", "b": "1", "c": "8"}
        # one (key, value) pair per value present: (a, 3), at 0, is gone
        assert runner.stored_sizes() == {"rows": 5, "keys": 3}
    finally:
        runner.stop()


def test_integer_sums_are_exact(spark: Any) -> None:
    """10^30 + 1 is not rounded (decimal(38,0) end to end; an overflow fails the batch)."""
    engine = engine_for(spark, "sum")
    assert dict(engine.load({"k": [10**30]}).view) == {"k": 10**30}
    step = engine.apply({"k": [1]}, {})
    assert dict(step.view) == {"k": 10**30 + 1} and dict(step.changes) == {"k": 10**30 + 1}


def test_a_fold_view_restarted_with_another_bucket_count_is_refused(spark: Any, tmp_path: Any) -> None:
    """A key's fold state lives under its hash bucket, so a restart with another bucket
    count would look keys up in the wrong bucket. The count is recorded with the
    checkpoint: a restart asking for another is refused in one line before anything runs,
    the state untouched; one asking for none goes on with the recorded count."""
    from spark_impl.errors import SparkEngineError
    from spark_impl.reduce.view_runner import ViewRunner

    root, rows = f"file://{tmp_path}", "k string, v bigint, w bigint"
    start = {k: v for v, k in enumerate("abcdef")}

    def run_changes(changes: Any, _: int) -> None:
        changes.collect()  # the sink runs the micro-batch (a fold view's changes are lazy)

    def runner(buckets: int | None = None) -> ViewRunner:
        return ViewRunner(spark, "min", "string", "bigint", root, run_changes, buckets=buckets)

    def view(run: ViewRunner) -> dict[str, int]:
        return {r["key"]: r["accumulator"] for r in run.read_view().collect()}

    first = runner(3)
    try:
        first.step(spark.createDataFrame([(k, v, 1) for k, v in start.items()], rows))
        before = view(first)
    finally:
        first.stop()
    with pytest.raises(SparkEngineError) as refused:
        runner(2)  # the session's shuffle partitions: what an unrecorded restart would use
    message = str(refused.value)
    assert refused.value.error_class == "unsupported" and "\n" not in message
    assert "3 hash buckets" in message and "restarted with 2" in message
    again = runner()
    try:
        assert view(again) == before == start
        again.step(spark.createDataFrame([("a", 0, -1), ("a", 9, 1), ("f", 1, 1)], rows))
        assert view(again) == {**before, "a": 9, "f": 1}
    finally:
        again.stop()


def test_a_fold_view_has_as_many_buckets_as_the_session_has_shuffle_partitions(
        spark: Any, tmp_path: Any) -> None:
    """The operator's state has one partition per shuffle partition: by default each gets a
    bucket (a constant count left partitions idle, or capped the cluster's parallelism)."""
    from spark_impl.reduce.fold_buckets import fold_buckets

    partitions = int(spark.conf.get("spark.sql.shuffle.partitions"))
    assert fold_buckets(spark, None) == partitions
    checkpoint = f"file://{tmp_path}/checkpoint"
    assert fold_buckets(spark, checkpoint) == partitions  # recorded: a restart keeps it
    spark.conf.set("spark.sql.shuffle.partitions", str(partitions + 1))
    try:
        assert fold_buckets(spark, checkpoint) == partitions
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", str(partitions))


@pytest.mark.spec("SKIP-DEC-SPARK-STATE", evidence="example")
@pytest.mark.parametrize("written", ["before the bucket count was recorded", "with a bucket count only"])
def test_a_fold_checkpoint_in_the_old_state_layout_is_refused(spark: Any, tmp_path: Any,
                                                             written: str) -> None:
    """A checkpoint whose fold state keeps each key's multiset as one JSON text (layout 1:
    with committed micro-batches and no record, or a record without a layout) is refused in
    one line before anything runs, not misread; a new one records the layout it is written in."""
    from spark_impl.errors import SparkEngineError
    from spark_impl.reduce.fold_buckets import fold_buckets
    from spark_impl.reduce.keyed_fold import STATE_LAYOUT

    (tmp_path / "commits").mkdir()
    (tmp_path / "commits" / "0").write_text("v1\n")
    if written == "with a bucket count only":
        (tmp_path / "fold-buckets.json").write_text('{"buckets": 3}')
    with pytest.raises(SparkEngineError) as refused:
        fold_buckets(spark, f"file://{tmp_path}")
    message = str(refused.value)
    assert refused.value.error_class == "unsupported" and "\n" not in message
    assert "layout 1" in message and "start a new checkpoint" in message
    assert fold_buckets(spark, f"file://{tmp_path}/new", 3) == 3
    record = json.loads((tmp_path / "new" / "fold-buckets.json").read_text())
    assert record == {"buckets": 3, "layout": STATE_LAYOUT}


def test_a_runner_s_polling_delay_is_its_own_query_s_alone(spark: Any, tmp_path: Any) -> None:
    """``ViewRunner(polling_delay=...)`` (the lockstep engine's idle groups) reaches the
    runner's query, which reads it from its own copy of the session when it starts; the
    session's conf is left as it was, so no other query gets it."""
    from spark_impl.reduce.view_runner import POLLING_DELAY, ViewRunner

    before = spark.conf.get(POLLING_DELAY, None)
    seen: list[Any] = []
    runner = ViewRunner(spark, "sum", "string", "bigint", f"file://{tmp_path}",
                        lambda changes, _: seen.extend(changes.collect()), polling_delay="250ms")
    try:
        runner.step(spark.createDataFrame([("a", 2, 1)], "k string, v bigint, w bigint"))
        assert runner.query is not None
        streaming = runner.query._jsq.streamingQuery()  # the query's own session (JVM side)
        assert streaming.sparkSessionForStream().conf().get(POLLING_DELAY) == "250ms"
    finally:
        runner.stop()
    assert spark.conf.get(POLLING_DELAY, None) == before
    assert [(r["key"], r["accumulator"]) for r in seen] == [("a", 2)]
