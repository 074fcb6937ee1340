"""The managed incremental fixpoint on Spark: reachability from roots along edges.

The live set ``lfp(F)``, ``F(S) = roots ∪ {y | x ∈ S, (x, y) ∈ edges}``, is
maintained under batches of changes (FIX-DEC-BATCH: net removals by
contraction, then net additions by expansion), with the reference's two
corrections of the printed pseudo-code: the expansion frontier is
``F'(current) \\ current`` (FIX-DEC-EXPAND-SEED), and an added element gets
``1 + min rank of its live derivers`` (FIX-DEC-REDERIVE-RANK), so the rank
invariant holds after every operation (base elements rank 0, every other live
element has a live deriver of strictly lower rank).

State, in Spark (:class:`~spark_impl.state.ZSetTable`: a checkpointed base plus
small pending deltas, so an update writes in proportion to the change):
``roots (node)``, ``edges (src, dst)``, ``live (node, rank)``.

Two regimes, by frontier size:

* *from scratch* (``make``) the frontier is large: semi-naive BFS rounds as
  DataFrame joins, ``next = succ(frontier) \\ live`` (only the frontier joins
  the edges, FIX-DEF-6), each round materialised with ``localCheckpoint``
  (without it the plan grows ~3x per round; see docs/ARCHITECTURE.md), the edges hash
  partitioned by source once so a round shuffles only the frontier;
* *incremental* (``apply``) the frontier is small: each round is one Spark
  job that broadcasts the frontier against the edges and the live set and
  brings back, per frontier element, its rank, whether it is a root, and its
  predecessors and successors with their ranks; the round's decisions (who
  dies in the well-founded cascade, FIX-DEF-7; who is settled by expansion)
  are taken on those few rows. A frontier that grows past
  ``DRIVER_FRONTIER`` elements falls back to the DataFrame rounds.

Spark has no index, so every round scans the edges and the live set once
(broadcast hash join, no shuffle); the rows it *returns*, and everything the
update writes, are proportional to the frontier.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from spark_impl.state import ZSetTable, consolidate_rows, materialise, union_all

Node = Hashable
Edge = tuple[Any, Any]

#: incremental frontiers up to this size are decided in the driver, one job per round
DRIVER_FRONTIER = 50_000
#: DataFrame-round frontiers up to this many rows are broadcast against the big tables
BROADCAST_ROWS = 200_000


@dataclass
class Work:
    """What an update touched: frontier/worklist elements, edge rows read, rounds (jobs).

    ``edges_scanned`` counts the edge rows the update examines (the predecessors
    and successors a fetch brings back, or the frontier's offers in a DataFrame
    round); the scan Spark runs behind each fetch reads the whole edge table
    (no index) and is not counted here: ``rounds`` counts those jobs.
    """

    elements_visited: int = 0
    edges_scanned: int = 0
    rounds: int = 0

    def as_mapping(self) -> dict[str, int]:
        return {"elements_visited": self.elements_visited, "edges_scanned": self.edges_scanned,
                "rounds": self.rounds}


@dataclass
class FixpointDelta:
    """The output delta of an update: lfp(F') \\ lfp(F) and lfp(F) \\ lfp(F')."""

    added: set[Any]
    removed: set[Any]
    work: Work = field(default_factory=Work)


@dataclass
class NodeInfo:
    """One frontier element as the live set and the edges see it (stored ranks)."""

    rank: int | None = None  # None: not live
    is_root: bool = False
    preds: list[tuple[Any, int | None]] = field(default_factory=list)  # (src, rank of src)
    succs: list[tuple[Any, int | None]] = field(default_factory=list)  # (dst, rank of dst)


class IncrementalReachability:
    """Reachability from ``roots`` along ``edges``, maintained under batched changes."""

    def __init__(self, spark: SparkSession, node_type: str = "string") -> None:
        self.spark = spark
        self.node_type = node_type
        self.roots = ZSetTable(self._frame([], "node"), ["node"], 0)
        self.edges = ZSetTable(self._frame([], "src", "dst"), ["src", "dst"], 0)
        self.live = ZSetTable(self._ranked([]), ["node", "rank"], 0)

    # --- frames ------------------------------------------------------------------

    def _frame(self, rows: Sequence[tuple[Any, ...]], *columns: str) -> DataFrame:
        schema = ", ".join(f"{c} {self.node_type}" for c in columns)
        return self.spark.createDataFrame(list(rows), f"{schema}, w bigint")

    def _ranked(self, rows: Sequence[tuple[Any, int, int]]) -> DataFrame:
        return self.spark.createDataFrame(list(rows), f"node {self.node_type}, rank bigint, w bigint")

    def _nodes(self, nodes: Iterable[Any]) -> DataFrame:
        return self.spark.createDataFrame([(n,) for n in nodes], f"node {self.node_type}")

    # --- observations ------------------------------------------------------------

    def current(self) -> DataFrame:
        """The live set with ranks: ``(node, rank)``."""
        return self.live.all().where(F.col("w") > 0).select("node", "rank")

    # --- make: BFS rounds as DataFrame joins ----------------------------------------

    def make(self, roots: DataFrame, edges: DataFrame) -> tuple[DataFrame, Work]:
        """The fixpoint of ``roots (node)`` and ``edges (src, dst)`` from scratch;
        returns the live set ``(node, rank)`` (exact BFS distances) and the work."""
        partitions = int(self.spark.conf.get("spark.sql.shuffle.partitions") or "2")
        root_rows = materialise(roots.select("node").distinct().withColumn("w", F.lit(1)))
        edge_rows = materialise(edges.select("src", "dst").distinct()
                                .repartition(partitions, "src").withColumn("w", F.lit(1)))
        self.roots = ZSetTable(root_rows, ["node"], root_rows.count())
        self.edges = ZSetTable(edge_rows, ["src", "dst"], edge_rows.count())
        self.live = ZSetTable(self._ranked([]), ["node", "rank"], 0)
        work = Work()
        frontier = root_rows.select("node", F.lit(0).cast("bigint").alias("rank"))
        settled: list[DataFrame] = []
        frontier, n = _sized(frontier)
        while n:
            work.rounds += 1
            work.elements_visited += n
            settled.append(frontier)
            live = union_all(settled)
            probe = F.broadcast(frontier) if n <= BROADCAST_ROWS else frontier
            offered = (edge_rows.join(probe.select(F.col("node").alias("src"), "rank"), "src")
                       .groupBy(F.col("dst").alias("node")).agg((F.min("rank") + 1).alias("rank")))
            frontier, n = _sized(offered.join(live.select("node"), "node", "left_anti"))
        result = materialise(union_all([self._ranked([]).select("node", "rank"), *settled]))
        self.live = ZSetTable(result.withColumn("w", F.lit(1)), ["node", "rank"], result.count())
        return result, work

    # --- apply: small frontiers decided in the driver -----------------------------------

    def fetch(self, nodes: Iterable[Any]) -> dict[Any, NodeInfo]:
        """Rank, root flag, predecessors and successors (with their ranks) of each
        of ``nodes``, as stored: two single-stage Spark jobs (``isin`` filters on
        every part of the tables, consolidated here), no shuffle, no broadcast."""
        probe = list(set(nodes))
        touching = (F.col("src").isin(probe) | F.col("dst").isin(probe))
        tagged = union_all([
            self.edges.matching(touching).select(F.lit("E").alias("tag"), "src", "dst", "w"),
            self.roots.matching(F.col("node").isin(probe))
            .select(F.lit("R").alias("tag"), F.col("node").alias("src"), F.col("node").alias("dst"), "w"),
        ]).collect()
        edges = consolidate_rows([r for r in tagged if r["tag"] == "E"], ["src", "dst"])
        roots = consolidate_rows([r for r in tagged if r["tag"] == "R"], ["src"])
        around = set(probe) | {u for u, _ in edges} | {v for _, v in edges}
        live = consolidate_rows(self.live.matching(F.col("node").isin(list(around))).collect(),
                                ["node", "rank"])
        rank = {node: r for (node, r), w in live.items() if w > 0}
        info = {n: NodeInfo(rank.get(n), (n,) in roots) for n in probe}
        for (u, v), w in edges.items():
            if w <= 0:
                continue
            if v in info:
                info[v].preds.append((u, rank.get(u)))
            if u in info:
                info[u].succs.append((v, rank.get(v)))
        return info

    def apply(self, add_roots: Sequence[Any] = (), remove_roots: Sequence[Any] = (),
              add_edges: Sequence[Edge] = (), remove_edges: Sequence[Edge] = ()) -> FixpointDelta:
        """One batch (FIX-DEC-BATCH): ``roots' = (roots \\ remove) ∪ add``, likewise edges."""
        return _Update(self, Work()).run(list(dict.fromkeys(add_roots)), list(dict.fromkeys(remove_roots)),
                                         list(dict.fromkeys(add_edges)), list(dict.fromkeys(remove_edges)))


def _sized(df: DataFrame) -> tuple[DataFrame, int]:
    out = materialise(df)
    return out, out.count()


class _Update:
    """One ``apply``: the driver's view of the touched elements, written back at the end.

    ``initial`` holds the rank each touched element had when the update began
    (None: not live), ``stored`` what the live table holds now, ``ranks`` the
    update's overlay on it. ``info`` caches what
    :meth:`IncrementalReachability.fetch` returned. Edges and roots are written
    to Spark *before* the phase that needs them, so a fresh fetch sees the
    phase's configuration.
    """

    def __init__(self, engine: IncrementalReachability, work: Work) -> None:
        self.engine = engine
        self.work = work
        self.info: dict[Any, NodeInfo] = {}
        self.initial: dict[Any, int | None] = {}
        self.stored: dict[Any, int | None] = {}
        self.ranks: dict[Any, int | None] = {}

    def _note(self, node: Any, rank: int | None) -> None:
        self.initial.setdefault(node, rank)
        self.stored.setdefault(node, rank)

    def _fetch(self, nodes: Iterable[Any], fresh: bool = False) -> None:
        missing = {n for n in nodes if fresh or n not in self.info}
        if not missing:
            return
        self.work.rounds += 1
        self.work.elements_visited += len(missing)
        fetched = self.engine.fetch(missing)
        for n, entry in fetched.items():
            self.work.edges_scanned += len(entry.preds) + len(entry.succs)
            self._note(n, entry.rank)
            for other, r in (*entry.preds, *entry.succs):
                self._note(other, r)
        self.info.update(fetched)

    def rank(self, node: Any) -> int | None:
        """The element's rank as the update stands (None: not live)."""
        if node in self.ranks:
            return self.ranks[node]
        if node not in self.stored:
            self._fetch([node])
        return self.stored[node]

    def run(self, add_roots: list[Any], remove_roots: list[Any],
            add_edges: list[Edge], remove_edges: list[Edge]) -> FixpointDelta:
        e = self.engine
        present_roots, present_edges = self._present(add_roots + remove_roots, add_edges + remove_edges)
        adding_roots, adding_edges = set(add_roots), set(add_edges)
        gone_roots = [r for r in remove_roots if r in present_roots and r not in adding_roots]
        gone_edges = [x for x in remove_edges if x in present_edges and x not in adding_edges]
        new_roots = [r for r in add_roots if r not in present_roots]
        new_edges = [x for x in add_edges if x not in present_edges]
        if gone_roots or gone_edges:
            e.roots.add(e._frame([(r, -1) for r in gone_roots], "node"), len(gone_roots))
            e.edges.add(e._frame([(u, v, -1) for u, v in gone_edges], "src", "dst"), len(gone_edges))
            self._contract(gone_roots, gone_edges)
        if new_roots or new_edges:
            e.roots.add(e._frame([(r, 1) for r in new_roots], "node"), len(new_roots))
            e.edges.add(e._frame([(u, v, 1) for u, v in new_edges], "src", "dst"), len(new_edges))
            self._expand(self._seeds(new_roots, new_edges))
        self._write_live()
        added = {x for x, r in self.stored.items() if r is not None and self.initial[x] is None}
        removed = {x for x, r in self.stored.items() if r is None and self.initial[x] is not None}
        return FixpointDelta(added, removed, self.work)

    def _present(self, roots: list[Any], edges: list[Edge]) -> tuple[set[Any], set[Edge]]:
        """Which of the change's roots and edges exist (one job, which also
        fetches the live status and neighbourhoods of their endpoints)."""
        self._fetch({u for u, _ in edges} | {v for _, v in edges} | set(roots))
        present_roots = {r for r in roots if self.info[r].is_root}
        present_edges = {(u, v) for u, v in edges if any(s == v for s, _ in self.info[u].succs)}
        return present_roots, present_edges

    # --- contraction (FIX-ALG-CONTRACT, corrected) -----------------------------------

    def _contract(self, gone_roots: list[Any], gone_edges: list[Edge]) -> None:
        """Phase 1, the well-founded cascade (stored, possibly stale ranks), then phase 2."""
        worklist = {r for r in gone_roots if self.rank(r) is not None}
        worklist |= {v for u, v in gone_edges if self.rank(u) is not None and self.rank(v) is not None}
        dying: set[Any] = set()
        while worklist:
            self._fetch(worklist, fresh=True)  # neighbourhoods under the reduced configuration
            following: set[Any] = set()
            for x in worklist:
                entry = self.info[x]
                rx = entry.rank
                if x in dying or rx is None or entry.is_root:
                    continue
                if not any(r is not None and y not in dying and r < rx for y, r in entry.preds):
                    dying.add(x)
                    following |= {z for z, r in entry.succs if r is not None}
            worklist = following - dying
        for x in dying:
            self.ranks[x] = None
        # Phase 2 (FIX-DEC-REDERIVE-RANK): a dead element with a surviving
        # deriver comes back at 1 + the least rank of its surviving derivers.
        frontier: dict[Any, int] = {}
        for y in dying:
            offers = [r + 1 for x, r in self.info[y].preds if r is not None and x not in dying]
            if offers:
                frontier[y] = min(offers)
        self._expand(frontier)

    # --- expansion (FIX-ALG-EXPAND, corrected) ----------------------------------------

    def _seeds(self, new_roots: list[Any], new_edges: list[Edge]) -> dict[Any, int]:
        """FIX-DEC-EXPAND-SEED; a live element that becomes a root is re-ranked 0."""
        seeds: dict[Any, int] = {}
        for r in new_roots:
            if self.rank(r) is None:
                seeds[r] = 0
            elif self.rank(r) != 0:
                self.ranks[r] = 0
        for u, v in new_edges:
            ru = self.rank(u)
            if ru is not None and self.rank(v) is None:
                seeds[v] = min(seeds.get(v, ru + 1), ru + 1)
        return seeds

    def _expand(self, frontier: dict[Any, int]) -> None:
        """Rounds of BFS; each element settled takes the least rank offered in its round."""
        while frontier:
            if len(frontier) > DRIVER_FRONTIER:
                self._expand_in_spark(frontier)
                return
            for x, r in frontier.items():
                self.ranks[x] = r
            self._fetch(frontier, fresh=True)
            following: dict[Any, int] = {}
            for x, r in frontier.items():
                for y, _ in self.info[x].succs:
                    if self.rank(y) is None:
                        following[y] = min(following.get(y, r + 1), r + 1)
            frontier = following

    def _expand_in_spark(self, frontier: dict[Any, int]) -> None:
        """A frontier too big for the driver: write the overlay, go on in DataFrame rounds."""
        e = self.engine
        self._write_live()
        rows = e.spark.createDataFrame(list(frontier.items()), f"node {e.node_type}, rank bigint")
        frontier_df, n = _sized(rows.join(e.current(), "node", "left_anti"))
        while n:
            self.work.rounds += 1
            self.work.elements_visited += n
            for node, rank in frontier_df.collect():
                self._note(node, None)
                self.stored[node] = self.ranks[node] = int(rank)
            e.live.add(frontier_df.withColumn("w", F.lit(1)), n)
            edges = e.edges.all().where(F.col("w") > 0)
            probe = F.broadcast(frontier_df) if n <= BROADCAST_ROWS else frontier_df
            offered = (edges.join(probe.select(F.col("node").alias("src"), "rank"), "src")
                       .groupBy(F.col("dst").alias("node")).agg((F.min("rank") + 1).alias("rank")))
            frontier_df, n = _sized(offered.join(e.current(), "node", "left_anti"))

    def _write_live(self) -> None:
        """Write the overlay to the live table (rows -old, +new) and fold it into ``stored``."""
        rows: list[tuple[Any, int, int]] = []
        for x, r in self.ranks.items():
            was = self.stored.get(x)
            if was == r:
                continue
            if was is not None:
                rows.append((x, was, -1))
            if r is not None:
                rows.append((x, r, 1))
            self.stored[x] = r
        self.ranks.clear()
        if rows:
            self.engine.live.add(self.engine._ranked(rows), len(rows))
