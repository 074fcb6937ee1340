"""The named processors (the stream area's oracle): stable names, documented
conventions, and outputs that do not depend on how the input is batched."""

from __future__ import annotations

import json
from itertools import combinations
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from proofs_map.catalog import load_catalog
from reference.streams.named import (
    PROCESSORS,
    MalformedInput,
    UnknownProcessor,
    describe,
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
    catalog = load_catalog()
    assert all(i in catalog for i in entry.spec_ids)
    doc = describe(name)
    assert json.loads(json.dumps(doc)) == doc and doc["cites"] == list(entry.spec_ids)


def test_engine_and_errors() -> None:
    assert run_named("prefix_sum", {}, [[1], [2]]) == (1, 3)
    with pytest.raises(UnknownProcessor):
        run_named("no_such_processor", {}, [])
    with pytest.raises(MalformedInput):
        run_named("prefix_sum", {}, [["x"]])
    with pytest.raises(MalformedInput):
        run_named("join_partitioned", {"partitions": 0}, [])
    assert to_json(((1, (2,)),)) == [[1, [2]]]


# --- generated inputs: every batching agrees with an independent, naive oracle ---------


@st.composite
def cuts_of(draw: st.DrawFn, items: list[Any]) -> list[list[Any]]:
    """A random batching of ``items`` (contiguous, possibly with empty batches at the ends)."""
    cuts = sorted(draw(st.sets(st.integers(0, len(items)), max_size=len(items) + 1)))
    edges = [0, *cuts, len(items)]
    return [items[i:j] for i, j in zip(edges, edges[1:], strict=False)]


small = st.integers(-5, 5)
vertex = st.integers(0, 3)


def naive_paths(left: list[tuple[int, int]], right: list[tuple[int, int]]) -> tuple[Any, ...]:
    return tuple(sorted((a, b) for a in left for b in right if a[1] == b[0]))


@given(st.data())
def test_named_against_naive_oracles(data: st.DataObject) -> None:
    ints = data.draw(st.lists(small, max_size=8))
    cut = data.draw(cuts_of(ints))
    sums = [sum(ints[: i + 1]) for i in range(len(ints))]
    assert run_named("prefix_sum", {}, cut) == tuple(sums) == run_named("integral", {}, cut)
    assert run_named("derivative", {}, [sums]) == tuple(ints)
    assert run_named("filter_even", {}, cut) == tuple(x for x in ints if x % 2 == 0)
    assert run_named("map_inc", {"k": 3}, cut) == tuple(x + 3 for x in ints)
    assert run_named("distinct", {}, cut) == tuple(sorted(set(ints)))
    assert run_named("split_merge", {"partitions": 3}, cut) == tuple(sorted(ints))

    left = data.draw(st.lists(st.tuples(vertex, vertex), max_size=4))
    right = data.draw(st.lists(st.tuples(vertex, vertex), max_size=4))
    tagged = [["L", list(e)] for e in left] + [["R", list(e)] for e in right]
    tagged = data.draw(st.permutations(tagged))
    tcut = data.draw(cuts_of(tagged))
    expected = naive_paths(left, right)
    assert run_named("join", {}, tcut) == expected
    k = data.draw(st.integers(1, 4))
    assert run_named("join_partitioned", {"partitions": k}, tcut) == expected
    assert run_named("pairs", {}, tcut) == tuple(sorted((a, b) for a in left for b in right))


@given(st.data())
def test_named_stateful_against_naive_oracles(data: st.DataObject) -> None:
    bits = data.draw(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1)), max_size=8))
    carry = data.draw(st.integers(0, 1))
    cut = data.draw(cuts_of([list(b) for b in bits]))
    out = run_named("full_adder", {"carry": carry}, cut)
    a = sum(x << i for i, (x, _) in enumerate(bits))
    b = sum(y << i for i, (_, y) in enumerate(bits))
    assert out == tuple(((a + b + carry) >> i) & 1 for i in range(len(bits)))

    items = data.draw(st.lists(st.one_of(st.just("tick"), st.tuples(st.sampled_from("+-"), st.integers(0, 3))),
                               max_size=10))
    strata: list[tuple[set[int], set[int]]] = [(set(), set())]
    for it in items:
        if isinstance(it, tuple):
            sign, x = it
            strata[-1][0 if sign == "+" else 1].add(x)
        else:
            strata.append((set(), set()))
    expected = tuple(tuple(sorted(pos - (strata[i - 1][1] if i else set())))
                     for i, (pos, _) in enumerate(strata))
    scut = data.draw(cuts_of([list(i) if i != "tick" else i for i in items]))
    assert run_named("set_difference_ticks", {}, scut) == expected

    packets = data.draw(st.lists(st.one_of(st.just("tick"), st.tuples(st.integers(0, 4), st.sampled_from("abc"))),
                                 max_size=8))
    received: dict[int, str] = {}
    delivered: list[str] = []
    requests: list[int] = []
    nxt = 0
    for p in packets:
        if isinstance(p, tuple):
            number, payload = p
            if number >= nxt:
                received.setdefault(number, payload)
            while nxt in received:
                delivered.append(received.pop(nxt))
                nxt += 1
        requests.append(nxt)
    pcut = data.draw(cuts_of([list(p) if p != "tick" else p for p in packets]))
    assert run_named("tcp_receiver", {}, pcut) == (tuple(delivered), tuple(requests))

    edges = data.draw(st.lists(st.lists(st.tuples(vertex, vertex), max_size=3), max_size=3))
    rounds = [[list(e) for e in r] for r in edges] + [[]] * 5
    rcut = data.draw(cuts_of(rounds))
    derived = set().union(*(set(r) for r in run_named("transitive_closure_loop", {}, rcut)))
    closure = {e for r in edges for e in r}
    while True:
        more = {(x, z) for (x, y) in closure for (y2, z) in closure if y == y2} - closure
        if not more:
            break
        closure |= more
    assert derived == closure
