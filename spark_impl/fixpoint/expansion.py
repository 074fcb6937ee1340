"""Expansion (FIX-ALG-EXPAND, corrected) on Spark, in the reference's names
(``reference/fixpoint/algorithms.py``: ``rerank_new_base``, ``expansion_frontier``,
``expand``).

The frontier is a DataFrame of ``(node, rank)``, tentative ranks of elements not
live. Expansion settles elements in rank order, one rank per round: a round
settles every frontier element of the least rank and offers ``rank + 1`` to
their successors that are not live, which is the reference's priority-queue
order, so ranks agree with it exactly. A segment's members
(:mod:`spark_impl.fixpoint.segments`) settle with their anchor at its rank plus
their distance, the rank their one deriver gives them, found by one more job
instead of a round each. Re-derivation (contraction's phase 2) expands from its
own frontier with the same rounds.
"""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from spark_impl.fixpoint.update import (
    Measure,
    TurnedLarge,
    Update,
    count_if,
    measured,
    once_measured,
    spanned,
)
from spark_impl.storage.keyed_tables import Patched, Span
from spark_impl.storage.scratch import once


class Expansion:
    """The expansions of one update: what they settled, and the live elements the
    batch made roots (re-ranked 0)."""

    def __init__(self, update: Update) -> None:
        self.update = update
        self.settled: list[DataFrame] = []  # (node, rank) settled by the expansions
        self.reranked: tuple[DataFrame, int] | None = None  # live elements that became roots: (node, 0)

    def expansion_phase(self, new_roots: DataFrame, n_new_roots: int, new_edges: DataFrame, n_new_edges: int,
                        new_roots_span: Span | None, named_span: Span | None, out_edges: Patched) -> None:
        """The expansion of the batch's additions: new roots ranked 0, the
        frontier of FIX-DEC-EXPAND-SEED, then FIX-ALG-EXPAND. ``named_span``
        holds the new roots and both ends of the new edges."""
        work = self.update.work
        work.elements_visited += n_new_roots
        work.edges_scanned += n_new_edges
        if n_new_roots:
            self.rerank_new_roots(new_roots, new_roots_span)
        frontier, n, least_rank, span = self.expansion_frontier(new_roots, new_edges, named_span)
        self.expand(frontier, n, least_rank, span, out_edges)

    def rerank_new_roots(self, new_roots: DataFrame, span: Span | None) -> None:
        """A live element that becomes a root gets rank 0 (clause I2 of
        FIX-DEC-RANK-INVARIANT; lowering a rank never breaks clause I3)."""
        live = self.update.live
        lowered, t = once_measured(live.ranks(new_roots, span=span).where("rank != 0")
                                   .select("node", F.lit(0).cast("bigint").alias("rank")), n=F.count(F.lit(1)))
        if t["n"]:
            live.take_out(lowered)
            live.put(lowered)
            self.reranked = (lowered, t["n"])

    def expansion_frontier(self, new_roots: DataFrame, new_edges: DataFrame,
                           span: Span | None) -> tuple[DataFrame, int, int, Span | None]:
        """FIX-DEC-EXPAND-SEED: new roots not live at rank 0, targets of new
        pairs out of live elements at 1 + its rank (least over such pairs),
        those not live; with their number, least rank and span (one job)."""
        # the ranks of the new roots and of both ends of the new pairs: one lookup in the live set
        known = once(self.update.live.ranks(new_roots.unionByName(new_edges.select(F.col("src").alias("node")))
                                            .unionByName(new_edges.select(F.col("dst").alias("node"))), span=span))
        at_zero = new_roots.select("node", F.lit(0).cast("bigint").alias("rank"))
        from_live = (new_edges.join(known.select(F.col("node").alias("src"), F.col("rank").alias("srank")), "src")
                     .select(F.col("dst").alias("node"), (F.col("srank") + 1).alias("rank")))
        seeds = at_zero.unionByName(from_live).groupBy("node").agg(F.min("rank").alias("rank"))
        frontier, t, frontier_span = spanned(seeds.join(known.select("node"), "node", "left_anti"), F.col("node"),
                                             n=F.count(F.lit(1)), m=F.min("rank"))
        return frontier, t["n"], t["m"], frontier_span

    def expand(self, frontier: DataFrame, n: int, least_rank: int, span: Span | None, out_edges: Patched) -> None:
        """Rounds in rank order, from ``frontier`` (not live, one row per node,
        ``n`` rows, least rank ``least_rank``, nodes within ``span``): settle
        every element of the least rank, offer that rank + 1 to its successors
        that are not live; the segment members after a settled element settle
        with it, at its rank plus their distance (their one deriver decides
        them), and offer to their successors in turn."""
        update = self.update
        while n:
            if n >= update.limit:  # every frontier element is reachable: at least n to settle
                raise TurnedLarge
            update.work.rounds += 1
            settling = frontier.where(F.col("rank") == least_rank).select("node", "rank")
            self.settle(settling)
            waiting = frontier.where(F.col("rank") > least_rank).select("node", "rank", F.lit(0).alias("hit"))
            anchored = update.anchored(settling, span)
            settled_rank = least_rank
            frontier, t, span, anchors, seg_span = self.next_frontier(
                waiting, self.offers(settling, span, out_edges), anchored)
            n, least_rank = t["n"], t["m"]
            if not anchors["n"]:
                continue
            followers, f, followers_span = spanned(
                update.following(anchored, seg_span).groupBy("node").agg(
                    (F.min("offset") + settled_rank).alias("rank")).join(settling, "node", "left_anti"),
                F.col("node"), n=F.count(F.lit(1)))
            if not f["n"]:
                continue
            if n + f["n"] >= update.limit:
                raise TurnedLarge
            self.settle(followers)
            again = frontier.select("node", "rank", F.lit(0).alias("hit"))
            frontier, t, span, _, _ = self.next_frontier(again, self.offers(followers, followers_span, out_edges),
                                                         None)
            n, least_rank = t["n"], t["m"]

    def settle(self, ranked: DataFrame) -> None:
        self.update.live.put(ranked)
        self.settled.append(ranked)

    @staticmethod
    def offers(settled: DataFrame, span: Span | None, out_edges: Patched) -> DataFrame:
        """``(node, rank, hit)``: each successor of a settled element offered its rank + 1."""
        return (out_edges.join(settled.select(F.col("node").alias("src"), F.col("rank").alias("srank")), ["src"],
                               span=span)
                .select(F.col("dst").alias("node"), (F.col("srank") + 1).alias("rank"), F.lit(1).alias("hit")))

    def next_frontier(self, waiting: DataFrame, offers: DataFrame, anchored: DataFrame | None) -> tuple[
            DataFrame, dict[str, int], Span | None, dict[str, int], Span | None]:
        """The elements still to settle (``waiting`` and the ``offers``, least
        rank each, live ones dropped), measured by one job: ``n``, least rank
        ``m``, edges ``scanned``, their span; and the count and segment span of
        ``anchored``."""
        grouped = once(waiting.unionByName(offers).groupBy("node").agg(F.min("rank").alias("rank"),
                                                                      F.sum("hit").alias("hits")))
        live = self.update.live.ranks(grouped).select("node", F.lit(True).alias("live"))
        marked = once(grouped.join(live, "node", "left"))
        measures: list[Measure] = [(marked, F.when(F.col("live").isNull(), F.col("node")),
                                    {"scanned": F.sum("hits"), "n": count_if(F.col("live").isNull()),
                                     "m": F.min(F.when(F.col("live").isNull(), F.col("rank")))})]
        if anchored is not None:
            measures.append((anchored, F.col("seg"), {"n": F.count(F.lit(1))}))
        counted = measured(*measures)
        (t, span), (anchors, seg_span) = counted[0], (counted[1] if anchored is not None else ({"n": 0}, None))
        self.update.work.edges_scanned += t["scanned"]
        return marked.where(F.col("live").isNull()).select("node", "rank"), t, span, anchors, seg_span
