"""The Spark Z-set dataflow against the reference's standard semantics (DD-DEC-DATAFLOW)."""

from __future__ import annotations

import os
from typing import Any

import pytest

from conformance.protocols import EngineError
from reference.differential.dataflow import (
    program_from_json,
    standard_output_deltas,
    zset_from_rows,
)

pytestmark = pytest.mark.spark


def inp(name: str) -> dict[str, Any]:
    return {"op": "input", "name": name}


PROGRAMS: dict[str, dict[str, Any]] = {
    "join-distinct": {"inputs": ["a", "b"], "output": {"op": "distinct", "arg": {
        "op": "map", "fn": "fst", "arg": {"op": "join", "left": inp("a"), "right": inp("b")}}}},
    "reach": {"inputs": ["edges", "roots"], "output": {
        "op": "iterate", "var": "x", "seed": inp("roots"), "body": {"op": "distinct", "arg": {
            "op": "plus", "left": inp("roots"), "right": {"op": "map", "fn": "snd", "arg": {
                "op": "map", "fn": "snd", "arg": {"op": "join", "left": {
                    "op": "map", "fn": "dup", "arg": {"op": "var", "name": "x"}},
                    "right": inp("edges")}}}}}}},
}

TRACES: dict[str, list[dict[str, list[list[Any]]]]] = {
    "join-distinct": [{"a": [[[1, "x"], 1], [[2, "y"], 2]], "b": [[[1, 7], 1]]},
                      {"b": [[[2, 8], 1], [[1, 7], -1]]}, {"a": [[[2, "y"], -2]]}],
    "reach": [{"roots": [[0, 1]], "edges": [[[0, 1], 1], [[1, 2], 1]]},
              {"edges": [[[2, 3], 1], [[0, 1], -1]]}, {"edges": [[[0, 2], 1]]}],
}


def spark_engine(spark: Any) -> Any:
    from spark_impl.protocol.zset import SparkZSetEngine

    return SparkZSetEngine(spark)


def assert_matches_standard_semantics(spark: Any, name: str, program: dict[str, Any],
                                      trace: list[dict[str, Any]]) -> None:
    """The engine's output delta at each version equals the reference's standard semantics
    (the test's oracle; the engine does not call the reference)."""
    expected = standard_output_deltas(
        program_from_json(program), [{n: zset_from_rows(rows) for n, rows in d.items()} for d in trace])
    engine = spark_engine(spark)
    engine.build(program)
    for delta, want in zip(trace, expected, strict=True):
        got = engine.step({n: [(_tuples(e), w) for e, w in rows] for n, rows in delta.items()})
        assert dict(got) == dict(want.items()), (name, delta)


@pytest.mark.parametrize("name", sorted(PROGRAMS))  # the suite's zset cases cover the rest
@pytest.mark.heavy
def test_output_deltas_match_the_standard_semantics(spark: Any, name: str) -> None:
    program, trace = PROGRAMS[name], TRACES[name]
    assert_matches_standard_semantics(spark, name, program, trace)


def test_wrong_shape_is_malformed_input(spark: Any) -> None:
    engine = spark_engine(spark)
    engine.build({"inputs": ["a"], "output": {"op": "map", "fn": "fst", "arg": inp("a")}})
    with pytest.raises(EngineError) as refused:
        engine.step({"a": [(3, 1)]})
    assert refused.value.error_class == "malformed-input"


def test_unknown_function_is_malformed_input(spark: Any) -> None:
    with pytest.raises(EngineError) as refused:
        spark_engine(spark).build({"inputs": ["a"], "output": {"op": "map", "fn": "nope", "arg": inp("a")}})
    assert refused.value.error_class == "malformed-input"


def test_non_converging_iterate_is_no_fixpoint(spark: Any) -> None:
    engine = spark_engine(spark)
    engine.build({"inputs": ["a"], "max_iterations": 3, "output": {
        "op": "iterate", "var": "x", "seed": inp("a"), "body": {"op": "map", "fn": "inc",
                                                              "arg": {"op": "var", "name": "x"}}}})
    with pytest.raises(EngineError) as refused:
        engine.step({"a": [(0, 1)]})
    assert refused.value.error_class == "no-fixpoint"


def _tuples(v: Any) -> Any:
    return tuple(_tuples(x) for x in v) if isinstance(v, list) else v


# --- the nested-time rule of iterate (DD-CLAIM-RULE-ITERATE) ------------------------------


def var(name: str) -> dict[str, Any]:
    return {"op": "var", "name": name}


def reach_body(x: dict[str, Any], start: dict[str, Any]) -> dict[str, Any]:
    """``distinct(start + successors of x)`` (x a set of nodes, edges [src, dst])."""
    return {"op": "distinct", "arg": {"op": "plus", "left": start, "right": {
        "op": "map", "fn": "snd", "arg": {"op": "map", "fn": "snd", "arg": {
            "op": "join", "left": {"op": "map", "fn": "dup", "arg": x}, "right": inp("edges")}}}}}


LOOP_PROGRAMS: dict[str, dict[str, Any]] = {
    "reach": {"inputs": ["edges", "roots"], "output": {
        "op": "iterate", "var": "x", "seed": inp("roots"), "body": reach_body(var("x"), inp("roots"))}},
    # connected labels: each node's least label among the labels reaching it (reduce in a loop)
    "min-label": {"inputs": ["edges", "labels"], "output": {
        "op": "iterate", "var": "x", "seed": inp("labels"), "body": {"op": "reduce", "agg": "min", "arg": {
            "op": "plus", "left": inp("labels"), "right": {"op": "map", "fn": "swap", "arg": {
                "op": "map", "fn": "snd", "arg": {"op": "join", "left": var("x"), "right": inp("edges")}}}}}}},
    # a loop in a loop: the outer one re-runs a reachability from its own variable
    "nested-reach": {"inputs": ["edges", "roots"], "output": {
        "op": "iterate", "var": "x", "seed": inp("roots"), "body": {"op": "distinct", "arg": {
            "op": "plus", "left": var("x"), "right": {
                "op": "iterate", "var": "y", "seed": var("x"), "body": reach_body(var("y"), var("x"))}}}}},
}


def _random_versions(name: str, seed: int, versions: int) -> list[dict[str, list[list[Any]]]]:
    """Insertions, and deletions of present elements, over a few small inputs."""
    import random

    rng = random.Random(seed)
    present: dict[str, list[Any]] = {"edges": [], "roots": [], "labels": []}
    out = []
    for v in range(versions):
        delta: dict[str, list[list[Any]]] = {}
        for _ in range(rng.randint(1, 3) if v else 5):
            if present["edges"] and rng.random() < 0.3:
                e = present["edges"].pop(rng.randrange(len(present["edges"])))
                delta.setdefault("edges", []).append([e, -1])
            else:
                e = [rng.randint(0, 5), rng.randint(0, 5)]
                present["edges"].append(e)
                delta.setdefault("edges", []).append([e, 1])
        other = "labels" if name == "min-label" else "roots"
        if v == 0 or rng.random() < 0.3:
            n = rng.randint(0, 5)
            x: Any = [n, n] if other == "labels" else n
            if x in present[other]:
                present[other].remove(x)
                delta[other] = [[x, -1]]
            else:
                present[other].append(x)
                delta[other] = [[x, 1]]
        out.append(delta)
    return out


@pytest.mark.parametrize(("name", "seed"), [
    ("reach", 1), ("min-label", 2),
    pytest.param("nested-reach", 3, marks=pytest.mark.slow),  # a loop in a loop: minutes
])
@pytest.mark.heavy
def test_iterate_agrees_with_the_reference_on_generated_versions(spark: Any, name: str, seed: int) -> None:
    """The engine's output deltas (nested-time rule) against the reference's standard semantics
    (the test's oracle; the engine does not call the reference)."""
    program = LOOP_PROGRAMS[name]
    trace = _random_versions(name, seed, 4)
    assert_matches_standard_semantics(spark, name, program, trace)


@pytest.mark.slow  # a chain iterated to convergence, then changed: minutes
def test_a_change_after_convergence_works_only_at_the_affected_times(spark: Any) -> None:
    """Reachability along the chain 0 -> 1 -> .. -> 6 from 0. Adding the edge 6 -> 7 after
    convergence affects one key at one time, (1, 6): one distinct evaluation on one key,
    where the first version evaluated distinct at every iteration."""
    engine = spark_engine(spark)
    engine.build(LOOP_PROGRAMS["reach"])
    first = engine.step({"roots": [(0, 1)], "edges": [((i, i + 1), 1) for i in range(6)]})
    assert dict(first) == {i: 1 for i in range(7)}
    assert engine.work["keyed_evaluations"] >= 6 and engine.work["affected_keys"] >= 7
    assert dict(engine.step({"edges": [((6, 7), 1)]})) == {7: 1}
    assert engine.work["keyed_evaluations"] == 1 and engine.work["affected_keys"] == 1
    assert dict(engine.step({"edges": [((6, 7), -1)]})) == {7: -1}
    assert engine.work["keyed_evaluations"] == 1 and engine.work["affected_keys"] == 1
    assert dict(engine.step({"edges": [((9, 8), 1)]})) == {}  # an unreachable edge: no key at all
    assert engine.work["affected_keys"] == 0 and engine.work["recorded"] == 1  # the edge itself


@pytest.mark.heavy
def test_a_trace_is_read_in_the_session_partition_count_however_many_pieces_it_keeps(spark: Any) -> None:
    """Four versions of ``distinct(join(a, b))``: each version adds a piece to the
    traces of the join's inputs and of the distinct's argument, and a trace is read as
    the union of its pieces; read so, it stays in the session's partition count (the
    union had its pieces' partitions together: a Z-set loop's trace reached 112 tasks a
    stage within four versions), and the outputs are the standard semantics'."""
    from spark_impl.storage.frames import session_partitions

    trace = [*TRACES["join-distinct"], {"a": [[[3, "z"], 1]], "b": [[[3, 9], 1]]}]
    expected = standard_output_deltas(program_from_json(PROGRAMS["join-distinct"]),
                                      [{n: zset_from_rows(rows) for n, rows in d.items()} for d in trace])
    engine = spark_engine(spark)
    engine.build(PROGRAMS["join-distinct"])
    for delta, want in zip(trace, expected, strict=True):
        got = engine.step({n: [(_tuples(e), w) for e, w in rows] for n, rows in delta.items()})
        assert dict(got) == dict(want.items()), delta
    kept = [t for t in engine.flow.traces.values() if len(t.times()) > 1]
    assert kept  # some trace holds several versions' pieces
    for t in kept:
        assert t.rows(t.times()).rdd.getNumPartitions() <= session_partitions(t.rows(t.times())), t.times()


# --- the dataflow's state in reliable storage ------------------------------------------------


def _kept_frames(flow: Any) -> list[Any]:
    """Every frame the dataflow keeps from one step to the next: its traces' pieces and
    bases, its input and output logs' parts."""
    frames = [f for t in flow.traces.values() for f in [*t.pieces.values(), *([] if t.base is None else [t.base])]]
    return frames + [f for log in [*flow._inputs.values(), flow._output] for f in log.parts]


def _local(url: Any) -> str:
    """A ``file:`` URL (``file:/x``, ``file:///x``) as a local path."""
    return "/" + str(url).removeprefix("file:").lstrip("/")


def _location(spark: Any) -> str:
    """The session's checkpoint location, as a local folder (the test session's is one)."""
    return _local(spark.sparkContext.getCheckpointDir())


def _folders(files: Any) -> set[str]:
    return {os.path.dirname(_local(f)) for f in files}


def _stored_tables(spark: Any, since: set[str]) -> set[str]:
    """The folders of Parquet files under the checkpoint location, less those of ``since``."""
    found = set()
    for folder, _, names in os.walk(_location(spark)):
        if any(n.endswith(".parquet") for n in names):
            found.add(folder)
    return found - since


@pytest.mark.heavy
def test_the_kept_frames_are_files_under_the_checkpoint_location(spark: Any) -> None:
    """After steps of a loop and a join (pieces at several times, a compacted trace, the
    input and output logs), every frame the dataflow keeps reads files under the session's
    checkpoint location alone, and no local checkpoint (an executor's blocks, lost with it)."""
    engine = spark_engine(spark)
    engine.build(PROGRAMS["reach"])
    for delta in TRACES["reach"]:
        engine.step({n: [(_tuples(e), w) for e, w in rows] for n, rows in delta.items()})
    frames = _kept_frames(engine.flow)
    assert len(frames) > 5
    for frame in frames:
        plan = frame._jdf.queryExecution().analyzed().toString()
        assert "LogicalRDD" not in plan, plan
        files = frame.inputFiles()
        assert files and all(_local(f).startswith(_location(spark) + "/") for f in files), files


@pytest.mark.heavy
def test_old_versions_are_deleted_and_the_stored_tables_stay_bounded(spark: Any,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Ten steps of ``distinct(a)``, a trace compacted every third piece: after each step
    the tables under the checkpoint location are exactly those the kept frames read (plus
    the last output's), never more than the compaction period allows, however many steps;
    a refused step leaves nothing of its own."""
    from spark_impl.zset import dataflow

    monkeypatch.setattr(dataflow, "COMPACT_EVERY", 3)
    before = _stored_tables(spark, set())
    engine = spark_engine(spark)
    engine.build({"inputs": ["a"], "output": {"op": "distinct", "arg": {"op": "map", "fn": "fst", "arg": inp("a")}}})
    counts = []
    for v in range(10):
        assert dict(engine.step({"a": [((v, v), 1)]})) == {v: 1}
        live = set().union(*(_folders(f.inputFiles()) for f in _kept_frames(engine.flow)))
        stored = _stored_tables(spark, before)
        assert live and live <= stored and len(stored - live) <= 1, (stored, live)  # the last output's
        counts.append(len(stored))
    assert max(counts) <= 3 + 2, counts  # the pieces since the last compaction, its base, the logs
    with pytest.raises(EngineError):
        engine.step({"a": [(3, 1)]})  # not a pair: malformed-input
    live = set().union(*(_folders(f.inputFiles()) for f in _kept_frames(engine.flow)))
    assert _stored_tables(spark, before) == live
