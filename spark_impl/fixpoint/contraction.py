"""Contraction (FIX-ALG-CONTRACT, corrected) on Spark, in the reference's names
(``reference/fixpoint/algorithms.py``: ``cascade``, ``dying``, ``worklist``,
``rederive_frontier``).

Phase 1, the cascade, runs in synchronous rounds: the worklist's live,
non-root elements without a live deriver of lower rank die, and their
successors are the next round's worklist. Its result is the worklist
cascade's: under the rank invariant an element's fate depends only on elements
of lower rank, so the order of examination does not matter (FIX-DEC-GAP). The
members after a dying element in its segment (:mod:`spark_impl.fixpoint.segments`)
die with it, their one deriver dead, found by one more job (their successors by
another) instead of a round each.

Phase 2, re-derivation (FIX-DEC-REDERIVE-RANK): a dying element with a
surviving deriver comes back at 1 + the least rank of its surviving derivers;
those are the frontier of an expansion (:mod:`spark_impl.fixpoint.expansion`).
"""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from spark_impl.fixpoint.expansion import Expansion
from spark_impl.fixpoint.update import TurnedLarge, Update, count_if, hull, measured, small, spanned
from spark_impl.storage.frames import union_coalesced
from spark_impl.storage.keyed_tables import Patched, Span
from spark_impl.storage.scratch import once


class Contraction:
    """The contraction of one update: the elements its cascade killed, and their derivers."""

    def __init__(self, update: Update, expansion: Expansion) -> None:
        self.update = update
        self.expansion = expansion  # re-derivation's
        self.dying: list[tuple[DataFrame, int]] = []  # the cascade's dead, per round, with their number
        self.n_dying = 0
        self.dying_derivers: list[DataFrame] = []  # their in-edges, (node, src, srank), per round

    def contract(self, gone_roots: DataFrame, n_gone_roots: int, gone_edges: DataFrame, n_gone_edges: int,
                 span: Span | None, roots: Patched, out_edges: Patched, in_edges: Patched) -> None:
        """Phase 1, the cascade with the stored (possibly stale) ranks; phase 2,
        re-derivation and its expansion; all under the reduced configuration
        (``roots``, ``out_edges``, ``in_edges`` without the batch's removals).
        ``span`` holds the nodes losing support."""
        work = self.update.work
        # lost support: removed roots; targets of removed pairs (a target whose
        # deriver was not live, or that is not live, is examined and survives or is skipped)
        work.elements_visited += n_gone_roots
        work.edges_scanned += n_gone_edges
        worklist = once(gone_roots.unionByName(gone_edges.select(F.col("dst").alias("node"))))
        n = n_gone_roots + n_gone_edges
        while n:
            if n >= self.update.limit:  # a round over as many elements as a recompute's share: recompute
                raise TurnedLarge
            worklist, n, span = self.cascade_round(worklist, n, span, roots, in_edges, out_edges)
        if not self.dying:
            return
        frontier, n, least_rank, span = self.rederive_frontier()
        self.expansion.expand(frontier, n, least_rank, span, out_edges)

    def cascade_round(self, worklist: DataFrame, n: int, span: Span | None, roots: Patched, in_edges: Patched,
                      out_edges: Patched) -> tuple[DataFrame, int, Span | None]:
        """One synchronous round of the cascade: the live, non-root elements of
        the worklist (within ``span``) without a live deriver of lower rank die;
        their successors are the next worklist, with its size and span."""
        update, work = self.update, self.update.work
        work.rounds += 1
        asked = worklist.select("node").distinct()
        derivers = once(in_edges.join(asked.select(F.col("node").alias("dst")), ["dst"], span=span))
        # the ranks of the worklist and of its derivers alike: one lookup in the live set
        known = once(update.live.ranks(asked.unionByName(derivers.select(F.col("src").alias("node")))))
        examined = asked.join(known, "node").join(roots.matching(asked, ["node"], span), "node", "left_anti")
        preds = once(examined.join(derivers.select(F.col("dst").alias("node"), "src"), "node", "left"))
        supported = preds.join(known.select(F.col("node").alias("src"), F.col("rank").alias("srank")), "src", "left")
        status = once(supported.groupBy("node").agg(
            F.count("src").alias("preds"),
            F.max(F.coalesce(F.col("srank") < F.col("rank"), F.lit(False))).alias("ok")))
        dying = status.where(~F.col("ok")).select("node")
        # the successors of the dying, by the same job (one job a round): the dying are in
        # the worklist, so its span bounds the read of the out-edges
        successors = once(out_edges.join(dying.select(F.col("node").alias("src")), ["src"], span=span)
                          .select(F.col("dst").alias("node")))
        anchored = update.anchored(dying, span)
        (round_counts, _), (succ, succ_span), (anchors, seg_span) = measured(
            (status, None, {"candidates": F.count(F.lit(1)), "preds": F.sum("preds"),
                            "dying": count_if(~F.col("ok"))}),
            (successors, F.col("node"), {"n": F.count(F.lit(1))}),
            (anchored, F.col("seg"), {"n": F.count(F.lit(1))}))
        work.elements_visited += round_counts["candidates"]
        work.edges_scanned += round_counts["preds"]
        n_dying = round_counts["dying"]
        if not n_dying:
            return worklist, 0, None
        self.died(dying, n_dying)
        self.dying_derivers.append(supported.where(F.col("src").isNotNull()).join(dying, "node", "left_semi")
                                   .select("node", "src", "srank"))
        work.edges_scanned += succ["n"]
        if not anchors["n"]:
            return successors, succ["n"], succ_span
        # the members after the dying in their segments die with them (their one deriver is
        # dying): found by one job, and their successors by another, instead of a round each
        followers, f, followers_span = spanned(update.following(anchored, seg_span).select("node").distinct()
                                               .join(dying, "node", "left_anti"), F.col("node"), n=F.count(F.lit(1)))
        if not f["n"]:
            return successors, succ["n"], succ_span
        self.died(followers, f["n"])
        work.elements_visited += f["n"]
        after, after_succ, after_span = spanned(
            out_edges.join(followers.select(F.col("node").alias("src")), ["src"], span=followers_span)
            .select(F.col("dst").alias("node")), F.col("node"), n=F.count(F.lit(1)))
        work.edges_scanned += after_succ["n"]
        return (successors.unionByName(after), succ["n"] + after_succ["n"],
                hull((succ_span, succ["n"]), (after_span, after_succ["n"])))

    def died(self, nodes: DataFrame, n: int) -> None:
        """``n`` more dying ``nodes``, taken out of the live set (or the update
        abandoned, past the bulk threshold)."""
        self.n_dying += n
        if self.n_dying >= self.update.limit:
            raise TurnedLarge
        self.dying.append((nodes, n))
        self.update.live.take_out(nodes)

    def rederive_frontier(self) -> tuple[DataFrame, int, int, Span | None]:
        """Phase 2's frontier (FIX-DEC-REDERIVE-RANK): each dying element with a
        surviving deriver, at 1 + the least rank of its surviving derivers; with
        their number, least rank and span (one job). The in-edges of the dying,
        and their sources' ranks, were read by the rounds that killed them;
        contraction changes no rank, so a source's rank then is its rank now,
        unless it died since (no live-set lookup)."""
        work = self.update.work
        work.rounds += 1
        # coalesced: a cascade leaves a frame per round, and their partitions together grow with it
        dying = union_coalesced([df for df, _ in self.dying]).select(F.col("node").alias("src"),
                                                                     F.lit(True).alias("gone"))
        ranked = (union_coalesced(self.dying_derivers).join(small(dying), "src", "left")
                  .select(F.col("node").alias("dst"), "src",
                          F.when(F.col("gone").isNull(), F.col("srank")).alias("srank")))
        frontier, t, span = spanned(
            ranked.groupBy(F.col("dst").alias("node")).agg((F.min("srank") + 1).alias("rank"),
                                                           F.count(F.lit(1)).alias("scanned")),
            F.when(F.col("rank").isNotNull(), F.col("node")), scanned=F.sum("scanned"), n=F.count("rank"),
            m=F.min("rank"))
        work.elements_visited += self.n_dying
        work.edges_scanned += t["scanned"]
        return frontier.where(F.col("rank").isNotNull()).select("node", "rank"), t["n"], t["m"], span
