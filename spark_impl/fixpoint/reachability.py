"""The managed incremental fixpoint on Spark: reachability from roots along edges.

The live set ``lfp(F)``, ``F(S) = roots ∪ {y | x ∈ S, (x, y) ∈ edges}``, is
maintained under batches of changes (FIX-DEC-BATCH: net removals by
contraction, FIX-ALG-CONTRACT, then net additions by expansion,
FIX-ALG-EXPAND), with the reference's corrections of the printed pseudo-code:
the expansion frontier is ``F'(current) \\ current`` (FIX-DEC-EXPAND-SEED), and
an added or re-derived element gets ``1 + min rank of its live derivers``
(FIX-DEC-REDERIVE-RANK), so the rank invariant FIX-DEC-RANK-INVARIANT holds
after every operation.

Everything runs on the executors, as rounds of DataFrame joins; the driver
holds DataFrame handles and counts (a round's frontier size, its least rank),
never nodes:

* state (:class:`~spark_impl.storage.keyed_tables.KeyedTables`, reliably
  checkpointed, FIX-DEC-SPARK-STATE): ``roots (node)``; the edges twice,
  partitioned by source (``stepFwd``) and by target (``stepInv``, the paper's
  maintained index), so a round shuffles the frontier, not the edges;
  ``live (node, rank)`` partitioned by node; the segments
  (:mod:`spark_impl.fixpoint.segments`), partitioned by node and by segment;
* a frontier is a DataFrame, the small side of shuffled hash joins onto the
  tables' layout; nothing is broadcast and no runtime Bloom filter is built
  (:mod:`spark_impl.join_scope`: each is a Spark job of its own). A stored
  table is read as its base patched by small frames (the overlay of earlier
  updates, this update's removals and additions:
  :class:`~spark_impl.storage.keyed_tables.Patched`), and a join goes into the
  parts, so the base meets the probe where it lies and is never shuffled (a
  union of base and patches would lose the base's partitioning and shuffle it
  whole every round). A frame that several joins read is computed once
  (:func:`~spark_impl.storage.scratch.once`; the update's scratch frames are
  released when the next update begins);
* each table is read once per round at most: one lookup in the live set
  serves a round's worklist and its derivers; re-derivation reads the
  in-edges of the dying that the rounds which killed them read; a batch's
  edge rows need no presence check
  (:func:`~spark_impl.fixpoint.apply_delta.net_change`). A round is one job,
  its frames measured together (:func:`~spark_impl.fixpoint.update.measured`).
  A single-edge insert is 4 jobs (seeds, one expansion round, the output
  delta, the write: one scan of the edges), a delete 4 (a cascade round with
  the successors of its dying, re-derivation, the output delta, the write:
  two scans of the edges), whatever the graph's size
  (``tests/spark/test_fixpoint.py``; figures by ``benchmarks.reach_engine_bench``);
* a path of elements each with one in-edge, from the one before, is a segment
  (:mod:`spark_impl.fixpoint.segments`): the members after an element that
  dies die with it, and the members after an element that settles settle
  with it, each found by one more job, so cutting off a chain is 7 jobs and
  hanging it back 6, whatever its length (following such paths inside a
  round's job, without an index, was tried and is slower: CHANGELOG.md);
* Spark has no index, but the stored bases are sorted within their
  partitions and the cache keeps each batch's least and greatest key: a join
  whose probe's span the driver knows (from the batch's own rows, or from the
  aggregates of the job that computed the probe:
  :func:`~spark_impl.fixpoint.update.spanned`) reads the base within that
  span, and the cache skips the batches outside it. What remains proportional
  to the graph: a probe whose keys are far apart (a new edge from an old node
  to a new one) spans most of the base, and the lookups of derivers' ranks
  have no span (their keys are not known before the job that reads them), so
  those still stream the whole cached table past the probe;
* contraction (:mod:`spark_impl.fixpoint.contraction`) is the cascade in
  synchronous rounds, then re-derivation; expansion
  (:mod:`spark_impl.fixpoint.expansion`) settles elements in rank order, one
  rank per round, so ranks agree with the reference's exactly; one batch
  runs them in FIX-DEC-BATCH's order (:mod:`spark_impl.fixpoint.apply_delta`);
* an update writes its new tables first and swaps them in at the end (atomic:
  a failure leaves the old state; one that lost scratch blocks with an
  executor is run again, :meth:`IncrementalReachability._retrying`);
  ``make``, the first batch and any batch of at least ``BULK_ROWS`` rows and
  ``BULK_SHARE`` of the edges take the from-scratch path (semi-naive BFS
  rounds, FIX-LEM-SEMINAIVE);
* so does an update that turns out large: a small batch can kill or derive
  most of the graph (a root removed), and the cascade or expansion would then
  spend a Spark round per rank on frontiers as large as the graph, several
  times a recompute. Once the cascade's dying, or the worklist of its next
  round, or the nodes an expansion has still to settle, reach ``BULK_ROWS``
  and ``BULK_SHARE`` of the live set, the update is abandoned (nothing of it
  was written) and the batch recomputed from scratch, so such an update costs
  at most the rounds up to that point plus a recompute. A recompute keeps the
  stored edges, pending changes included, when the batch changes none.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from spark_impl.connect import require_jvm
from spark_impl.driver_rows import frame_of_rows
from spark_impl.fixpoint import segments
from spark_impl.fixpoint.apply_delta import KINDS, BatchSpans, apply_delta, net_rows
from spark_impl.fixpoint.update import (
    FixpointDelta,
    TurnedLarge,
    Update,
    Work,
    computed,
    measured,
    once_measured,
)
from spark_impl.join_scope import without_broadcasts
from spark_impl.storage.frames import union_all
from spark_impl.storage.keyed_tables import KeyedTables, Table, merged_patches
from spark_impl.storage.scratch import Scratch, lost_scratch, once

Node = Hashable
Edge = tuple[Any, Any]

#: a batch of at least this many rows ...
BULK_ROWS = 10_000
#: ... and this share of the stored edges is recomputed from scratch
BULK_SHARE = 0.1
#: an update that lost scratch frames with an executor is run again at most this many times
SCRATCH_RETRIES = 2

_T = TypeVar("_T")


TABLES = ("roots", "edges", "live")


class StoredTable:
    """A read-only face of one stored table as weighted rows (``w = 1``), for
    snapshots and observations: ``all()`` a DataFrame, ``collect_rows()`` a dict."""

    def __init__(self, state: KeyedTables, name: str) -> None:
        self.state, self.name = state, name

    def all(self) -> DataFrame:
        return self.state.current(self.name).withColumn("w", F.lit(1).cast("bigint"))

    def collect_rows(self) -> dict[tuple[Any, ...], int]:
        """Every row (small tables only: observations of a conformance case)."""
        columns = self.state.tables[self.name].columns
        return {tuple(r[c] for c in columns): 1 for r in self.state.current(self.name).collect()}


class IncrementalReachability:
    """Reachability from ``roots`` along ``edges``, maintained under batched changes."""

    def __init__(self, spark: SparkSession, node_type: str = "string", bulk_rows: int = BULK_ROWS,
                 bulk_share: float = BULK_SHARE) -> None:
        # its scratch frames and kept tables are the JVM's (spark_impl/storage/scratch.py)
        require_jvm(spark, "the reachability engine (spark_impl.fixpoint)")
        self.spark = spark
        self.node_type = node_type
        self.bulk_rows, self.bulk_share = bulk_rows, bulk_share
        #: the last update's scratch frames: its output delta reads them, so they
        #: are released when the next update begins (spark_impl/storage/scratch.py)
        self._scratch = Scratch()
        #: attempts run again because their scratch frames were lost (:meth:`_retrying`)
        self.retries = 0
        nodes, edges = self._frame([], "node"), self._frame([], "src", "dst")
        self._state = KeyedTables.of({
            "roots": Table.empty(nodes, ("node",)),
            "edges": Table.empty(edges, ("src", "dst"), layouts=(("src",), ("dst",))),
            "live": Table.empty(self._ranked(), ("node",), ("rank",)),
            "segments": Table.empty(segments.empty(nodes), segments.KEY, segments.VALUES, segments.LAYOUTS)})

    # --- frames ------------------------------------------------------------------

    def _frame(self, rows: Sequence[tuple[Any, ...]], *columns: str) -> DataFrame:
        return frame_of_rows(self.spark, list(rows), ", ".join(f"{c} {self.node_type}" for c in columns))

    def _ranked(self) -> DataFrame:
        """An empty ``(node, rank)`` frame."""
        return frame_of_rows(self.spark, [], f"node {self.node_type}, rank bigint")

    @staticmethod
    def _built(roots: DataFrame, edges: DataFrame, live: DataFrame) -> KeyedTables:
        """New tables (written here), the segments built from the written roots and edges."""
        roots_t = Table.build(roots, ("node",))
        edges_t = Table.build(edges, ("src", "dst"), layouts=(("src",), ("dst",)))
        built = segments.build(roots_t.bases[0], edges_t.bases[0], computed)
        return KeyedTables.of({
            "roots": roots_t, "edges": edges_t, "live": Table.build(live, ("node",), ("rank",)),
            "segments": Table.build(built, segments.KEY, segments.VALUES, segments.LAYOUTS)})

    def _swap(self, state: KeyedTables) -> None:
        """Make ``state`` (every table already written) the engine's, all at once."""
        old, self._state = self._state, state
        old.release(state)

    # --- the stored tables, as weighted rows (snapshots, observations) ------------------

    @property
    def roots(self) -> StoredTable:
        return StoredTable(self._state, "roots")

    @roots.setter
    def roots(self, table: Any) -> None:
        self._restore("roots", table.all())

    @property
    def edges(self) -> StoredTable:
        return StoredTable(self._state, "edges")

    @edges.setter
    def edges(self, table: Any) -> None:
        self._restore("edges", table.all())

    @property
    def live(self) -> StoredTable:
        return StoredTable(self._state, "live")

    @live.setter
    def live(self, table: Any) -> None:
        self._restore("live", table.all())

    def _restore(self, name: str, rows: DataFrame) -> None:
        """Replace a stored table by weighted rows (``w > 0``), e.g. read back from a snapshot."""
        tables = {n: self._state.current(n) for n in TABLES}
        tables[name] = rows.where("w > 0")
        self.restore(tables["roots"], tables["edges"], tables["live"])

    @without_broadcasts
    def restore(self, roots: DataFrame, edges: DataFrame, live: DataFrame) -> None:
        """Take ``roots (node)``, ``edges (src, dst)`` and ``live (node, rank)`` as
        the stored state (e.g. saved by a previous run): written and partitioned
        once, swapped in at the end. The caller vouches that ``live`` is the
        fixpoint of the two with ranks satisfying FIX-DEC-RANK-INVARIANT."""
        with self._scratch.collecting():
            state = self._built(roots.select("node"), edges.select("src", "dst"), live.select("node", "rank"))
        self._scratch.release()
        self._swap(state)

    @property
    def stored(self) -> KeyedTables:
        """The stored tables as they stand, every one written (what a caller saves, e.g.
        :class:`~spark_impl.storage.saved_tables.SavedTables`; also the shapes it reads
        them back by)."""
        return self._state

    def resume(self, tables: KeyedTables) -> None:
        """Take ``tables`` (written, e.g. read back by
        :meth:`~spark_impl.storage.saved_tables.SavedTables.load`) as the stored state,
        the segment index with them: nothing is rebuilt. The caller vouches that they are
        tables this engine stored."""
        self._scratch.release()
        self._swap(tables)

    # --- observations ------------------------------------------------------------

    def current(self) -> DataFrame:
        """The live set with ranks: ``(node, rank)``."""
        return self._state.current("live")

    def sizes(self) -> dict[str, int]:
        """Stored row counts (one job per table): roots, edges, live nodes."""
        return {name: self._state.current(name).count() for name in TABLES}

    # --- make: from scratch -------------------------------------------------------

    @without_broadcasts
    def make(self, roots: DataFrame, edges: DataFrame) -> tuple[DataFrame, Work]:
        """The fixpoint of ``roots (node)`` and ``edges (src, dst)`` from scratch;
        returns the live set ``(node, rank)`` (exact BFS distances) and the work."""
        state, work = self._retrying(lambda: self._from_scratch(roots.select("node").distinct(),
                                                                edges.select("src", "dst").distinct()))
        self._swap(state)
        self._scratch.release()  # the tables are written: nothing reads the rounds' frames
        return state.current("live"), work

    def _retrying(self, attempt: Callable[[], _T]) -> _T:
        """``attempt()`` with its scratch frames collected, run again (at most
        :data:`SCRATCH_RETRIES` times) when it failed because some of them were
        lost: they are executor-local blocks (spark_impl/storage/scratch.py), gone with
        an executor that died mid-update. Nothing is swapped in before an
        attempt succeeds, so a retry starts from the same stored tables (which
        are reliable checkpoints and survive the executor) and gives the same
        result. Any other failure is raised at once."""
        for retry in range(SCRATCH_RETRIES + 1):
            self._scratch.release()
            try:
                with self._scratch.collecting():
                    return attempt()
            except Exception as error:  # Spark's errors reach Python under several classes
                if retry == SCRATCH_RETRIES or not lost_scratch(error):
                    raise
                self.retries += 1
        raise AssertionError("unreachable")  # the last attempt returned or raised

    def _from_scratch(self, roots: DataFrame, edges: DataFrame | None) -> tuple[KeyedTables, Work]:
        """Semi-naive BFS rounds (FIX-LEM-SEMINAIVE): only the frontier joins the
        edges (FIX-DEF-6); ``next = succ(frontier) \\ live``. ``edges`` rows to
        write, or ``None``: the stored edges, with their pending changes, kept
        as they lie (a batch that changes no edge rewrites none)."""
        if edges is None:
            given = self._state.replaced({"roots": Table.build(roots, ("node",)),
                                          "live": Table.build(self._ranked(), ("node",), ("rank",))})
            # a segment's members are no roots when built: one that is now was added, its link broken
            rooted = given.patched("segments").join(given.current("roots"), ["node"])
            given = given.with_changes({"segments": (
                segments.marked(rooted, rooted.select("node", F.lit(True).alias("cb"), F.lit(False).alias("ca")))
                .withColumn("present", F.lit(True)), given.rows("roots"))})
        else:
            given = self._built(roots, edges, self._ranked())
        out = given.patched("edges")
        work = Work()
        settled: list[DataFrame] = []
        frontier, t = once_measured(given.current("roots").select("node", F.lit(0).cast("bigint").alias("rank")),
                               n=F.count(F.lit(1)))
        n = t["n"]
        seen: tuple[DataFrame, ...] = ()  # the settled nodes, in at most two frames
        while n:
            work.rounds += 1
            work.elements_visited += n
            settled.append(frontier)
            seen = merged_patches(seen + (frontier.select("node"),))
            offers = out.join(frontier.select(F.col("node").alias("src"), "rank"), ["src"])
            fresh = offers.groupBy(F.col("dst").alias("node")).agg(
                (F.min("rank") + 1).alias("rank"), F.count(F.lit(1)).alias("scanned"))
            for part in seen:
                fresh = fresh.join(part, "node", "left_anti")
            frontier, t = once_measured(fresh.select("node", "rank"), n=F.count(F.lit(1)))
            n = t["n"]
        # every settled element's successors were scanned once: the edges out of the live set
        work.edges_scanned += out.matching(union_all([self._ranked(), *settled]).select(F.col("node").alias("src")),
                                           ["src"]).count()
        live = Table.build(union_all([self._ranked(), *settled]), ("node",), ("rank",))
        return given.replaced({"live": live}), work

    # --- apply --------------------------------------------------------------------

    @without_broadcasts
    def apply(self, add_roots: Sequence[Any] = (), remove_roots: Sequence[Any] = (),
              add_edges: Sequence[Edge] = (), remove_edges: Sequence[Edge] = ()) -> FixpointDelta:
        """One batch (FIX-DEC-BATCH): ``roots' = (roots \\ remove) ∪ add``, likewise edges.

        The batch arrives as driver lists (the caller's input); a removal that
        the batch also adds is dropped here (it is a no-op), the rest becomes a
        DataFrame at once, and nothing about the graph comes back but counts."""
        adding_roots, adding_edges = dict.fromkeys(add_roots), dict.fromkeys((u, v) for u, v in add_edges)
        rows = ([("R+", r, r) for r in adding_roots]
                + [("R-", r, r) for r in dict.fromkeys(remove_roots) if r not in adding_roots]
                + [("E+", u, v) for u, v in adding_edges]
                + [("E-", u, v) for u, v in dict.fromkeys((u, v) for u, v in remove_edges)
                   if (u, v) not in adding_edges])
        batch = frame_of_rows(self.spark, rows, f"kind string, src {self.node_type}, dst {self.node_type}")
        counts = {k: sum(1 for row in rows if row[0] == k) for k in KINDS}
        return self._applied(batch, counts, BatchSpans.of(rows))

    @without_broadcasts
    def apply_frame(self, edits: DataFrame) -> FixpointDelta:
        """:meth:`apply` with the batch a DataFrame ``(kind, src, dst)``, ``kind`` one of
        ``R+ R- E+ E-`` (a root ``r`` as ``(kind, r, r)``), never brought to the driver:
        duplicates and removals the batch also adds are dropped, and one job computes the
        rest once with its counts and spans (all that comes back)."""
        batch = net_rows(edits).persist()
        try:
            counts, spans = BatchSpans.measured(batch)
            return self._applied(batch, counts, spans)
        finally:
            batch.unpersist()  # the update's own frames are computed: none reads it again

    def _applied(self, batch: DataFrame, counts: dict[str, int], spans: BatchSpans) -> FixpointDelta:
        """The update by the batch of ``counts`` rows of each kind: from scratch when the
        state is empty or the batch as large as the graph, else incremental."""
        s = self._state
        size = sum(counts.values())
        edges_changed = bool(counts["E+"] or counts["E-"])
        if s.rows("roots") + s.rows("edges") == 0 or (size >= self.bulk_rows
                                                      and size >= self.bulk_share * s.rows("edges")):
            state, delta = self._retrying(lambda: self._bulk(batch, edges_changed))
        else:
            state, delta = self._retrying(lambda: self._incremental(batch, counts, spans, edges_changed))
        self._swap(state)
        return delta

    def _incremental(self, batch: DataFrame, counts: dict[str, int], spans: BatchSpans,
                     edges_changed: bool) -> tuple[KeyedTables, FixpointDelta]:
        """The update by contraction and expansion, or from scratch if it turns out large."""
        try:
            return apply_delta(Update(self._state, self.bulk_rows, self.bulk_share), batch, counts, spans,
                               self._frame([], "node"), self._ranked())
        except TurnedLarge:
            self._scratch.release()  # the abandoned rounds' frames: nothing of them is kept
            return self._bulk(batch, edges_changed)

    def _bulk(self, batch: DataFrame, edges_changed: bool) -> tuple[KeyedTables, FixpointDelta]:
        """A batch as large as the graph (or the first one), or one that turned out
        large: recompute from scratch. Edges the batch leaves alone are kept as
        they lie, pending changes included (not written again)."""
        s = self._state
        roots = (s.current("roots").join(batch.where("kind = 'R-'").select(F.col("src").alias("node")),
                                         "node", "left_anti")
                 .unionByName(batch.where("kind = 'R+'").select(F.col("src").alias("node"))).distinct())
        edges = None
        if edges_changed:
            edges = (s.current("edges").join(batch.where("kind = 'E-'").select("src", "dst"), ["src", "dst"],
                                             "left_anti")
                     .unionByName(batch.where("kind = 'E+'").select("src", "dst")).distinct())
        state, work = self._from_scratch(roots, edges)
        work.from_scratch = True
        old, new = s.current("live").select("node"), state.current("live").select("node")
        added, removed = once(new.join(old, "node", "left_anti")), once(old.join(new, "node", "left_anti"))
        (a, _), (r, _) = measured((added, None, {"n": F.count(F.lit(1))}), (removed, None, {"n": F.count(F.lit(1))}))
        return state, FixpointDelta(added, removed, a["n"], r["n"], work)
