"""The generators make what they say: stored sizes, live deletions, graph shapes."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.engines import Graph, OracleReach, Table
from benchmarks.guard import check, measure_rows
from benchmarks.workloads import GraphWorkload, ReduceWorkload


@pytest.mark.parametrize("skew", ["uniform", "zipf"])
def test_reduce_batches_delete_live_rows_and_keep_every_row_distinct(skew: str) -> None:
    spec = ReduceWorkload(20_000, 2_000, skew)  # type: ignore[arg-type]
    stream = spec.stream()
    live = {(i, k, v) for i, k, v in stream.initial().itertuples(index=False, name=None)}
    for size in (100, 1_000, 5_000):
        batch = stream.batch(size)
        gone = {(i, k, v) for i, k, v, w in batch.itertuples(index=False, name=None) if w < 0}
        new = {(i, k, v) for i, k, v, w in batch.itertuples(index=False, name=None) if w > 0}
        assert len(batch) == size and len(gone) == size // 2
        assert gone <= live and not (new & live)
        live = (live - gone) | new
    assert len(live) == stream.live_rows() == 20_000
    pairs = np.array([(k, v) for _, k, v in live])
    assert measure_rows(pairs[:, 0], pairs[:, 1])["rows"] == 20_000  # (k, v) stay distinct
    assert len({k for _, k, _ in live}) == stream.live_keys()


def test_reduce_values_per_key_and_skew() -> None:
    uniform = ReduceWorkload(100_000, 10_000).stream().initial()
    per_key = uniform.groupby("k")["v"].nunique()
    assert per_key.mean() == pytest.approx(10, rel=0.01)
    zipf = ReduceWorkload(100_000, 10_000, "zipf").stream().initial()
    top = zipf["k"].value_counts().iloc[0]
    assert top > 20 * uniform["k"].value_counts().iloc[0]  # a hot key


def test_streams_are_deterministic() -> None:
    a, b = ReduceWorkload(5_000, 500).stream(), ReduceWorkload(5_000, 500).stream()
    assert a.initial().equals(b.initial())
    assert a.batch(300).equals(b.batch(300))


@pytest.mark.parametrize("shape", ["random", "power", "chain", "grid"])
def test_graphs_have_exact_distinct_edges_and_batches_keep_them(shape: str) -> None:
    spec = GraphWorkload(2_000, shape)  # type: ignore[arg-type]
    stream = spec.stream()
    edges = stream.initial()
    present = set(zip(edges["src"], edges["dst"], strict=True))
    assert len(edges) == len(present) == spec.intent().expected["edges"].low == 2_000
    for _ in range(3):
        change = stream.batch(100)
        gone, new = set(change.remove_edges()), set(change.add_edges())
        assert gone <= present and not (new & present) and len(gone) == len(new) == 50
        present = (present - gone) | new
    assert present == set(stream.edge_set()) and stream.live_edges() == 2_000


def test_a_chain_heals_first() -> None:
    stream = GraphWorkload(100, "chain").stream()
    first = stream.batch(10)
    second = stream.batch(10)
    assert set(second.add_edges()) == set(first.remove_edges())  # removed edges come back first
    assert all(v == u + 1 for u, v in first.remove_edges())


@pytest.mark.parametrize("shape", ["random", "power", "chain", "grid"])
def test_every_graph_shape_meets_its_intent_as_the_oracle_stores_it(shape: str) -> None:
    spec = GraphWorkload(3_000, shape)  # type: ignore[arg-type]
    stream = spec.stream()
    oracle = OracleReach(incremental=True)
    oracle.make(Graph(Table(stream.initial(), "unused.parquet"), stream.roots()))
    check(shape, spec.intent(), oracle.stored())  # raises StoredSizeMismatch otherwise
