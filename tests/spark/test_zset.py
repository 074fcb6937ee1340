"""The Spark Z-set dataflow against the reference's standard semantics (DD-DEC-DATAFLOW)."""

from __future__ import annotations

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
    "map-filter": {"inputs": ["a"], "output": {"op": "filter", "pred": "even",
                                                "arg": {"op": "map", "fn": "inc", "arg": inp("a")}}},
    "join-distinct": {"inputs": ["a", "b"], "output": {"op": "distinct", "arg": {
        "op": "map", "fn": "fst", "arg": {"op": "join", "left": inp("a"), "right": inp("b")}}}},
    "reduce-sum-minus": {"inputs": ["a"], "output": {"op": "plus", "left": {
        "op": "reduce", "agg": "sum", "arg": inp("a")}, "right": {"op": "negate", "arg": {
            "op": "reduce", "agg": "min", "arg": inp("a")}}}},
    "reach": {"inputs": ["edges", "roots"], "output": {
        "op": "iterate", "var": "x", "seed": inp("roots"), "body": {"op": "distinct", "arg": {
            "op": "plus", "left": inp("roots"), "right": {"op": "map", "fn": "snd", "arg": {
                "op": "map", "fn": "snd", "arg": {"op": "join", "left": {
                    "op": "map", "fn": "dup", "arg": {"op": "var", "name": "x"}},
                    "right": inp("edges")}}}}}}},
}

TRACES: dict[str, list[dict[str, list[list[Any]]]]] = {
    "map-filter": [{"a": [[1, 1], [2, 3]]}, {"a": [[1, -1], [5, 2]]}, {}],
    "join-distinct": [{"a": [[[1, "x"], 1], [[2, "y"], 2]], "b": [[[1, 7], 1]]},
                      {"b": [[[2, 8], 1], [[1, 7], -1]]}, {"a": [[[2, "y"], -2]]}],
    "reduce-sum-minus": [{"a": [[[1, 5], 1], [[1, 3], 2], [[2, 4], 1]]},
                         {"a": [[[1, 3], -2], [[2, 9], 1]]}, {"a": [[[1, 5], -1]]}],
    "reach": [{"roots": [[0, 1]], "edges": [[[0, 1], 1], [[1, 2], 1]]},
              {"edges": [[[2, 3], 1], [[0, 1], -1]]}, {"edges": [[[0, 2], 1]]}],
}


def spark_engine(spark: Any) -> Any:
    from spark_impl.protocol.zset import SparkZSetEngine

    return SparkZSetEngine(spark)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_output_deltas_match_the_standard_semantics(spark: Any, name: str) -> None:
    program, trace = PROGRAMS[name], TRACES[name]
    expected = standard_output_deltas(
        program_from_json(program), [{n: zset_from_rows(rows) for n, rows in d.items()} for d in trace])
    engine = spark_engine(spark)
    engine.build(program)
    for delta, want in zip(trace, expected, strict=True):
        got = engine.step({n: [(_tuples(e), w) for e, w in rows] for n, rows in delta.items()})
        assert dict(got) == dict(want.items()), (name, delta)


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
