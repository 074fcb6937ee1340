"""The Spark incremental fixpoint against the definition: lfp(F) = reachability.

(The suite's fixpoint cases, run by ``incspec conform --impl spark``, cover the
paper's examples and the adversarial ones: cycles, batches, no-ops.)

The oracle is the least fixpoint itself (F(S) = roots ∪ succ(S), iterated from
∅), recomputed from scratch after every change; ranks are checked against the
rank invariant (roots 0; every other live element has a live deriver of
strictly lower rank), which is all conformance requires of them.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from conformance.protocols import FixpointChange

pytestmark = pytest.mark.spark

Edge = tuple[str, str]

#: Spark jobs a single-edge insert and delete may run on a fresh state (an insert: the
#: seeds, one expansion round, the output delta, the write; a delete: one cascade round
#: with its successors, the re-derivation, the output delta, the write; no net-change job
#: without root rows, no broadcast and no runtime filter jobs, spark_impl/join_scope.py)
JOBS_PER_INSERT = 4
JOBS_PER_DELETE = 4


def lfp(roots: set[str], edges: set[Edge]) -> set[str]:
    live: set[str] = set()
    step = set(roots)
    while not step <= live:
        live |= step
        step = {v for u, v in edges if u in live}
    return live


def check_ranks(ranks: dict[str, int], roots: set[str], edges: set[Edge]) -> None:
    for x, r in ranks.items():
        if x in roots:
            assert r == 0, (x, r)
        else:
            assert any(v == x and u in ranks and ranks[u] < r for u, v in edges), (x, r)


def engine(spark: Any) -> Any:
    from spark_impl.protocol.fixpoint import SparkFixpointEngine

    return SparkFixpointEngine(spark)


def restored(r: Any, roots: Any, edges: Any, live: Any) -> Any:
    """``r`` holding ``roots``, ``edges`` and their fixpoint ``live (node, rank)`` (exact
    BFS distances, known to the test), written by ``restore`` rather than made by
    Spark's BFS (one job per level and a few more): the tests using it check the
    updates that follow. ``restore`` builds the same tables as ``make``
    (``IncrementalReachability._built``), which the tests above check."""
    r.restore(roots, edges, live)
    return r


def restored_chain(spark: Any, edges: Any, n: int) -> Any:
    """An engine (``bigint`` nodes) holding root 0, ``edges`` and their fixpoint, the
    chain 0 -> 1 -> ... -> n at ranks 0 ... n (``edges`` adds nothing live to it):
    :func:`restored`."""
    from spark_impl.fixpoint.reachability import IncrementalReachability

    return restored(IncrementalReachability(spark, "bigint"), spark.createDataFrame([(0,)], "node bigint"), edges,
                    spark.range(0, n + 1).selectExpr("id as node", "id as rank"))


def test_worked_example_dce(spark: Any) -> None:
    """§4.1-4.3: make, add R -> E -> F, remove A -> D."""
    e = engine(spark)
    edges = {("R", "A"), ("A", "B"), ("A", "D"), ("B", "C"), ("D", "B")}
    obs = e.make(["R"], sorted(edges))
    assert obs.current == {"R", "A", "B", "C", "D"} and obs.added == obs.current
    assert obs.ranks == {"R": 0, "A": 1, "B": 2, "C": 3, "D": 2}  # exact BFS after make
    obs = e.apply(FixpointChange(add_edges=(("R", "E"), ("E", "F"))))
    assert (obs.added, obs.removed) == ({"E", "F"}, set())
    obs = e.apply(FixpointChange(remove_edges=(("A", "D"),)))
    assert (obs.added, obs.removed) == (set(), {"D"})
    assert obs.current == {"R", "A", "B", "C", "E", "F"}


@pytest.mark.heavy
def test_stale_ranks_rederive(spark: Any) -> None:
    """§4.5: B loses its shortest path but stays via C, with a rank above C's."""
    e = engine(spark)
    edges = {("R", "B"), ("R", "C"), ("C", "B"), ("B", "D")}
    e.make(["R"], sorted(edges))
    obs = e.apply(FixpointChange(remove_edges=(("R", "B"),)))
    edges.discard(("R", "B"))
    assert obs.current == {"R", "B", "C", "D"} and obs.added == obs.removed == set()
    assert obs.ranks is not None
    check_ranks(dict(obs.ranks), {"R"}, edges)


@pytest.mark.spec("FIX-DEC-REDERIVE-RANK", "FIX-DEC-BATCH", evidence="example")
@pytest.mark.heavy
def test_random_batches_match_lfp(spark: Any) -> None:
    """A random graph over 8 nodes, 6 batches of mixed edits (seeded: reproducible):
    the live set and delta are lfp's, the ranks the reference's (the oracle)."""
    from reference.fixpoint.managed import Change, ManagedFixpoint

    rng = random.Random(20261122)
    nodes = [f"n{i}" for i in range(8)]
    for _ in range(1):
        roots = {rng.choice(nodes)}
        edges = {(rng.choice(nodes), rng.choice(nodes)) for _ in range(10)}
        e = engine(spark)
        obs = e.make(sorted(roots), sorted(edges))
        oracle, _ = ManagedFixpoint.make(sorted(roots), sorted(edges))
        assert obs.current == lfp(roots, edges)
        for _ in range(6):
            add_e = {(rng.choice(nodes), rng.choice(nodes)) for _ in range(rng.randint(0, 2))}
            rem_e = set(rng.sample(sorted(edges), min(len(edges), rng.randint(0, 3))))
            add_r = {rng.choice(nodes)} if rng.random() < 0.3 else set()
            rem_r = set(rng.sample(sorted(roots), 1)) if roots and rng.random() < 0.3 else set()
            before = lfp(roots, edges)
            roots = (roots - rem_r) | add_r
            edges = (edges - rem_e) | add_e
            after = lfp(roots, edges)
            change = FixpointChange(tuple(add_r), tuple(rem_r), tuple(add_e), tuple(rem_e))
            obs = e.apply(change)
            oracle, _ = oracle.apply(Change(*(tuple(sorted(part)) for part in (add_r, rem_r, add_e, rem_e))))
            assert obs.ranks == dict(oracle.ranks)  # settled in rank order, as the reference does
            assert obs.current == after
            assert (obs.added, obs.removed) == (after - before, before - after)
            assert obs.ranks is not None
            check_ranks(dict(obs.ranks), roots, edges)


@pytest.mark.heavy
def test_make_from_scratch_in_dataframe_rounds(spark: Any) -> None:
    """The large-graph path (BFS rounds as joins) gives exact BFS distances, and
    incremental updates continue from it."""
    from spark_impl.fixpoint.reachability import IncrementalReachability

    edges = [(i, i + 1) for i in range(6)] + [(0, 3), (7, 8)]
    r = IncrementalReachability(spark, "bigint")
    live, work = r.make(spark.createDataFrame([(0,)], "node bigint"),
                        spark.createDataFrame(edges, "src bigint, dst bigint"))
    assert {row["node"]: row["rank"] for row in live.collect()} == {0: 0, 1: 1, 2: 2, 3: 1, 4: 2, 5: 3, 6: 4}
    assert work.rounds == 5
    delta = r.apply(add_edges=[(6, 7)], remove_edges=[(0, 3)])
    assert delta.added == {7, 8} and delta.removed == set()


@pytest.mark.spec("FIX-DEC-SPARK-STATE", evidence="example")
@pytest.mark.heavy
def test_a_failed_update_leaves_the_state_unchanged(spark: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Atomic updates: the new tables are written first and swapped in at the
    end, so an update that fails while writing leaves the old state in force."""
    from spark_impl.fixpoint.reachability import IncrementalReachability
    from spark_impl.storage.keyed_tables import KeyedTables

    r = restored(IncrementalReachability(spark, "string"), spark.createDataFrame([("R",)], "node string"),
                 spark.createDataFrame([("R", "A"), ("A", "B")], "src string, dst string"),
                 spark.createDataFrame([("R", 0), ("A", 1), ("B", 2)], "node string, rank bigint"))

    def fail(self: KeyedTables, changes: Any) -> KeyedTables:
        raise RuntimeError("write failed")

    with monkeypatch.context() as patch:
        patch.setattr(KeyedTables, "with_changes", fail)
        with pytest.raises(RuntimeError):
            r.apply(remove_edges=[("R", "A")], add_edges=[("R", "C")])
    assert {row["node"]: row["rank"] for row in r.current().collect()} == {"R": 0, "A": 1, "B": 2}
    delta = r.apply(remove_edges=[("R", "A")])
    assert (delta.added, delta.removed) == (set(), {"A", "B"})


def _losing_scratch_after_the_first_round(monkeypatch: pytest.MonkeyPatch, engine: Any, attempts: int) -> list[int]:
    """Patch the cascade so that, in each of its first ``attempts`` updates'
    attempts, every scratch block of ``engine`` is dropped after the first round, as
    if the executors holding them had died; returns the list of rounds run per attempt."""
    from spark_impl.fixpoint.contraction import Contraction

    real = Contraction.cascade_round
    rounds: list[int] = []

    def losing(self: Contraction, *args: Any) -> Any:
        out = real(self, *args)
        if self.update.work.rounds == 1:
            rounds.append(0)
            if len(rounds) <= attempts:
                engine._scratch.release()
        rounds[-1] += 1
        return out

    monkeypatch.setattr(Contraction, "cascade_round", losing)
    return rounds


@pytest.mark.spec("FIX-DEC-SPARK-STATE", evidence="example")
@pytest.mark.heavy
def test_an_update_that_lost_its_scratch_blocks_is_run_again(spark: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Scratch frames are executor-local blocks; an update that loses them
    mid-way (here: dropped after the first cascade round of a chain of 5 cut
    at its head) fails on Spark's missing-block error, and is run again from
    the stored tables, which it had not touched: the delta and the state are
    those of an update that never failed."""
    r = restored_chain(spark, spark.range(0, 5).selectExpr("id as src", "id + 1 as dst"), 5)
    rounds = _losing_scratch_after_the_first_round(monkeypatch, r, attempts=1)
    cut = r.apply(remove_edges=[(1, 2)])
    # the lost attempt stopped after its first round; the retry kills 2, and 3-5 with it (one
    # segment: spark_impl/fixpoint/segments.py), then finds no live successor: two rounds
    assert (r.retries, rounds) == (1, [1, 2])
    assert (cut.removed, cut.added_count) == ({2, 3, 4, 5}, 0)
    assert {row["node"]: row["rank"] for row in r.current().collect()} == {0: 0, 1: 1}


@pytest.mark.spec("FIX-DEC-SPARK-STATE", evidence="example")
@pytest.mark.heavy
def test_an_update_losing_its_scratch_every_time_fails_and_changes_nothing(
        spark: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Retries are bounded: an update whose every attempt loses its scratch
    blocks fails with Spark's missing-block error after ``SCRATCH_RETRIES``
    retries, and the old state stays in force."""
    from spark_impl.fixpoint.reachability import SCRATCH_RETRIES
    from spark_impl.storage.scratch import lost_scratch

    r = restored_chain(spark, spark.range(0, 5).selectExpr("id as src", "id + 1 as dst"), 5)
    rounds = _losing_scratch_after_the_first_round(monkeypatch, r, attempts=SCRATCH_RETRIES + 1)
    with pytest.raises(Exception) as failure:
        r.apply(remove_edges=[(1, 2)])
    assert lost_scratch(failure.value)
    assert (r.retries, rounds) == (SCRATCH_RETRIES, [1] * (SCRATCH_RETRIES + 1))
    assert {row["node"]: row["rank"] for row in r.current().collect()} == {n: n for n in range(6)}


def _jobs(spark: Any) -> int:
    """The id of the newest Spark job of the session (ids count up from 0)."""
    return max([-1, *spark.sparkContext.statusTracker().getJobIdsForGroup(None)])


@pytest.mark.spec("FIX-DEC-SPARK-STATE", evidence="example")
@pytest.mark.heavy
def test_jobs_per_single_edge_update_do_not_grow_with_the_graph(spark: Any) -> None:
    """A single-edge insert and delete run a fixed handful of Spark jobs (a round is
    one job: no broadcast of the small sides, no driver loop), the same on a graph of
    20 edges and of 2,000 (0 -> i -> i + n, two levels)."""
    from spark_impl.fixpoint.reachability import IncrementalReachability

    counts = []
    for n in (10, 1000):
        r = IncrementalReachability(spark, "bigint")
        r.make(spark.createDataFrame([(0,)], "node bigint"),
               spark.range(1, n + 1).selectExpr("0 as src", "id as dst")
               .unionByName(spark.range(1, n + 1).selectExpr("id as src", f"id + {n} as dst")))
        per_update = []
        for change in ({"add_edges": [(0, -1)]}, {"remove_edges": [(0, -1)]}):
            before = _jobs(spark)
            delta = r.apply(**change)
            per_update.append(_jobs(spark) - before)
            assert delta.added_count + delta.removed_count == 1
        counts.append(per_update)
    assert counts[0] == counts[1]
    assert counts[0][0] <= JOBS_PER_INSERT and counts[0][1] <= JOBS_PER_DELETE, counts


@pytest.mark.heavy
def test_an_update_that_turns_out_large_is_recomputed(spark: Any) -> None:
    """A one-row batch that kills or derives most of the graph (the root removed,
    then put back) is abandoned once its cascade's dead, or the elements its
    expansion has still to settle, reach the bulk threshold, and recomputed from
    scratch: the same delta and ranks, ``work.from_scratch`` set. A small update
    of the same engine stays incremental; the recompute keeps the stored edges
    with their pending changes (the re-added edge (0, 1) among them, and the
    ranks it gives). (Thresholds lowered to 20 elements so
    that a graph of 61 nodes crosses them: 0 -> i -> i + 30.)"""
    from spark_impl.fixpoint.reachability import IncrementalReachability

    n = 30
    ranks = {0: 0, **{i: 1 for i in range(1, n + 1)}, **{i + n: 2 for i in range(1, n + 1)}}
    r = restored(IncrementalReachability(spark, "bigint", bulk_rows=20, bulk_share=0.1),
                 spark.createDataFrame([(0,)], "node bigint"),
                 spark.range(1, n + 1).selectExpr("0 as src", "id as dst")
                 .unionByName(spark.range(1, n + 1).selectExpr("id as src", f"id + {n} as dst")),
                 spark.createDataFrame(list(ranks.items()), "node bigint, rank bigint"))

    small = r.apply(remove_edges=[(0, 1)])
    assert (small.removed, small.work.from_scratch) == ({1, 1 + n}, False)
    small = r.apply(add_edges=[(0, 1)])
    assert (small.added, small.work.from_scratch) == ({1, 1 + n}, False)

    stored_edges, pending = r._state.tables["edges"], r._state.overlay_rows["edges"]
    gone = r.apply(remove_roots=[0])
    assert (gone.removed, gone.added_count, gone.work.from_scratch) == (set(ranks), 0, True)
    # the batch changed no edge: the stored edges, and their pending changes, are kept as they lie
    assert r._state.tables["edges"] is stored_edges and r._state.overlay_rows["edges"] == pending > 0
    assert r.current().count() == 0
    back = r.apply(add_roots=[0])
    assert (back.added, back.removed_count, back.work.from_scratch) == (set(ranks), 0, True)
    assert {row["node"]: row["rank"] for row in r.current().collect()} == ranks


@pytest.mark.spec("FIX-DEC-SPARK-STATE", evidence="example")
@pytest.mark.heavy
def test_an_update_releases_its_scratch_frames_and_the_tables_it_replaced(spark: Any) -> None:
    """The rounds' local checkpoints are freed when the next update begins, so
    the blocks an engine holds do not grow with the updates: on a chain of 7
    nodes, each also the target of an edge from a node nothing reaches (so no
    segment crosses it: a cut at the top is a cascade of 6 rounds, putting it
    back an expansion of 6), the RDDs this test persisted, counted after the
    second cut-and-repair, are as many as after the first (a leak grows them by
    some tens at each); the last delta is still readable.

    And the tables an update replaced leave the checkpoint location (issue 32, finding 1):
    the engine's tables are reliable checkpoints there, every update writes new ones (its
    overlay, a compacted table's bases), and Spark's cleaner
    (``spark.cleaner.referenceTracking.cleanCheckpoints``, on in ENGINE_CONF) deletes those
    replaced once the driver holds no reference to them: after a collection in both
    processes, the checkpoints written here that remain are at most the frames the engine's
    state holds, though the updates wrote more. With the cleaner's setting off, 10 remained
    for 7 held (the check can fail). The wait for the cleaner's thread is bounded by a
    minute: the outcome is the files, not how soon they go."""
    import gc
    import time

    sc = spark.sparkContext
    first = sc.parallelize([0]).id()  # RDD ids count up: older RDDs are other tests'

    def persisted_here() -> int:
        return sum(1 for rdd_id in sc._jsc.getPersistentRDDs().keySet() if rdd_id > first)

    chain = spark.range(0, 6).selectExpr("id as src", "id + 1 as dst")
    r = restored_chain(spark, chain.union(chain.selectExpr("src + 100", "dst")), 6)
    persisted, written = [], set()
    for _ in range(2):
        cut = r.apply(remove_edges=[(0, 1)])
        assert cut.removed_count == 6 and cut.work.rounds >= 6
        written |= _checkpoint_folders(spark, first)
        back = r.apply(add_edges=[(0, 1)])
        written |= _checkpoint_folders(spark, first)
        persisted.append(persisted_here())
        assert back.added == set(range(1, 7))
    assert persisted == [persisted[0]] * 2, persisted
    held = _written_frames(r)
    assert len(written) > held, (written, held)  # the updates wrote more than the state holds
    deadline = time.monotonic() + 60
    while len(remaining := _checkpoint_folders(spark, first)) > held and time.monotonic() < deadline:
        gc.collect()
        sc._jvm.System.gc()
        time.sleep(0.5)
    assert len(remaining) <= held, (sorted(remaining), held, sorted(written))
    assert back.added == set(range(1, 7))  # the last delta is still readable


def _checkpoint_folders(spark: Any, after: int) -> set[int]:
    """The ids of the reliable checkpoints (folders ``rdd-ID`` under the session's checkpoint
    location) of RDDs newer than ``after``."""
    import glob
    import os

    location = "/" + str(spark.sparkContext.getCheckpointDir()).removeprefix("file:").lstrip("/")
    ids = (int(os.path.basename(p).removeprefix("rdd-")) for p in glob.glob(os.path.join(location, "rdd-*")))
    return {i for i in ids if i > after}


def _written_frames(engine: Any) -> int:
    """The reliably written frames the engine's state holds: each table's bases, the overlay."""
    state = engine._state
    return sum(len(t.bases) for t in state.tables.values()) + (state.written is not None)
