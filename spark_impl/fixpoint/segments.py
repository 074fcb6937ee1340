"""Segments: the unique-support paths of a graph, indexed so that a fixpoint
update crosses one in a single step instead of one Spark round per node.

A *link* is an edge ``(u, w)`` that is ``w``'s only in-edge and ``u``'s only
out-edge, ``w`` not a root and ``u ≠ w``. Links form disjoint paths (and
cycles, which no root reaches). A *segment* is a prefix of such a path: a
head at position 0 and members ``1, 2, …``, each linked from the one before.
Under the rank invariant (FIX-DEC-RANK-INVARIANT) a member is live exactly
when its predecessor is, at the next rank: its one in-edge is its only
derivation. So when an element dies in the cascade, every member after it in
its segment dies with it (phase 1 of FIX-ALG-CONTRACT would kill them one
round each), and when an element settles at rank ``r`` in an expansion, the
member ``j`` places after it settles at ``r + j`` (FIX-ALG-EXPAND would
settle them one round each). Neither needs a rank check: a member's only
deriver decides it.

The index is a keyed table ``(node, seg, pos, tail, cut_before, cut_after)``
(``seg`` the head's id, ``tail`` the last position when it was built), stored
with the engine's other tables and partitioned twice: by node (where is this
element?) and by segment (what follows it?). Only segments of two or more
elements have rows.

A batch can break a link: a new or removed in-edge of a member, a new
out-edge of one, a new root among them. Rather than relabel the rest of the
segment (a lookup by segment per change), the element named by the batch is
marked where its segment now breaks: ``cut_before`` (its own link is no
longer one: targets of added or removed edges, new roots) or ``cut_after``
(its link to the next member is no longer one: sources of added edges). The
marks are point updates of the named elements' rows, and the elements after
an anchor are those up to the first break. Removing a root or an edge from a
member's other out-edges never needs a mark (a link only needs what is
left). ``make`` and ``restore`` build the index anew, without marks.

Building is pointer jumping over the links (each row's ancestor replaced by
its ancestor's ancestor, so distances double each round): at most
:data:`BUILD_ROUNDS` rounds, so a segment holds at most ``2^BUILD_ROUNDS + 1``
elements; elements of a longer path beyond that, and cycles, are left out
(an element without a row is crossed one round at a time).
"""

from __future__ import annotations

from collections.abc import Callable

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from spark_impl.storage.scratch import once

#: pointer-jumping rounds when building: segments of at most 2^6 + 1 = 65 elements
BUILD_ROUNDS = 6

KEY = ("node",)
VALUES = ("seg", "pos", "tail", "cut_before", "cut_after")
#: partitioned by node (the anchors' rows) and by segment (the rows that follow them)
LAYOUTS = (("node",), ("seg",))


def empty(nodes: DataFrame) -> DataFrame:
    """No segments, shaped for a graph whose nodes are shaped like ``nodes (node)``."""
    return nodes.select(F.col("node"), F.col("node").alias("seg"), *_flags(F.lit(0), F.lit(0))).limit(0)


def _flags(pos: Column, tail: Column) -> list[Column]:
    return [pos.cast("bigint").alias("pos"), tail.cast("bigint").alias("tail"),
            F.lit(False).alias("cut_before"), F.lit(False).alias("cut_after")]


#: ``computed(frame, condition)``: the frame computed once, and how many of its rows meet ``condition``
Computed = Callable[[DataFrame, Column], tuple[DataFrame, int]]


def build(roots: DataFrame, edges: DataFrame, computed: Computed) -> DataFrame:
    """The segments of ``edges (src, dst)`` with roots ``roots (node)``, unmarked:
    one job per pointer-jumping round (and its count of rows still jumping)."""
    indeg = edges.groupBy(F.col("dst").alias("node")).count().where("count = 1").select("node")
    outdeg = edges.groupBy(F.col("src").alias("node")).count().where("count = 1").select("node")
    links = (edges.where(F.col("src") != F.col("dst"))
             .join(indeg.select(F.col("node").alias("dst")), "dst", "left_semi")
             .join(outdeg.select(F.col("node").alias("src")), "src", "left_semi")
             .join(roots.select(F.col("node").alias("dst")), "dst", "left_anti"))
    linked = once(links.select(F.col("dst").alias("anc"), F.lit(True).alias("open")))

    def with_open(rows: DataFrame) -> tuple[DataFrame, int]:
        """(node, anc, dist, open): ``open`` while the ancestor is itself linked (not a head)."""
        return computed(rows.join(linked, "anc", "left").select(
            "node", "anc", "dist", F.coalesce("open", F.lit(False)).alias("open")), F.col("open"))

    # (node, anc, dist): an ancestor along links and the distance to it
    up, still_open = with_open(links.select(F.col("dst").alias("node"), F.col("src").alias("anc"),
                                            F.lit(1).cast("bigint").alias("dist")))
    for _ in range(BUILD_ROUNDS):
        if not still_open:
            break
        further = up.select(F.col("node").alias("anc"), F.col("anc").alias("anc2"),
                                          F.col("dist").alias("d2"))
        up, still_open = with_open(up.join(further, "anc", "left").select(
            "node", F.coalesce("anc2", "anc").alias("anc"),
            (F.col("dist") + F.coalesce("d2", F.lit(0))).alias("dist")))
    members = up.where(~F.col("open")).select("node", F.col("anc").alias("seg"), F.col("dist").alias("pos"))
    tails = members.groupBy("seg").agg(F.max("pos").alias("tail"))
    heads = tails.select(F.col("seg").alias("node"), "seg", F.lit(0).cast("bigint").alias("pos"), "tail")
    return (members.join(tails, "seg").select("node", "seg", "pos", "tail").unionByName(heads)
            .select("node", "seg", *_flags(F.col("pos"), F.col("tail"))))


def marks(batch: DataFrame) -> DataFrame:
    """The breaks a batch ``(kind, src, dst)`` makes, per named node:
    ``(node, cut_before, cut_after)``."""
    before = batch.where(F.col("kind").isin("E+", "E-", "R+")).select(
        F.col("dst").alias("node"), F.lit(True).alias("cb"), F.lit(False).alias("ca"))
    after = batch.where(F.col("kind") == "E+").select(
        F.col("src").alias("node"), F.lit(False).alias("cb"), F.lit(True).alias("ca"))
    return before.unionByName(after).groupBy("node").agg(F.max("cb").alias("cb"), F.max("ca").alias("ca"))


def marked(rows: DataFrame, named: DataFrame) -> DataFrame:
    """The index rows of the named elements (``rows``: their current rows),
    with the batch's marks ``named (node, cb, ca)`` added."""
    return rows.join(named, "node").select(
        "node", "seg", "pos", "tail", (F.col("cut_before") | F.col("cb")).alias("cut_before"),
        (F.col("cut_after") | F.col("ca")).alias("cut_after"))


def anchors(rows: DataFrame) -> DataFrame:
    """Of some elements' index rows, those with elements after them (not the
    tail, no break right after): ``(anchor, seg, apos)``, plus any other
    columns of ``rows`` (a rank)."""
    return (rows.where((F.col("pos") < F.col("tail")) & ~F.col("cut_after"))
            .withColumnRenamed("node", "anchor").withColumnRenamed("pos", "apos")
            .drop("tail", "cut_before", "cut_after"))


def following(segment_rows: DataFrame, anchored: DataFrame) -> DataFrame:
    """The elements after each anchor up to the first break: ``(node, anchor,
    offset)``, ``offset`` the places after the anchor. ``segment_rows``: the
    index rows of the anchors' segments; ``anchored``: :func:`anchors`."""
    joined = segment_rows.join(anchored.select("anchor", "seg", "apos"), "seg")
    # a row breaks the segment at its own place (cut_before) or just after it (cut_after)
    breaks = F.least(F.when(F.col("cut_before"), F.col("pos")), F.when(F.col("cut_after"), F.col("pos") + 1))
    first_break = (joined.where(breaks > F.col("apos")).groupBy("anchor").agg(F.min(breaks).alias("stop")))
    return (joined.join(first_break, "anchor", "left")
            .where((F.col("pos") > F.col("apos")) & (F.col("stop").isNull() | (F.col("pos") < F.col("stop"))))
            .select("node", "anchor", (F.col("pos") - F.col("apos")).alias("offset")))
