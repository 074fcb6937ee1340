"""The value model (the ``*-DEC-JSON-VALUES`` items): JSON values compared by type and
value: ``true`` is never the number 1, and ``1.0`` is the number 1."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.algebra.json_values import JsonBool, from_json, to_json
from reference.algebra.multiset import Multiset
from reference.algebra.zset import ZSet
from reference.differential.dataflow import program_from_json, standard_outputs, zset_from_rows
from reference.fixpoint.managed import ManagedFixpoint
from reference.reduce import Delta, InvalidDelta, apply_delta
from reference.streams.named import run_named

SCALARS = st.one_of(st.integers(-2, 2), st.booleans(), st.sampled_from([0.0, 1.0, -1.0, 2.5]),
                    st.sampled_from(["1", "true"]), st.none())
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=2), max_leaves=4)


def spelling(v: Any) -> str:
    """Written independently of the reference: JSON text with integral numbers as integers."""
    if isinstance(v, list):
        return "[" + ",".join(spelling(x) for x in v) + "]"
    if isinstance(v, float) and v.is_integer():
        return json.dumps(int(v))
    return json.dumps(v)


def distinct_values(values: list[Any]) -> int:
    return len({spelling(v) for v in values})


@given(st.lists(VALUES, max_size=6))
def test_round_trip_and_no_merging(values: list[Any]) -> None:
    held = [from_json(v) for v in values]
    assert [spelling(to_json(h)) for h in held] == [spelling(v) for v in values]
    assert len(set(held)) == distinct_values(values)


@pytest.mark.spec("SKIP-DEC-JSON-VALUES", evidence="example")
def test_reduce_removing_true_from_one_is_invalid_removing_one_point_zero_is_not() -> None:
    C = {"k": Multiset.of(1)}
    with pytest.raises(InvalidDelta):
        apply_delta(C, Delta(plus={}, minus={"k": Multiset.of(from_json(True))}))
    assert apply_delta(C, Delta(plus={}, minus={"k": Multiset.of(from_json(1.0))})) == {}


@pytest.mark.spec("SKIP-DEC-JSON-VALUES", evidence="property")
@given(st.lists(VALUES, min_size=1, max_size=6))
def test_reduce_multisets_count_json_values(values: list[Any]) -> None:
    m = Multiset.from_iterable(from_json(v) for v in values)
    assert len(m.support()) == distinct_values(values)


@pytest.mark.spec("FIX-DEC-JSON-VALUES", evidence="example")
def test_fixpoint_root_true_does_not_follow_edges_out_of_one() -> None:
    fx, _ = ManagedFixpoint.make(roots=[from_json(True)], edges=[(1, 2), (from_json(1.0), 3)])
    assert fx.current == frozenset({JsonBool(True)})
    fx, _ = ManagedFixpoint.make(roots=[1], edges=[(from_json(1.0), 3)])
    assert fx.current == frozenset({1, 3})


@pytest.mark.spec("FIX-DEC-JSON-VALUES", evidence="property")
@given(st.lists(SCALARS, min_size=1, max_size=5))
def test_fixpoint_roots_are_json_values(roots: list[Any]) -> None:
    fx, update = ManagedFixpoint.make(roots=[from_json(r) for r in roots], edges=[])
    assert len(fx.current) == len(update.added) == distinct_values(roots)


@pytest.mark.spec("DD-DEC-JSON-VALUES", evidence="example")
def test_zset_distinct_keeps_true_apart_from_one() -> None:
    program = program_from_json({"inputs": ["A"], "output": {"op": "distinct", "arg": {"op": "input", "name": "A"}}})
    rows = zset_from_rows([[1, 2], [True, 1], [1.0, -1]])
    assert standard_outputs(program, [{"A": rows}])[-1] == ZSet({1: 1, JsonBool(True): 1})


@pytest.mark.spec("DD-DEC-JSON-VALUES", evidence="property")
@given(st.lists(VALUES, max_size=6))
def test_zset_rows_are_json_values(values: list[Any]) -> None:
    z = zset_from_rows([[v, 1] for v in values])
    assert len(z.support()) == distinct_values(values)


@pytest.mark.spec("STREAM-DEC-JSON-VALUES", evidence="example")
def test_stream_distinct_over_one_true_and_one_point_zero() -> None:
    out = to_json(run_named("distinct", {}, [[1, True], [1.0, 1]]))
    assert sorted(map(json.dumps, out)) == ["1", "true"]


@pytest.mark.spec("STREAM-DEC-JSON-VALUES", evidence="property")
@given(st.lists(VALUES, max_size=6))
def test_stream_distinct_counts_json_values(values: list[Any]) -> None:
    assert len(run_named("distinct", {}, [values])) == distinct_values(values)
