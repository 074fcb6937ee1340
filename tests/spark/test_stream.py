"""The Spark stream processors against the reference, for several cuts of one input."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.protocols import EngineError
from reference.streams.named import run_named

pytestmark = pytest.mark.spark

INPUTS: dict[str, tuple[dict[str, Any], list[Any]]] = {
    "prefix_sum": ({}, [3, -1, 4, 1, -5, 9]),
    "derivative": ({}, [3, -1, 4, 1]),
    "map_inc": ({"k": 2}, [1, 2, 3]),
    "filter_even": ({}, [1, 2, 4, 7, 8]),
    "distinct": ({}, [1, [1, 2], 1, "a", [1, 2]]),
    "pairs": ({}, [["L", 1], ["R", "a"], ["L", 2], ["R", "a"]]),
    "join_partitioned": ({"partitions": 3}, [["L", [1, 2]], ["R", [2, 5]], ["L", [7, 2]],
                                             ["R", ["x", 1]], ["L", [0, "x"]], ["R", [2, 6]]]),
    "split_merge": ({"partitions": 2}, [1, "b", [3], 1]),
}


def cuts(items: list[Any]) -> list[list[list[Any]]]:
    """The whole input as one batch, one item per batch, and a cut in two with an empty batch."""
    half = len(items) // 2
    return [[items], [[x] for x in items], [items[:half], [], items[half:]]]


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_output_matches_reference_for_every_cut(spark: Any, name: str) -> None:
    from spark_impl.protocol.stream import SparkStreamEngine

    params, items = INPUTS[name]
    expected = run_named(name, params, [items])
    engine = SparkStreamEngine(spark)
    for batches in cuts(items):
        assert tuple(engine.run(name, params, batches)) == tuple(expected), (name, batches)


def test_join_partitioned_equals_unpartitioned(spark: Any) -> None:
    """Theorem 3.51: the hash-partitioned layout gives the join's output."""
    from spark_impl.protocol.stream import SparkStreamEngine

    _, items = INPUTS["join_partitioned"]
    engine = SparkStreamEngine(spark)
    assert engine.run("join_partitioned", {"partitions": 3}, [items]) == engine.run("join", {}, [items])


def test_malformed_items_are_refused(spark: Any) -> None:
    from spark_impl.protocol.stream import SparkStreamEngine

    with pytest.raises(EngineError) as refused:
        SparkStreamEngine(spark).run("prefix_sum", {}, [[1, "two"]])
    assert refused.value.error_class == "malformed-input"
