"""Segments (spark_impl/fixpoint/segments.py): the fixpoint engine crosses a unique-support
path in one step, and its answers stay the reference's (the oracle) whatever the
batches do to the paths: links cut, in-edges and out-edges added to members,
members made roots, paths longer than a segment, cycles of links."""

from __future__ import annotations

import random
from typing import Any

import pytest

from conformance.protocols import FixpointChange
from tests.spark.test_fixpoint import check_ranks, engine, lfp

pytestmark = pytest.mark.spark

Edge = tuple[str, str]


def _chain(name: str, length: int, start: str = "R") -> list[Edge]:
    nodes = [start, *(f"{name}{i}" for i in range(1, length + 1))]
    return list(zip(nodes[:-1], nodes[1:], strict=True))


def _restored(spark: Any, roots: list[str], edges: list[Edge], ranks: dict[str, int]) -> Any:
    """A Spark fixpoint engine holding ``roots``, ``edges`` and their fixpoint ``ranks``
    (the reference's, computed on the driver), written by ``restore`` rather than made
    by Spark's BFS, one job per level of the graph (tens of jobs for these chains):
    these tests check the updates that follow. ``restore`` builds the same tables,
    the segments included, as ``make`` (``IncrementalReachability._built``), which
    tests/spark/test_fixpoint.py and ``test_the_index_holds_the_paths`` check."""
    from spark_impl.protocol import encode
    from spark_impl.protocol.fixpoint import SparkFixpointEngine

    e = SparkFixpointEngine(spark)
    e.engine.restore(spark.createDataFrame([(encode(r),) for r in roots], "node string"),
                     spark.createDataFrame([(encode(u), encode(v)) for u, v in edges], "src string, dst string"),
                     spark.createDataFrame([(encode(n), r) for n, r in ranks.items()], "node string, rank bigint"))
    return e


@pytest.mark.spec("FIX-DEC-SPARK-SEGMENTS", "FIX-ALG-CONTRACT", "FIX-ALG-EXPAND", evidence="example")
@pytest.mark.heavy
def test_a_chain_is_cut_off_and_hung_back_in_rounds_that_do_not_grow_with_it(spark: Any) -> None:
    """Chains of 6 and 20 below a root with other children: cutting a chain's head
    edge kills it, putting it back derives it at exact ranks, in the same number
    of rounds for both lengths (one cascade round kills the head and its segment,
    a second finds no live successor; one expansion round settles them all).
    (Each engine starts from the fixpoint restored, :func:`_restored`: the rounds
    compared are the cut's and the repair's.)"""
    rounds = []
    for length in (6, 20):
        edges = [*_chain("c", length), ("R", "x"), ("R", "y")]
        e = _restored(spark, ["R"], edges, {"R": 0, "x": 1, "y": 1, **{f"c{i}": i for i in range(1, length + 1)}})
        cut = e.apply(FixpointChange(remove_edges=(("R", "c1"),)))
        assert cut.removed == {f"c{i}" for i in range(1, length + 1)} and cut.added == set()
        back = e.apply(FixpointChange(add_edges=(("R", "c1"),)))
        assert back.added == cut.removed and back.removed == set()
        assert back.ranks == {"R": 0, "x": 1, "y": 1, **{f"c{i}": i for i in range(1, length + 1)}}
        assert cut.work is not None and back.work is not None
        rounds.append((cut.work["rounds"], back.work["rounds"]))
    assert rounds[0] == rounds[1] and rounds[0][0] <= 3 and rounds[0][1] <= 2, rounds


def _paths_graph(rng: random.Random) -> tuple[set[str], set[Edge], list[str]]:
    """Chains below the root and below each other, a few cross edges, a cycle of
    links no root reaches, a self-loop."""
    edges: set[Edge] = set()
    nodes = ["R"]
    for c in range(4):
        start = rng.choice(nodes)
        chain = _chain(f"p{c}_", rng.randint(3, 9), start)
        edges |= set(chain)
        nodes += [v for _, v in chain]
    for _ in range(3):
        edges.add((rng.choice(nodes), rng.choice(nodes)))
    edges |= {("o1", "o2"), ("o2", "o3"), ("o3", "o1"), ("p0_2", "p0_2")}
    return {"R"}, edges, nodes + ["o1", "o2", "o3"]


def _random_batches(spark: Any, seed: int, batches: int, restored: bool = False) -> list[tuple[int, int]]:
    """``batches`` seeded batches on :func:`_paths_graph`, each checked against the
    oracle; the engine made by Spark, or ``restored`` from the oracle's fixpoint
    (:func:`_restored`). Returns each batch's (added, removed) counts."""
    from reference.fixpoint.managed import Change, ManagedFixpoint

    rng = random.Random(seed)
    roots, edges, nodes = _paths_graph(rng)
    oracle, _ = ManagedFixpoint.make(sorted(roots), sorted(edges))
    if restored:
        e = _restored(spark, sorted(roots), sorted(edges), dict(oracle.ranks))
    else:
        e = engine(spark)
        e.make(sorted(roots), sorted(edges))
    deltas = []
    for _ in range(batches):
        rem_e = set(rng.sample(sorted(edges), rng.randint(0, 2)))
        add_e = {(rng.choice(nodes), rng.choice(nodes)) for _ in range(rng.randint(0, 2))}
        add_r = {rng.choice(nodes)} if rng.random() < 0.25 else set()
        rem_r = set(rng.sample(sorted(roots - {"R"}), 1)) if len(roots) > 1 and rng.random() < 0.5 else set()
        before = lfp(roots, edges)
        roots, edges = (roots - rem_r) | add_r, (edges - rem_e) | add_e
        after = lfp(roots, edges)
        obs = e.apply(FixpointChange(tuple(add_r), tuple(rem_r), tuple(add_e), tuple(rem_e)))
        oracle, _ = oracle.apply(Change(tuple(sorted(add_r)), tuple(sorted(rem_r)), tuple(sorted(add_e)),
                                        tuple(sorted(rem_e))))
        assert (obs.current, obs.added, obs.removed) == (after, after - before, before - after)
        assert obs.ranks == dict(oracle.ranks)
        assert obs.ranks is not None
        check_ranks(dict(obs.ranks), roots, edges)
        deltas.append((len(obs.added), len(obs.removed)))
    return deltas


@pytest.mark.spec("FIX-DEC-SPARK-SEGMENTS", "FIX-DEC-REDERIVE-RANK", "FIX-DEC-BATCH", evidence="example")
@pytest.mark.slow  # 8 batches x 2 seeds, each an update of several Spark jobs: minutes
@pytest.mark.parametrize("seed", [1, 2])
def test_random_batches_on_paths_match_the_reference(spark: Any, seed: int) -> None:
    """Seeded graphs of chains (8 batches each): delta, live set and ranks are the
    oracle's after every batch."""
    _random_batches(spark, seed, 8)


@pytest.mark.spec("FIX-DEC-SPARK-SEGMENTS", evidence="example")
@pytest.mark.heavy
def test_paths_longer_than_a_segment_match_the_reference(spark: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Built with one pointer-jumping round, a segment holds at most 3 elements:
    the rest of a longer path has no rows, and is crossed one round at a time.
    (Seed 2487's two batches: a cut killing a path of 5, p0_6 -> p1_1 -> ... -> p1_4,
    then a new edge hanging it back, with a member of another path made a root and
    a link of it removed in the same batch; the 5 are more than a segment's 3, so
    each crossing is a segment and rounds beyond it.)"""
    from spark_impl.fixpoint import segments

    monkeypatch.setattr(segments, "BUILD_ROUNDS", 1)
    deltas = _random_batches(spark, 2487, 2, restored=True)
    # the batches cross paths longer than a segment both ways: a cascade and an expansion
    assert max(removed for _, removed in deltas) > 3 and max(added for added, _ in deltas) > 3, deltas


@pytest.mark.spec("FIX-DEC-SPARK-SEGMENTS", evidence="example")
def test_the_index_holds_the_paths(spark: Any) -> None:
    """The rows ``make`` builds: each chain a segment from its head (the root's
    child is linked too when the root has no other child), roots never members,
    the cycle and the self-loop left out."""
    from spark_impl.fixpoint.reachability import IncrementalReachability

    r = IncrementalReachability(spark)
    edges = [("R", "a"), ("a", "b"), ("b", "c"), ("c", "d"), ("c", "e"), ("e", "f"), ("Q", "g"), ("g", "Q"),
             ("o1", "o2"), ("o2", "o1"), ("s", "s"), ("s", "t")]
    r.make(spark.createDataFrame([("R",), ("Q",)], "node string"), spark.createDataFrame(edges, "src string, dst string"))
    rows = {row["node"]: (row["seg"], row["pos"], row["tail"])
            for row in r._state.current("segments").collect()}
    assert rows == {"R": ("R", 0, 3), "a": ("R", 1, 3), "b": ("R", 2, 3), "c": ("R", 3, 3),
                    "e": ("e", 0, 1), "f": ("e", 1, 1), "Q": ("Q", 0, 1), "g": ("Q", 1, 1)}


@pytest.mark.spec("FIX-DEC-SPARK-SEGMENTS", evidence="example")
@pytest.mark.heavy
def test_a_member_made_a_root_by_a_bulk_batch_breaks_its_segment(spark: Any) -> None:
    """R -> a -> b -> c -> d (one segment below R's other child x aside): b made a
    root by a batch taken from scratch is marked, so cutting a off later kills a
    alone (unmarked, a's segment would take the root b and c, d with it)."""
    from spark_impl.fixpoint.reachability import BULK_ROWS, BULK_SHARE, IncrementalReachability

    edges = [("R", "x"), ("R", "a"), ("a", "b"), ("b", "c"), ("c", "d")]
    r = IncrementalReachability(spark)
    r.make(spark.createDataFrame([("R",)], "node string"), spark.createDataFrame(edges, "src string, dst string"))
    assert {row["node"] for row in r._state.current("segments").collect()} == {"a", "b", "c", "d"}
    r.bulk_rows, r.bulk_share = 1, 0.0  # every batch from scratch
    made_root = r.apply(add_roots=["b"])
    assert made_root.work.from_scratch and made_root.added == made_root.removed == set()
    r.bulk_rows, r.bulk_share = BULK_ROWS, BULK_SHARE
    cut = r.apply(remove_edges=[("R", "a")])
    assert (cut.removed, cut.added) == ({"a"}, set())
    # the batch from scratch ranked c and d from b (1, 2): exact distances, where the
    # reference's incremental update keeps 3 and 4; both keep the rank invariant
    ranks = {row["node"]: row["rank"] for row in r.current().collect()}
    assert ranks == {"R": 0, "x": 1, "b": 0, "c": 1, "d": 2}
    check_ranks(ranks, {"R", "b"}, set(edges) - {("R", "a")})
