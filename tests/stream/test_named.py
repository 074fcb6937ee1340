"""The named processors (the stream area's oracle): stable names, documented
conventions, and outputs that do not depend on how the input is batched."""

from __future__ import annotations

from itertools import combinations
from typing import Any

import pytest

from reference.streams.named import (
    PROCESSORS,
    MalformedInput,
    ReferenceStreamEngine,
    UnknownProcessor,
    names,
    run_named,
    to_json,
)

#: name -> (params, items, expected output on all of them in one batch), written by hand
WORKED: dict[str, tuple[dict[str, Any], list[Any], Any]] = {
    "prefix_sum": ({}, [1, 2, 3], (1, 3, 6)),
    "filter_even": ({}, [1, 2, 3, 4], (2, 4)),
    "map_inc": ({"k": 5}, [1, 2], (6, 7)),
    "integral": ({}, [1, 2, 3], (1, 3, 6)),
    "derivative": ({}, [1, 3, 6], (1, 2, 3)),
    "pairs": ({}, [["L", 1], ["R", "a"], ["R", "b"]], ((1, "a"), (1, "b"))),
    "join": ({}, [["L", [1, 2]], ["R", [2, 3]], ["R", [3, 1]], ["L", [7, 2]]],
             (((1, 2), (2, 3)), ((7, 2), (2, 3)))),
    "join_partitioned": ({"partitions": 3}, [["L", [1, 2]], ["R", [2, 3]], ["R", [3, 1]], ["L", [7, 2]]],
                         (((1, 2), (2, 3)), ((7, 2), (2, 3)))),
    "split_merge": ({"partitions": 3}, [3, 1, 2, 1], (1, 1, 2, 3)),
    "distinct": ({}, [3, 1, 3], (1, 3)),
    "set_difference_ticks": ({}, [["+", 1], ["-", 2], "tick", ["+", 2], ["+", 3], "tick", "tick", ["+", 2]],
                             ((1,), (3,), (), (2,))),
    "tcp_receiver": ({}, [[1, "b"], [0, "a"], "tick", [2, "c"]], (("a", "b", "c"), (0, 2, 2, 3))),
    "transitive_closure_loop": ({}, [[[1, 2], [2, 3]], [], []], ((), ((1, 2), (2, 3)), ((1, 3),), ())),
    "full_adder": ({}, [[0, 1], [0, 0], [1, 1]], (1, 0, 0)),
}


def all_batchings(items: list[Any]) -> list[list[list[Any]]]:
    n = len(items)
    out = []
    for k in range(n):
        for cut in combinations(range(1, n), k):
            edges = [0, *cut, n]
            out.append([items[i:j] for i, j in zip(edges, edges[1:], strict=False)])
    return out + [[[], items, []]]


def test_every_named_processor_has_a_worked_example() -> None:
    assert set(WORKED) == set(names())


@pytest.mark.parametrize("name", sorted(WORKED))
def test_named_output_on_every_batching(name: str) -> None:
    params, items, expected = WORKED[name]
    for batches in all_batchings(items):
        assert run_named(name, params, batches) == expected, batches


@pytest.mark.parametrize("name", sorted(WORKED))
def test_named_entries_are_documented(name: str) -> None:
    entry = PROCESSORS[name]
    assert entry.summary and entry.input and entry.output and entry.spec_ids


def test_engine_and_errors() -> None:
    assert ReferenceStreamEngine().run("prefix_sum", {}, [[1], [2]]) == (1, 3)
    with pytest.raises(UnknownProcessor):
        run_named("no_such_processor", {}, [])
    with pytest.raises(MalformedInput):
        run_named("prefix_sum", {}, [["x"]])
    with pytest.raises(MalformedInput):
        run_named("join_partitioned", {"partitions": 0}, [])
    assert to_json(((1, (2,)),)) == [[1, [2]]]
