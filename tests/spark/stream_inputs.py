"""Small inputs of every named stream processor, and cuts of them (shared by the stream tests)."""

from __future__ import annotations

from typing import Any

INPUTS: dict[str, tuple[dict[str, Any], list[Any]]] = {
    "prefix_sum": ({}, [3, -1, 4, 1, -5, 9]),
    "integral": ({}, [2, 0, -7]),
    "derivative": ({}, [3, -1, 4, 1]),
    "map_inc": ({"k": 2}, [1, 2, 3]),
    "filter_even": ({}, [1, 2, 4, 7, 8]),
    "distinct": ({}, [1, [1, 2], 1, "a", [1, 2], None]),
    "pairs": ({}, [["L", 1], ["R", "a"], ["L", 2], ["R", "a"]]),
    "join": ({}, [["L", [1, 2]], ["R", [2, 5]], ["L", [7, 2]], ["R", [2, 5]]]),
    "join_partitioned": ({"partitions": 3}, [["L", [1, 2]], ["R", [2, 5]], ["L", [7, 2]],
                                             ["R", ["x", 1]], ["L", [0, "x"]], ["R", [2, 6]]]),
    "split_merge": ({"partitions": 2}, [1, "b", [3], 1]),
    "full_adder": ({"carry": 1}, [[1, 1], [0, 1], [0, 0], [1, 0], [1, 1]]),
    "transitive_closure_loop": ({}, [[[1, 2]], [], [[2, 3], [3, 1]], [[0, 1]]]),
    "set_difference_ticks": ({}, [["+", 1], ["-", 2], "tick", ["+", 2], ["+", 3], ["-", 3], "tick",
                                  ["+", 3], ["+", 2], "tick", "tick", ["+", 3]]),
    "tcp_receiver": ({}, [[1, "b"], "tick", [0, "a"], [0, "z"], [3, "d"], [2, "c"], "tick", [-1, "q"]]),
}


def cuts(items: list[Any]) -> list[list[list[Any]]]:
    """The whole input as one batch, one item per batch, and a cut in two with an empty batch."""
    half = len(items) // 2
    return [[items], [[x] for x in items], [items[:half], [], items[half:]]]
