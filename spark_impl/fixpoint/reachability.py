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

* state (:class:`~spark_impl.storage.keyed_tables.KeyedTables`, reliably checkpointed,
  FIX-DEC-SPARK-STATE): ``roots (node)``; the edges twice, partitioned by
  source (``stepFwd``) and by target (``stepInv``, the paper's maintained
  index), so a round shuffles the frontier, not the edges; ``live (node,
  rank)`` partitioned by node; the segments (:mod:`spark_impl.fixpoint.segments`),
  partitioned by node and by segment;
* a frontier is a DataFrame, the small side of shuffled hash joins onto the
  tables' layout; nothing is broadcast and no runtime Bloom filter is built
  (:mod:`spark_impl.join_scope`: each is a Spark job of its own, which made a
  single-edge delete 38 jobs, then 14). A stored table is read as its base patched by small frames (the
  overlay of earlier updates, this update's removals and additions:
  :class:`~spark_impl.storage.keyed_tables.Patched`), and a join goes into the parts,
  so the base meets the probe where it lies and is never shuffled (a union of
  base and patches would lose the base's partitioning and shuffle it whole
  every round). A frame that several joins read is computed once
  (:func:`~spark_impl.storage.scratch.once`; the update's scratch frames are
  released when the next update begins). Each table is read once per round
  at most: one lookup in the live set serves a round's candidates and their
  derivers; re-derivation reads the in-edges of the dead that the rounds
  which killed them read; a batch's edge rows need no presence check
  (:meth:`_Update.net_roots`). A single-edge insert is 4 jobs (seeds, one
  expansion round, the output delta, the write: one scan of the edges), a
  delete 4 (a cascade round with the successors of its dead, re-derivation,
  the output delta, the write: two scans of the edges), whatever the graph's
  size (``tests/spark/test_fixpoint.py``; figures by
  ``benchmarks.reach_engine_bench``). A cascade round is one job, the
  successors of its dead computed with them (``_measured``). A path of
  elements each with one in-edge, from the one before, is a segment
  (:mod:`spark_impl.fixpoint.segments`): the members after an element that dies die
  with it, found by one more job (their successors by another), and the
  members after an element that settles settle with it, so cutting off a
  chain of 32 nodes is 7 jobs (it was 35 with a round per node, 67 before
  that) and hanging it back 6.
  Spark has no index, but the stored bases are sorted within their
  partitions and the cache keeps each batch's least and greatest key: a join
  whose probe's span the driver knows (from the batch's own rows, or from
  the aggregates of the job that computed the probe: ``_spanned``) reads the
  base within that span, and the cache skips the batches outside it (at
  10^7 edges a single-edge delete's two edge reads went from about 2 s of
  executor time each to 0.4 s). What remains proportional to the graph: a
  probe whose keys are far apart (a new edge from an old node to a new one)
  spans most of the base, and the lookups of derivers' ranks have no span
  (their keys are not known before the job that reads them), so those
  still stream the whole cached table past the probe;
* contraction is the cascade in synchronous rounds (candidates without a live
  deriver of lower rank die; the successors of the dead are the next
  candidates), whose result is the worklist cascade's: under the rank
  invariant an element's fate depends only on elements of lower rank, so the
  order of examination does not matter (FIX-DEC-GAP). Then re-derivation:
  the dead with a surviving deriver are the frontier of an expansion;
* expansion settles elements in rank order, one rank per round (a round
  settles every tentative element of the least tentative rank), which is the
  reference's priority-queue order, so ranks agree with it exactly; a
  segment's members settle with their anchor at its rank plus their
  distance, the rank their one deriver gives them. (Rounds that followed
  in-degree-1 paths a few hops inside their own job, without an index, were
  tried and measured slower: a chain of 32 in 11 jobs instead of 35, but
  41 s against 24 s to cut it off at 10^5 edges; CHANGELOG.md, chains);
* an update writes its new tables first and swaps them in at the end (atomic:
  a failure leaves the old state; one that lost scratch blocks with an
  executor is run again, :meth:`IncrementalReachability._retrying`); ``make``, the first batch and any batch
  of at least ``BULK_ROWS`` rows and ``BULK_SHARE`` of the edges take the
  from-scratch path (semi-naive BFS rounds, FIX-LEM-SEMINAIVE);
* so does an update that turns out large: a small batch can kill or derive
  most of the graph (a root removed), and the cascade or expansion would then
  spend a Spark round per rank on frontiers as large as the graph, several
  times a recompute (measured: 28.7 s against 1.8 s at 10^5 edges). Once the
  cascade's dead, or the candidates of its next round, or the nodes an
  expansion has still to settle, reach ``BULK_ROWS`` and ``BULK_SHARE`` of the
  live set, the update is abandoned (nothing of it was written) and the batch
  recomputed from scratch, so such an update costs at most the rounds up to
  that point plus a recompute. A recompute keeps the stored edges, pending
  changes included, when the batch changes none (at 10^7 edges, rewriting
  them was 31 s of a 54 s root removal).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, TypeVar

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from spark_impl.fixpoint import segments
from spark_impl.join_scope import without_broadcasts
from spark_impl.storage.frames import union_all
from spark_impl.storage.keyed_tables import KeyedTables, Patched, Span, Table, merged_patches
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


@dataclass
class Work:
    """What an update examined (FIX-CLAIM-COMPLEXITY), counted as the reference counts it.

    ``elements_visited``: seeds and cascade candidates examined, elements
    settled by expansion, dead elements examined for re-derivation;
    ``edges_scanned``: the added/removed pairs examined, and the edge rows the
    rounds' joins produced (successors of settled and dead elements,
    predecessors of candidates and of the dead); ``rounds``: Spark rounds.
    Spark has no index, so a round's joins read every partition of the edge
    tables; these counters are the rows that the algorithm examines.
    """

    elements_visited: int = 0
    edges_scanned: int = 0
    rounds: int = 0
    #: the update was recomputed from scratch (a bulk batch, or one that turned out large)
    from_scratch: bool = False

    def as_mapping(self) -> dict[str, int]:
        return {"elements_visited": self.elements_visited, "edges_scanned": self.edges_scanned,
                "rounds": self.rounds}


@dataclass
class FixpointDelta:
    """The output delta of an update, ``lfp(F') \\ lfp(F)`` and ``lfp(F) \\ lfp(F')``,
    as DataFrames of ``node`` with their sizes; ``added``/``removed`` collect
    them to the driver on first use (for small deltas: observations, tests)."""

    added_frame: DataFrame
    removed_frame: DataFrame
    added_count: int
    removed_count: int
    work: Work = field(default_factory=Work)

    @cached_property
    def added(self) -> set[Any]:
        return {r["node"] for r in self.added_frame.collect()}  # an observation: small deltas only

    @cached_property
    def removed(self) -> set[Any]:
        return {r["node"] for r in self.removed_frame.collect()}  # an observation: small deltas only


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


def _scratch(df: DataFrame, **aggs: Column) -> tuple[DataFrame, dict[str, int]]:
    """Scratch data of one round, computed once by the one job that also
    computes its aggregates ``aggs`` (ints: counts, a least rank); a frame of
    :func:`~spark_impl.storage.scratch.once`, released with the update's scratch."""
    out, t, _ = _spanned(df, None, **aggs)
    return out, t


def _spanned(df: DataFrame, node: Column | None, **aggs: Column) -> tuple[DataFrame, dict[str, int], Span | None]:
    """:func:`_scratch`, and by the same job the :class:`Span` of ``node``
    (its null values left out; ``None`` when all are): the next round's
    joins read the stored tables within it."""
    out = once(df)
    [(t, span)] = _measured((out, node, aggs))
    return out, t, span


#: a frame, the column whose span is wanted (or ``None``), the aggregates wanted
Measure = tuple[DataFrame, Column | None, dict[str, Column]]


def _measured(*measures: Measure) -> list[tuple[dict[str, int], Span | None]]:
    """The aggregates (ints) and spans of several frames, computed by one Spark
    job (a union of their one-row aggregates): a frame that depends on
    another (a round's successors on its dead) is computed in the same job."""
    parts = []
    for i, (df, node, aggs) in enumerate(measures):
        ends = {} if node is None else {"span low": F.min(node), "span high": F.max(node)}
        parts.append(df.agg(F.lit(i).alias("measure"),
                            *(a.alias(f"{i} {k}") for k, a in {**aggs, **ends}.items())))
    merged = parts[0]
    for part in parts[1:]:
        merged = merged.unionByName(part, allowMissingColumns=True)
    rows = {row["measure"]: row for row in merged.collect()}  # one row of counts per measure
    out = []
    for i, (_, node, aggs) in enumerate(measures):
        row = rows[i]
        low, high = (None, None) if node is None else (row[f"{i} span low"], row[f"{i} span high"])
        out.append(({k: int(row[f"{i} {k}"] or 0) for k in aggs}, None if low is None else Span.around(low, high)))
    return out


def _computed(df: DataFrame, condition: Column) -> tuple[DataFrame, int]:
    """``df`` computed once, and how many of its rows meet ``condition`` (one job)."""
    out, t = _scratch(df, n=_count_if(condition))
    return out, t["n"]


def _hull(*spans: tuple[Span | None, int]) -> Span | None:
    """The span holding every non-empty one of ``(span, rows)``; ``None`` (read
    everything) when one with rows has no span."""
    with_rows = [span for span, rows in spans if rows]
    held = [span for span in with_rows if span is not None]
    if not held or len(held) < len(with_rows):
        return None
    return Span.around(min(span.low for span in held), max(span.high for span in held))


def _small(df: DataFrame) -> DataFrame:
    """The small side of a join between scratch frames, hashed (a shuffled
    hash join; the hint also keeps Spark from broadcasting it: a broadcast is
    a Spark job of its own). Joins with a stored table go through
    :meth:`~spark_impl.storage.keyed_tables.Patched.join`, which leaves the table where
    it lies (partitioned by the join's first key;
    ``spark.sql.requireAllClusterKeysForCoPartition`` is off, see
    spark_impl/session.py)."""
    return df.hint("shuffle_hash")


def _count_if(condition: Column) -> Column:
    return F.sum(F.when(condition, F.lit(1)).otherwise(F.lit(0)))


class _Live:
    """The live set as an update stands: the stored ``(node, rank)`` minus the
    nodes taken out (dead, re-ranked), plus the nodes put in (settled,
    re-ranked). Each patch is scratch data of the update."""

    def __init__(self, stored: Patched) -> None:
        self.table = stored

    def take_out(self, nodes: DataFrame) -> None:
        self.table = self.table.without(nodes.select("node"))

    def put(self, ranked: DataFrame) -> None:
        self.table = self.table.plus(ranked.select("node", "rank"))

    def ranks(self, probe: DataFrame, node: str = "node", rank: str = "rank", span: Span | None = None) -> DataFrame:
        """``(node, rank)`` of the live elements among ``probe``'s ``node``
        column (within ``span``, when known), renamed."""
        keys = probe.select(F.col(node).alias("node"))
        return self.table.matching(keys, ["node"], span).select(F.col("node").alias(node), F.col("rank").alias(rank))


class IncrementalReachability:
    """Reachability from ``roots`` along ``edges``, maintained under batched changes."""

    def __init__(self, spark: SparkSession, node_type: str = "string", bulk_rows: int = BULK_ROWS,
                 bulk_share: float = BULK_SHARE) -> None:
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
        return self.spark.createDataFrame(list(rows), ", ".join(f"{c} {self.node_type}" for c in columns))

    def _ranked(self) -> DataFrame:
        """An empty ``(node, rank)`` frame."""
        return self.spark.createDataFrame([], f"node {self.node_type}, rank bigint")

    @staticmethod
    def _built(roots: DataFrame, edges: DataFrame, live: DataFrame) -> KeyedTables:
        """New tables (written here), the segments built from the written roots and edges."""
        roots_t = Table.build(roots, ("node",))
        edges_t = Table.build(edges, ("src", "dst"), layouts=(("src",), ("dst",)))
        built = segments.build(roots_t.bases[0], edges_t.bases[0], _computed)
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
        frontier, t = _scratch(given.current("roots").select("node", F.lit(0).cast("bigint").alias("rank")),
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
            frontier, t = _scratch(fresh.select("node", "rank"), n=F.count(F.lit(1)))
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
        s = self._state
        batch = self.spark.createDataFrame(rows, f"kind string, src {self.node_type}, dst {self.node_type}")
        edges_changed = bool(adding_edges or remove_edges)
        if s.rows("roots") + s.rows("edges") == 0 or (len(rows) >= self.bulk_rows
                                                      and len(rows) >= self.bulk_share * s.rows("edges")):
            state, delta = self._retrying(lambda: self._bulk(batch, edges_changed))
        else:
            counts = {k: sum(1 for row in rows if row[0] == k) for k in ("R+", "R-", "E+", "E-")}
            state, delta = self._retrying(lambda: self._incremental(batch, counts, _BatchSpans.of(rows), edges_changed))
        self._swap(state)
        return delta

    def _incremental(self, batch: DataFrame, counts: dict[str, int], spans: _BatchSpans,
                     edges_changed: bool) -> tuple[KeyedTables, FixpointDelta]:
        """The update by contraction and expansion, or from scratch if it turns out large."""
        try:
            return _Update(self, self._state).run(batch, counts, spans)
        except _TurnedLarge:
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
        (a, _), (r, _) = _measured((added, None, {"n": F.count(F.lit(1))}), (removed, None, {"n": F.count(F.lit(1))}))
        return state, FixpointDelta(added, removed, a["n"], r["n"], work)


@dataclass(frozen=True)
class _BatchSpans:
    """The spans of the nodes a batch names, taken from its rows in the driver
    (``(kind, src, dst)``, a root ``r`` as ``(kind, r, r)``): the first joins
    of an update read the stored tables within them."""

    roots: Span | None  # the roots added or removed
    new_roots: Span | None
    lost: Span | None  # the nodes losing support: removed roots, targets of removed edges
    gained: Span | None  # the nodes an addition names: new roots, both ends of new edges
    #: the nodes whose segments the batch may break (:func:`segments.marks`), marked before
    #: them (targets of added and removed edges, new roots) and after them (sources of added edges)
    marked_before: Span | None
    marked_after: Span | None
    n_marked: int

    @classmethod
    def of(cls, rows: Sequence[tuple[str, Any, Any]]) -> _BatchSpans:
        before = [v for kind, _, v in rows if kind in ("E+", "E-", "R+")]
        after = [u for kind, u, _ in rows if kind == "E+"]
        return cls(roots=Span.of([r for kind, r, _ in rows if kind in ("R+", "R-")]),
                   new_roots=Span.of([r for kind, r, _ in rows if kind == "R+"]),
                   lost=Span.of([v for kind, _, v in rows if kind in ("R-", "E-")]),
                   gained=Span.of([n for kind, u, v in rows if kind in ("R+", "E+") for n in (u, v)]),
                   marked_before=Span.of(before), marked_after=Span.of(after), n_marked=len(before) + len(after))


class _TurnedLarge(Exception):
    """An update whose cascade or expansion reached the bulk threshold: recompute instead."""


class _Update:
    """One incremental ``apply``: contraction, then expansion, then the new tables."""

    def __init__(self, engine: IncrementalReachability, state: KeyedTables) -> None:
        self.engine = engine
        self.state = state
        #: dead (or still to settle) elements past which recomputing is cheaper
        self.limit = max(engine.bulk_rows, engine.bulk_share * state.rows("live"))
        self.n_dead = 0
        self.work = Work()
        self.live = _Live(state.patched("live"))
        #: the segments, by node and by segment, patched with the batch's marks in :meth:`run`
        self.segments = (state.patched("segments", 0), state.patched("segments", 1))
        self.marked: DataFrame | None = None  # the index rows the batch marks
        self.dead: list[tuple[DataFrame, int]] = []  # the cascade's dead, per round
        self.dead_preds: list[DataFrame] = []  # their in-edges, (node, src, srank), per round
        self.settled: list[DataFrame] = []  # (node, rank) settled by expansions
        self.reranked: tuple[DataFrame, int] | None = None  # live elements that became roots: (node, 0)

    def run(self, batch: DataFrame, counts: dict[str, int],
            spans: _BatchSpans) -> tuple[KeyedTables, FixpointDelta]:
        """``batch``: rows ``(kind, src, dst)``, ``kind`` one of ``R+ R- E+ E-``
        (a root is ``src = dst``), ``counts`` how many of each."""
        s = self.state
        roots, out_edges, in_edges = s.patched("roots"), s.patched("edges", 0), s.patched("edges", 1)
        net, t = self.net_roots(batch, counts, roots, spans.roots)
        if spans.n_marked:
            self.mark(batch, spans)
        gone_roots = net.where("kind = 'R-'").select(F.col("src").alias("node"))
        new_roots = net.where("kind = 'R+'").select(F.col("src").alias("node"))
        gone_edges = net.where("kind = 'E-'").select("src", "dst")
        new_edges = net.where("kind = 'E+'").select("src", "dst")
        mid_out = out_edges.without(gone_edges) if t["E-"] else out_edges
        if t["R-"] or t["E-"]:
            mid_roots = roots.without(gone_roots) if t["R-"] else roots
            mid_in = in_edges.without(gone_edges) if t["E-"] else in_edges
            self.contract(gone_roots, t["R-"], gone_edges, t["E-"], spans.lost, mid_roots, mid_out, mid_in)
        if t["R+"] or t["E+"]:
            added_out = mid_out.without(new_edges).plus(new_edges) if t["E+"] else mid_out  # once each
            self.expand_additions(new_roots, t["R+"], new_edges, t["E+"], spans, added_out)
        present_col, absent_col = F.lit(True).alias("present"), F.lit(False).alias("present")
        changes = {
            "roots": (gone_roots.select("node", absent_col).unionByName(new_roots.select("node", present_col)),
                      t["R-"] + t["R+"]),
            "edges": (gone_edges.select("src", "dst", absent_col)
                      .unionByName(new_edges.select("src", "dst", present_col)), t["E-"] + t["E+"])}
        return self.commit(changes)

    @staticmethod
    def net_roots(batch: DataFrame, counts: dict[str, int], roots: Patched,
                  span: Span | None) -> tuple[DataFrame, dict[str, int]]:
        """The net change (FIX-DEC-BATCH) as far as it needs the stored tables:
        a root removal of a root not stored, or an addition of one stored, is
        dropped (one job, on the small roots table; none without root rows).
        Edge rows are taken as they are, saving a scan of the edge table: an
        absent edge removed takes support from nothing, so its target, if live,
        keeps a live deriver of lower rank and survives the cascade
        (FIX-DEC-RANK-INVARIANT); a present edge added offers its target a rank
        when it is already live, and the offer is dropped as for any live
        element; the tables record both as they are (an absent key deleted, a
        present row written again)."""
        if not counts["R+"] + counts["R-"]:
            return batch, counts
        asked = batch.where("kind like 'R%'")
        present = roots.matching(asked.select(F.col("src").alias("node")), ["node"], span).select(
            F.col("node").alias("src"), F.lit(True).alias("present"))
        net, t = _scratch(batch.join(_small(present), "src", "left")
                          .where(~F.col("kind").startswith("R")
                                 | (F.col("kind").endswith("-") == F.col("present").isNotNull()))
                          .select("kind", "src", "dst"),
                          **{k: _count_if(F.col("kind") == k) for k in ("R+", "R-")})
        return net, {**counts, **t}

    def mark(self, batch: DataFrame, spans: _BatchSpans) -> None:
        """The segments as the batch leaves them: the named elements' rows
        marked where the batch breaks their segments (computed by the first
        job that reads the segments; written with the new tables). Elements
        marked before and after are looked up apart, each within its own
        span (a new edge from an old node to a new one names two far-apart
        ids, whose common span would read most of the index)."""
        by_node, by_seg = self.segments
        named = once(segments.marks(batch))
        rows = (by_node.join(named.where("cb").select("node"), ["node"], span=spans.marked_before)
                .unionByName(by_node.join(named.where("ca and not cb").select("node"), ["node"],
                                          span=spans.marked_after)))
        self.marked = once(segments.marked(rows, named))
        self.segments = (by_node.without(self.marked).plus(self.marked),
                         by_seg.without(self.marked).plus(self.marked))

    def anchored(self, nodes: DataFrame, span: Span | None) -> DataFrame:
        """Of ``nodes (node, …)`` (within ``span``), those with segment members
        after them: ``(anchor, seg, apos, …)`` (:func:`segments.anchors`)."""
        rows = self.segments[0].join(nodes.select("node").distinct(), ["node"], span=span)
        return once(segments.anchors(rows.join(nodes, "node")))

    def following(self, anchored: DataFrame, seg_span: Span | None) -> DataFrame:
        """``(node, anchor, offset)``: the members after each anchor up to a break."""
        rows = self.segments[1].matching(anchored.select("seg"), ["seg"], seg_span)
        return segments.following(rows, anchored)

    # --- contraction (FIX-ALG-CONTRACT, corrected) -----------------------------------

    def contract(self, gone_roots: DataFrame, n_gr: int, gone_edges: DataFrame, n_ge: int, span: Span | None,
                 roots: Patched, out_edges: Patched, in_edges: Patched) -> None:
        """Phase 1, the cascade with the stored (possibly stale) ranks; phase 2,
        re-derivation and its expansion; all under the reduced configuration."""
        # lost support: removed roots; targets of removed pairs (a target whose
        # deriver was not live, or that is not live, is examined and survives or is skipped)
        self.work.elements_visited += n_gr
        self.work.edges_scanned += n_ge
        candidates, n = once(gone_roots.unionByName(gone_edges.select(F.col("dst").alias("node")))), n_gr + n_ge
        while n:
            if n >= self.limit:  # a round over as many elements as a recompute's share: recompute
                raise _TurnedLarge
            candidates, n, span = self.cascade_round(candidates, n, span, roots, in_edges, out_edges)
        if not self.dead:
            return
        n_dead = sum(k for _, k in self.dead)
        # phase 2 (FIX-DEC-REDERIVE-RANK): a dead element with a surviving
        # deriver comes back at 1 + the least rank of its surviving derivers;
        # the in-edges of the dead, and their sources' ranks, were read by the
        # rounds that killed them; contraction changes no rank, so a source's
        # rank then is its rank now, unless it died since (no live-set lookup)
        self.work.rounds += 1
        dead = union_all([df for df, _ in self.dead]).select(F.col("node").alias("src"), F.lit(True).alias("gone"))
        ranked = (union_all(self.dead_preds).join(_small(dead), "src", "left")
                  .select(F.col("node").alias("dst"), "src",
                          F.when(F.col("gone").isNull(), F.col("srank")).alias("srank")))
        frontier, t, span = _spanned(
            ranked.groupBy(F.col("dst").alias("node")).agg((F.min("srank") + 1).alias("rank"),
                                                           F.count(F.lit(1)).alias("scanned")),
            F.when(F.col("rank").isNotNull(), F.col("node")), scanned=F.sum("scanned"), n=F.count("rank"),
            m=F.min("rank"))
        self.work.elements_visited += n_dead
        self.work.edges_scanned += t["scanned"]
        self.expand(frontier.where(F.col("rank").isNotNull()).select("node", "rank"), t["n"], t["m"], span,
                    out_edges)

    def cascade_round(self, candidates: DataFrame, n: int, span: Span | None, roots: Patched, in_edges: Patched,
                      out_edges: Patched) -> tuple[DataFrame, int, Span | None]:
        """One synchronous round of the cascade: the live, non-root candidates
        (within ``span``) without a live deriver of lower rank die; their
        successors are next."""
        self.work.rounds += 1
        asked = candidates.select("node").distinct()
        derivers = once(in_edges.join(asked.select(F.col("node").alias("dst")), ["dst"], span=span))
        # the ranks of candidates and derivers alike: one lookup in the live set
        known = once(self.live.ranks(asked.unionByName(derivers.select(F.col("src").alias("node")))))
        cand = asked.join(known, "node").join(roots.matching(asked, ["node"], span), "node", "left_anti")
        preds = once(cand.join(derivers.select(F.col("dst").alias("node"), "src"), "node", "left"))
        supported = preds.join(known.select(F.col("node").alias("src"), F.col("rank").alias("srank")), "src", "left")
        status = once(supported.groupBy("node").agg(
            F.count("src").alias("preds"),
            F.max(F.coalesce(F.col("srank") < F.col("rank"), F.lit(False))).alias("ok")))
        dying = status.where(~F.col("ok")).select("node")
        # the successors of the dead, by the same job (one job a round): the dead are
        # candidates, so the candidates' span bounds the read of the out-edges
        succ = once(out_edges.join(dying.select(F.col("node").alias("src")), ["src"], span=span)
                    .select(F.col("dst").alias("node")))
        anchored = self.anchored(dying, span)
        (t, _), (s, succ_span), (a, seg_span) = _measured(
            (status, None, {"candidates": F.count(F.lit(1)), "preds": F.sum("preds"),
                            "dying": _count_if(~F.col("ok"))}),
            (succ, F.col("node"), {"n": F.count(F.lit(1))}),
            (anchored, F.col("seg"), {"n": F.count(F.lit(1))}))
        self.work.elements_visited += t["candidates"]
        self.work.edges_scanned += t["preds"]
        k = t["dying"]
        if not k:
            return candidates, 0, None
        self.n_dead += k
        if self.n_dead >= self.limit:
            raise _TurnedLarge
        self.dead.append((dying, k))
        self.dead_preds.append(supported.where(F.col("src").isNotNull()).join(dying, "node", "left_semi")
                               .select("node", "src", "srank"))
        self.live.take_out(dying)
        self.work.edges_scanned += s["n"]
        if not a["n"]:
            return succ, s["n"], succ_span
        # the members after the dead in their segments die with them (their one deriver is
        # dead): found by one job, and their successors by another, instead of a round each
        gone, g, gone_span = _spanned(self.following(anchored, seg_span).select("node").distinct()
                                      .join(dying, "node", "left_anti"), F.col("node"), n=F.count(F.lit(1)))
        if not g["n"]:
            return succ, s["n"], succ_span
        self.n_dead += g["n"]
        if self.n_dead >= self.limit:
            raise _TurnedLarge
        self.dead.append((gone, g["n"]))
        self.live.take_out(gone)
        self.work.elements_visited += g["n"]
        after, s2, after_span = _spanned(
            out_edges.join(gone.select(F.col("node").alias("src")), ["src"], span=gone_span)
            .select(F.col("dst").alias("node")), F.col("node"), n=F.count(F.lit(1)))
        self.work.edges_scanned += s2["n"]
        return (succ.unionByName(after), s["n"] + s2["n"],
                _hull((succ_span, s["n"]), (after_span, s2["n"])))

    # --- expansion (FIX-ALG-EXPAND, corrected) ----------------------------------------

    def expand_additions(self, new_roots: DataFrame, n_nr: int, new_edges: DataFrame, n_ne: int,
                         spans: _BatchSpans, out_edges: Patched) -> None:
        """FIX-DEC-EXPAND-SEED: new roots not live at rank 0 (a live one is
        re-ranked 0), targets of new pairs out of live elements at 1 + its rank."""
        self.work.elements_visited += n_nr
        self.work.edges_scanned += n_ne
        if n_nr:
            reranked, t = _scratch(self.live.ranks(new_roots, span=spans.new_roots).where("rank != 0")
                                   .select("node", F.lit(0).cast("bigint").alias("rank")), n=F.count(F.lit(1)))
            if t["n"]:
                self.live.take_out(reranked)
                self.live.put(reranked)
                self.reranked = (reranked, t["n"])
        # the ranks of the new roots and of both ends of the new pairs: one lookup in the live set
        known = once(self.live.ranks(new_roots.unionByName(new_edges.select(F.col("src").alias("node")))
                                     .unionByName(new_edges.select(F.col("dst").alias("node"))), span=spans.gained))
        at_zero = new_roots.select("node", F.lit(0).cast("bigint").alias("rank"))
        from_live = (new_edges.join(known.select(F.col("node").alias("src"), F.col("rank").alias("srank")), "src")
                     .select(F.col("dst").alias("node"), (F.col("srank") + 1).alias("rank")))
        seeds = at_zero.unionByName(from_live).groupBy("node").agg(F.min("rank").alias("rank"))
        seeds, t, span = _spanned(seeds.join(known.select("node"), "node", "left_anti"), F.col("node"),
                                  n=F.count(F.lit(1)), m=F.min("rank"))
        self.expand(seeds, t["n"], t["m"], span, out_edges)

    def expand(self, pending: DataFrame, n: int, m: int, span: Span | None, out_edges: Patched) -> None:
        """Rounds in rank order, from ``pending`` (not live, one row per node,
        ``n`` rows, least rank ``m``, nodes within ``span``): settle every
        element of rank ``m``, offer ``m + 1`` to its successors that are not
        live; the segment members after a settled element settle with it, at
        its rank plus their distance (their one deriver decides them), and
        offer to their successors in turn."""
        while n:
            if n >= self.limit:  # every pending element is reachable: at least n to settle
                raise _TurnedLarge
            self.work.rounds += 1
            now = pending.where(F.col("rank") == m).select("node", "rank")
            self.settle(now)
            later = pending.where(F.col("rank") > m).select("node", "rank", F.lit(0).alias("hit"))
            anchored = self.anchored(now, span)
            settled_rank = m
            pending, t, span, a, seg_span = self.pending(later, self.offers(now, span, out_edges), anchored)
            n, m = t["n"], t["m"]
            if not a["n"]:
                continue
            ahead, k, ahead_span = _spanned(
                self.following(anchored, seg_span).groupBy("node").agg(
                    (F.min("offset") + settled_rank).alias("rank")).join(now, "node", "left_anti"),
                F.col("node"), n=F.count(F.lit(1)))
            if not k["n"]:
                continue
            if n + k["n"] >= self.limit:
                raise _TurnedLarge
            self.settle(ahead)
            again = pending.select("node", "rank", F.lit(0).alias("hit"))
            pending, t, span, _, _ = self.pending(again, self.offers(ahead, ahead_span, out_edges), None)
            n, m = t["n"], t["m"]

    def settle(self, ranked: DataFrame) -> None:
        self.live.put(ranked)
        self.settled.append(ranked)

    @staticmethod
    def offers(settled: DataFrame, span: Span | None, out_edges: Patched) -> DataFrame:
        """``(node, rank, hit)``: each successor of a settled element offered its rank + 1."""
        return (out_edges.join(settled.select(F.col("node").alias("src"), F.col("rank").alias("srank")), ["src"],
                               span=span)
                .select(F.col("dst").alias("node"), (F.col("srank") + 1).alias("rank"), F.lit(1).alias("hit")))

    def pending(self, later: DataFrame, offers: DataFrame, anchored: DataFrame | None) -> tuple[
            DataFrame, dict[str, int], Span | None, dict[str, int], Span | None]:
        """The elements still to settle (``later`` and the ``offers``, least rank
        each, live ones dropped), measured by one job: ``n``, least rank ``m``,
        edges ``scanned``, their span; and the count and segment span of ``anchored``."""
        grouped = once(later.unionByName(offers).groupBy("node").agg(F.min("rank").alias("rank"),
                                                                    F.sum("hit").alias("hits")))
        live = self.live.ranks(grouped).select("node", F.lit(True).alias("live"))
        marked = once(grouped.join(live, "node", "left"))
        measures: list[Measure] = [(marked, F.when(F.col("live").isNull(), F.col("node")),
                                    {"scanned": F.sum("hits"), "n": _count_if(F.col("live").isNull()),
                                     "m": F.min(F.when(F.col("live").isNull(), F.col("rank")))})]
        if anchored is not None:
            measures.append((anchored, F.col("seg"), {"n": F.count(F.lit(1))}))
        measured = _measured(*measures)
        (t, span), (a, seg_span) = measured[0], (measured[1] if anchored is not None else ({"n": 0}, None))
        self.work.edges_scanned += t["scanned"]
        return marked.where(F.col("live").isNull()).select("node", "rank"), t, span, a, seg_span

    # --- the new state and the output delta ----------------------------------------------

    def commit(self, changes: dict[str, tuple[DataFrame, int]]) -> tuple[KeyedTables, FixpointDelta]:
        """The output delta (one job: settled and dead elements side by side)
        and the new tables (written, not yet the engine's)."""
        e = self.engine
        dead = union_all([e._frame([], "node"), *(df for df, _ in self.dead)])
        settled = union_all([e._ranked(), *self.settled])
        sides = (settled.select("node", "rank", F.lit(1).alias("s"), F.lit(0).alias("d"))
                 .unionByName(dead.select("node", F.lit(None).cast("bigint").alias("rank"), F.lit(0).alias("s"),
                                          F.lit(1).alias("d")))
                 .groupBy("node").agg(F.max("rank").alias("rank"), F.max("s").alias("s"), F.max("d").alias("d")))
        both = once(sides)
        # and, by the same job, how many index rows the batch marked (most batches name no member)
        marked = [] if self.marked is None else [(self.marked, None, {"n": F.count(F.lit(1))})]
        (t, _), *counted = _measured(
            (both, None, {"settled": F.sum("s"), "added": _count_if((F.col("s") == 1) & (F.col("d") == 0)),
                          "removed": _count_if((F.col("s") == 0) & (F.col("d") == 1))}), *marked)
        self.work.elements_visited += t["settled"]
        # settled elements were not live, or were dead and re-derived (FIX-DEC-BATCH's exact delta)
        added = both.where("s = 1 and d = 0").select("node")
        removed = both.where("s = 0 and d = 1").select("node")
        rows = t["settled"] + t["removed"]
        live = both.select("node", "rank", (F.col("s") == 1).alias("present"))
        if self.reranked is not None:  # its rank 0 overrides a re-derivation's rank
            reranked, k = self.reranked
            live = (live.join(_small(reranked.select("node")), "node", "left_anti")
                    .unionByName(reranked.select("node", "rank", F.lit(True).alias("present"))))
            rows += k
        changes["live"] = (live, rows)
        if self.marked is not None and counted[0][0]["n"]:
            changes["segments"] = (self.marked.withColumn("present", F.lit(True)), counted[0][0]["n"])
        state = self.state.with_changes(changes)
        return state, FixpointDelta(added, removed, t["added"], t["removed"], self.work)
