"""One incremental batch (§3.1.4 ``applyDelta``, as ``reference/fixpoint/algorithms.py``
``apply_delta``): contraction for the net removals under the reduced configuration,
then expansion for the net additions (FIX-DEC-BATCH's order), then the new tables
and the output delta.

Before the rounds, the batch's net change as far as it needs the stored tables
(:func:`net_change`) and the segments as it leaves them (:func:`mark`). After
them, one job computes the output delta and the new tables are written
(:func:`commit`): they are not yet the engine's, which swaps them in once the
whole update has succeeded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from spark_impl.fixpoint import segments
from spark_impl.fixpoint.contraction import Contraction
from spark_impl.fixpoint.expansion import Expansion
from spark_impl.fixpoint.update import (
    FixpointDelta,
    Update,
    count_if,
    measured,
    once_measured,
    small,
)
from spark_impl.storage.frames import union_coalesced
from spark_impl.storage.keyed_tables import KeyedTables, Patched, Span
from spark_impl.storage.scratch import once

#: a batch row's kinds: a root or an edge, added or removed
KINDS = ("R+", "R-", "E+", "E-")


def net_rows(edits: DataFrame) -> DataFrame:
    """The rows ``(kind, src, dst)`` of ``edits`` once each, but a removal the batch also adds
    (a no-op, FIX-DEC-BATCH) left out."""
    rows = edits.select("kind", "src", "dst").distinct().withColumn("t", F.substring("kind", 1, 1))
    adding = rows.where(F.col("kind").endswith("+"))
    removing = rows.where(F.col("kind").endswith("-")).join(adding.select("t", "src", "dst"),
                                                             ["t", "src", "dst"], "left_anti")
    return adding.unionByName(removing).select("kind", "src", "dst")


@dataclass(frozen=True)
class BatchSpans:
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
    def of(cls, rows: Sequence[tuple[str, Any, Any]]) -> BatchSpans:
        before = [v for kind, _, v in rows if kind in ("E+", "E-", "R+")]
        after = [u for kind, u, _ in rows if kind == "E+"]
        return cls(roots=Span.of([r for kind, r, _ in rows if kind in ("R+", "R-")]),
                   new_roots=Span.of([r for kind, r, _ in rows if kind == "R+"]),
                   lost=Span.of([v for kind, _, v in rows if kind in ("R-", "E-")]),
                   gained=Span.of([n for kind, u, v in rows if kind in ("R+", "E+") for n in (u, v)]),
                   marked_before=Span.of(before), marked_after=Span.of(after), n_marked=len(before) + len(after))

    @classmethod
    def measured(cls, batch: DataFrame) -> tuple[dict[str, int], BatchSpans]:
        """The rows of each kind and the spans of a batch that stays a DataFrame, by one job
        (one row back): :meth:`of` without the rows."""
        kind, src, dst = F.col("kind"), F.col("src"), F.col("dst")

        def ends(name: str, kinds: tuple[str, ...], *nodes: Column) -> list[Column]:
            among = kind.isin(*kinds)
            lows = [F.min(F.when(among, n)) for n in nodes]
            highs = [F.max(F.when(among, n)) for n in nodes]
            return [(F.least(*lows) if len(lows) > 1 else lows[0]).alias(f"{name} low"),
                    (F.greatest(*highs) if len(highs) > 1 else highs[0]).alias(f"{name} high")]

        spans: dict[str, tuple[tuple[str, ...], list[Column]]] = {
            "roots": (("R+", "R-"), [src]), "new_roots": (("R+",), [src]), "lost": (("R-", "E-"), [dst]),
            "gained": (("R+", "E+"), [src, dst]), "marked_before": (("E+", "E-", "R+"), [dst]),
            "marked_after": (("E+",), [src])}
        # one row comes back: the batch's counts and the ends of its spans
        [row] = batch.agg(*(count_if(kind == k).alias(k) for k in KINDS),
                          *(c for name, (kinds, nodes) in spans.items() for c in ends(name, kinds, *nodes))
                          ).collect()
        counts = {k: int(row[k] or 0) for k in KINDS}
        found = {name: None if row[f"{name} low"] is None else Span.around(row[f"{name} low"], row[f"{name} high"])
                 for name in spans}
        marked = counts["E+"] + counts["E-"] + counts["R+"] + counts["E+"]
        return counts, cls(n_marked=marked, **found)


def apply_delta(update: Update, batch: DataFrame, counts: dict[str, int], spans: BatchSpans,
                empty_nodes: DataFrame, empty_ranked: DataFrame) -> tuple[KeyedTables, FixpointDelta]:
    """``batch``: rows ``(kind, src, dst)``, ``kind`` one of ``R+ R- E+ E-``
    (a root is ``src = dst``), ``counts`` how many of each; ``empty_nodes``
    and ``empty_ranked`` empty ``(node)`` and ``(node, rank)`` frames. Raises
    :class:`~spark_impl.fixpoint.update.TurnedLarge` when recomputing is cheaper."""
    s = update.state
    roots, out_edges, in_edges = s.patched("roots"), s.patched("edges", 0), s.patched("edges", 1)
    net, t = net_change(batch, counts, roots, spans.roots)
    marked = mark(update, batch, spans) if spans.n_marked else None
    gone_roots = net.where("kind = 'R-'").select(F.col("src").alias("node"))
    new_roots = net.where("kind = 'R+'").select(F.col("src").alias("node"))
    gone_edges = net.where("kind = 'E-'").select("src", "dst")
    new_edges = net.where("kind = 'E+'").select("src", "dst")
    expansion = Expansion(update)
    contraction = Contraction(update, expansion)
    mid_out = out_edges.without(gone_edges) if t["E-"] else out_edges
    if t["R-"] or t["E-"]:
        mid_roots = roots.without(gone_roots) if t["R-"] else roots
        mid_in = in_edges.without(gone_edges) if t["E-"] else in_edges
        contraction.contract(gone_roots, t["R-"], gone_edges, t["E-"], spans.lost, mid_roots, mid_out, mid_in)
    if t["R+"] or t["E+"]:
        added_out = mid_out.without(new_edges).plus(new_edges) if t["E+"] else mid_out  # once each
        expansion.expansion_phase(new_roots, t["R+"], new_edges, t["E+"], spans.new_roots, spans.gained, added_out)
    present_col, absent_col = F.lit(True).alias("present"), F.lit(False).alias("present")
    changes = {
        "roots": (gone_roots.select("node", absent_col).unionByName(new_roots.select("node", present_col)),
                  t["R-"] + t["R+"]),
        "edges": (gone_edges.select("src", "dst", absent_col)
                  .unionByName(new_edges.select("src", "dst", present_col)), t["E-"] + t["E+"])}
    # a frame per round: coalesced, or their partitions together grow with the rounds
    dying = union_coalesced([empty_nodes, *(df for df, _ in contraction.dying)])
    settled = union_coalesced([empty_ranked, *expansion.settled])
    return commit(update, changes, dying, settled, expansion.reranked, marked)


def net_change(batch: DataFrame, counts: dict[str, int], roots: Patched,
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
    net, t = once_measured(batch.join(small(present), "src", "left")
                           .where(~F.col("kind").startswith("R")
                                  | (F.col("kind").endswith("-") == F.col("present").isNotNull()))
                           .select("kind", "src", "dst"),
                           **{k: count_if(F.col("kind") == k) for k in ("R+", "R-")})
    return net, {**counts, **t}


def mark(update: Update, batch: DataFrame, spans: BatchSpans) -> DataFrame:
    """The segments as the batch leaves them (``update.segments`` patched):
    the named elements' rows marked where the batch breaks their segments
    (computed by the first job that reads the segments; written with the new
    tables), returned. Elements marked before and after are looked up apart,
    each within its own span (a new edge from an old node to a new one names
    two far-apart ids, whose common span would read most of the index)."""
    by_node, by_seg = update.segments
    named = once(segments.marks(batch))
    rows = (by_node.join(named.where("cb").select("node"), ["node"], span=spans.marked_before)
            .unionByName(by_node.join(named.where("ca and not cb").select("node"), ["node"],
                                      span=spans.marked_after)))
    marked = once(segments.marked(rows, named))
    update.segments = (by_node.without(marked).plus(marked), by_seg.without(marked).plus(marked))
    return marked


def commit(update: Update, changes: dict[str, tuple[DataFrame, int]], dying: DataFrame, settled: DataFrame,
           reranked: tuple[DataFrame, int] | None, marked: DataFrame | None) -> tuple[KeyedTables, FixpointDelta]:
    """The output delta (one job: ``settled`` and ``dying`` elements side by
    side) and the new tables (written, not yet the engine's): ``changes`` to
    the roots and edges, the live set's, and the segments' ``marked`` rows."""
    sides = (settled.select("node", "rank", F.lit(1).alias("s"), F.lit(0).alias("d"))
             .unionByName(dying.select("node", F.lit(None).cast("bigint").alias("rank"), F.lit(0).alias("s"),
                                       F.lit(1).alias("d")))
             .groupBy("node").agg(F.max("rank").alias("rank"), F.max("s").alias("s"), F.max("d").alias("d")))
    both = once(sides)
    # and, by the same job, how many index rows the batch marked (most batches name no member)
    marked_count = [] if marked is None else [(marked, None, {"n": F.count(F.lit(1))})]
    (t, _), *counted = measured(
        (both, None, {"settled": F.sum("s"), "added": count_if((F.col("s") == 1) & (F.col("d") == 0)),
                      "removed": count_if((F.col("s") == 0) & (F.col("d") == 1))}), *marked_count)
    update.work.elements_visited += t["settled"]
    # settled elements were not live, or were dead and re-derived (FIX-DEC-BATCH's exact delta)
    added = both.where("s = 1 and d = 0").select("node")
    removed = both.where("s = 0 and d = 1").select("node")
    rows = t["settled"] + t["removed"]
    live = both.select("node", "rank", (F.col("s") == 1).alias("present"))
    if reranked is not None:  # its rank 0 overrides a re-derivation's rank
        lowered, k = reranked
        live = (live.join(small(lowered.select("node")), "node", "left_anti")
                .unionByName(lowered.select("node", "rank", F.lit(True).alias("present"))))
        rows += k
    changes["live"] = (live, rows)
    if marked is not None and counted[0][0]["n"]:
        changes["segments"] = (marked.withColumn("present", F.lit(True)), counted[0][0]["n"])
    state = update.state.with_changes(changes)
    return state, FixpointDelta(added, removed, t["added"], t["removed"], update.work)
