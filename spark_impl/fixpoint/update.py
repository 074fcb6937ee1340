"""One update of the reachability engine as it stands, and what its rounds are made of.

Contraction (:mod:`spark_impl.fixpoint.contraction`) and expansion
(:mod:`spark_impl.fixpoint.expansion`) share an :class:`Update`: the live set
as the update has left it so far (:class:`LiveSet`, the reference's ``current``
and ``rank``), the segments as the batch leaves them, the work counters, and
the size past which recomputing from scratch is cheaper (:class:`TurnedLarge`).

A round is one Spark job. Its frames are scratch (:func:`once_measured`:
computed once by the job that also computes the counts the driver needs, and
released with the update's scratch), and a frame that depends on another (a
round's successors on its dead) is measured by the same job
(:func:`measured`). A probe's :class:`~spark_impl.storage.keyed_tables.Span`,
learnt by that job (:func:`spanned`), bounds the next round's reads of the
stored tables.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from spark_impl.fixpoint import segments
from spark_impl.storage.keyed_tables import KeyedTables, Patched, Span
from spark_impl.storage.scratch import once


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


# --- a round's frames, measured by one job ---------------------------------------------


def once_measured(df: DataFrame, **aggs: Column) -> tuple[DataFrame, dict[str, int]]:
    """Scratch data of one round, computed once by the one job that also
    computes its aggregates ``aggs`` (ints: counts, a least rank); a frame of
    :func:`~spark_impl.storage.scratch.once`, released with the update's scratch."""
    out, t, _ = spanned(df, None, **aggs)
    return out, t


def spanned(df: DataFrame, node: Column | None, **aggs: Column) -> tuple[DataFrame, dict[str, int], Span | None]:
    """:func:`once_measured`, and by the same job the :class:`Span` of ``node``
    (its null values left out; ``None`` when all are): the next round's
    joins read the stored tables within it."""
    out = once(df)
    [(t, span)] = measured((out, node, aggs))
    return out, t, span


#: a frame, the column whose span is wanted (or ``None``), the aggregates wanted
Measure = tuple[DataFrame, Column | None, dict[str, Column]]


def measured(*measures: Measure) -> list[tuple[dict[str, int], Span | None]]:
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


def computed(df: DataFrame, condition: Column) -> tuple[DataFrame, int]:
    """``df`` computed once, and how many of its rows meet ``condition`` (one job)."""
    out, t = once_measured(df, n=count_if(condition))
    return out, t["n"]


def hull(*spans: tuple[Span | None, int]) -> Span | None:
    """The span holding every non-empty one of ``(span, rows)``; ``None`` (read
    everything) when one with rows has no span."""
    with_rows = [span for span, rows in spans if rows]
    held = [span for span in with_rows if span is not None]
    if not held or len(held) < len(with_rows):
        return None
    return Span.around(min(span.low for span in held), max(span.high for span in held))


def small(df: DataFrame) -> DataFrame:
    """The small side of a join between scratch frames, hashed (a shuffled
    hash join; the hint also keeps Spark from broadcasting it: a broadcast is
    a Spark job of its own). Joins with a stored table go through
    :meth:`~spark_impl.storage.keyed_tables.Patched.join`, which leaves the table where
    it lies (partitioned by the join's first key;
    ``spark.sql.requireAllClusterKeysForCoPartition`` is off, see
    spark_impl/session.py)."""
    return df.hint("shuffle_hash")


def count_if(condition: Column) -> Column:
    return F.sum(F.when(condition, F.lit(1)).otherwise(F.lit(0)))


# --- the update as it stands -------------------------------------------------------------


class LiveSet:
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


class TurnedLarge(Exception):
    """An update whose cascade or expansion reached the bulk threshold: recompute instead."""


class Update:
    """What an incremental update's contraction and expansion share."""

    def __init__(self, state: KeyedTables, bulk_rows: int, bulk_share: float) -> None:
        self.state = state
        #: dead (or still to settle) elements past which recomputing is cheaper
        self.limit = max(bulk_rows, bulk_share * state.rows("live"))
        self.work = Work()
        self.live = LiveSet(state.patched("live"))
        #: the segments, by node and by segment, patched with the batch's marks before the rounds
        self.segments = (state.patched("segments", 0), state.patched("segments", 1))

    def anchored(self, nodes: DataFrame, span: Span | None) -> DataFrame:
        """Of ``nodes (node, …)`` (within ``span``), those with segment members
        after them: ``(anchor, seg, apos, …)`` (:func:`segments.anchors`)."""
        rows = self.segments[0].join(nodes.select("node").distinct(), ["node"], span=span)
        return once(segments.anchors(rows.join(nodes, "node")))

    def following(self, anchored: DataFrame, seg_span: Span | None) -> DataFrame:
        """``(node, anchor, offset)``: the members after each anchor up to a break."""
        rows = self.segments[1].matching(anchored.select("seg"), ["seg"], seg_span)
        return segments.following(rows, anchored)
