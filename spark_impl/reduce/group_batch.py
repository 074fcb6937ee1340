"""One job for a group reducer's micro-batch: its changes, and the facts that refuse it.

A micro-batch of :attr:`~spark_impl.reduce.maintained_view.MaintainedView.updates` holds, for
every key and (key, value) pair it touched, the new state (rows ``kind`` = ``key``: size ``m``
and sums ``a<i>``; ``pair``: multiplicity ``m``), and its own rows (``raw``: weight ``m``,
contributions ``a<i>``). Its rows are shuffled once, by key; on each partition they are
aggregated per (key, value) and then per key, neither needing another shuffle (a hash of
the key clusters both groupings):

* per pair: the multiplicity after the batch and what the batch added. For a batch of one
  part (SKIP-DEC-SPARK-PARTS) Δ⁻ ⊆ C (SKIP-DEF-8) holds iff ``after - added >= 0``: the
  multiplicity before is ``after - added + removed``, and the batch removes ``removed``;
* per key: the new state and the batch's delta, so the old state is ``new - delta`` (a
  group) and the key changes iff its presence or a component does.

The counts that refuse a batch (invalid rows, overflowed sums, removals, pairs breaking the
check, and the first and last part) are observed (``DataFrame.observe``) in the same job that
materialises the changes: the handler reads them before it hands the changes on. Those over
rows are observed on the rows, those over pairs and keys on the per-key aggregation, so that
both aggregations hold numbers alone (:class:`FactsObserved` says why).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pyspark.sql import Column, DataFrame, Observation
from pyspark.sql import functions as F


def overflowed(components: list[str]) -> Column:
    """A state row whose sum overflowed (``try_sum`` leaves it null): a pair's multiplicity,
    a key's size or component."""
    kind = F.col("kind")
    component_lost = F.lit(False)
    for c in components:
        component_lost = component_lost | F.col(c).isNull()
    return (kind != "raw") & (F.col("m").isNull() | ((kind == "key") & component_lost))


@dataclass(frozen=True)
class BatchFacts:
    """What the one pass saw: the counts that refuse a micro-batch (all 0 for a valid one)."""

    invalid: int
    overflow: int
    removals: int
    #: pairs whose multiplicity after the batch is below what it added: Δ⁻ ⊄ C iff not 0, for
    #: a batch of one part (of several, a pair may rightly lose in a later part what an
    #: earlier one added)
    violations: int
    #: the batch holds more than one part (its check is then made part by part)
    several_parts: bool
    #: state groups (keys and (key, value) pairs) the batch took from multiplicity 0 (or none)
    #: to above 0, and from above 0 to 0 (:mod:`spark_impl.reduce.group_generations`)
    filled: int = 0
    emptied: int = 0


@dataclass(frozen=True)
class FactsObserved:
    """Where one job observes a micro-batch's :class:`BatchFacts`: ``rows``, the counts over its
    rows (invalid, overflowed, removing; its first and last part), and ``groups``, those over
    its pairs and keys (violations, groups filled and emptied).

    Two observations, not one: the first part and the last are a minimum and a maximum of a
    string, which aggregated per pair and per key, as they were, make Spark aggregate by
    sorting (``SortAggregate``, no generated code) where numbers alone hash (measured:
    SKIP-DEC-SPARK-BATCH's notes)."""

    rows: Observation = field(default_factory=Observation)
    groups: Observation = field(default_factory=Observation)

    def read(self) -> BatchFacts:
        """The facts, once the job that observes them has run."""
        rows, groups = self.rows.get, self.groups.get
        return BatchFacts(int(rows["invalid"] or 0), int(rows["overflow"] or 0),
                          int(rows["removals"] or 0), int(groups["violations"] or 0),
                          rows["first_part"] != rows["last_part"],
                          int(groups["filled"] or 0), int(groups["emptied"] or 0))


def changes_observed(batch: DataFrame, components: list[str], accumulator: Column,
                     observed: FactsObserved) -> DataFrame:
    """The changes ``key, present, accumulator`` of ``batch`` (exactly the keys whose view
    entry differs; ``accumulator`` is over the columns ``components``), the refusal counts
    observed into ``observed`` by whichever action runs them first."""
    is_key, is_raw = F.col("kind") == "key", F.col("kind") == "raw"
    m = F.col("m")
    rows = batch.observe(
        observed.rows,
        F.count_if(is_raw & F.col("invalid").isNotNull()).alias("invalid"),
        F.count_if(overflowed(components)).alias("overflow"),
        F.count_if(is_raw & (m < 0)).alias("removals"),
        F.min(F.when(is_raw, F.col("part"))).alias("first_part"),
        F.max(F.when(is_raw, F.col("part"))).alias("last_part"))
    per_pair = rows.repartition("k").groupBy(
        "k", F.when(~is_key, F.col("v")).alias("v"), is_key.alias("is_key")).agg(
        F.sum(F.when(~is_raw, m)).alias("m"),  # a key's size, a pair's multiplicity, after
        F.sum(F.when(is_raw, m)).alias("dn"),
        F.sum(F.when(is_raw & (m > 0), m)).alias("added"),
        *[F.sum(F.when(is_key, F.col(c))).alias(c) for c in components],
        *[F.sum(F.when(is_raw, F.col(c))).alias(f"d{c}") for c in components])
    pair = ~F.col("is_key")
    # a group's multiplicity before the batch is ``m - dn`` (a group the batch's changes do not
    # touch, re-stated by a compaction, has no ``dn``: neither filled nor emptied)
    filled, emptied = F.col("m") > 0, F.col("m") == 0
    per_key = per_pair.groupBy("k").agg(
        F.sum(F.when(F.col("is_key"), m)).alias("m"),
        F.sum(F.when(pair, F.col("dn"))).alias("dn"),
        *[F.sum(c).alias(c) for c in components],
        *[F.sum(f"d{c}").alias(f"d{c}") for c in components],
        F.count_if(pair & (m - F.coalesce(F.col("added"), F.lit(0)) < 0)).alias("violations"),
        F.count_if(pair & filled & (m == F.col("dn"))).alias("pairs_filled"),
        F.count_if(pair & emptied & (F.col("dn") < 0)).alias("pairs_emptied"))
    key_filled = F.when(filled & (m == F.col("dn")), 1).otherwise(0)
    key_emptied = F.when(emptied & (F.col("dn") < 0), 1).otherwise(0)
    watched = per_key.observe(
        observed.groups, F.sum("violations").alias("violations"),
        F.sum(F.col("pairs_filled") + key_filled).alias("filled"),
        F.sum(F.col("pairs_emptied") + key_emptied).alias("emptied"))
    present = F.col("m") > 0
    was_present = (F.col("m") - F.col("dn")) > 0
    moved = F.lit(False)
    for c in components:
        moved = moved | (F.col(f"d{c}") != 0)
    changed = (present != was_present) | (present & moved)
    return watched.where(changed).select(F.col("k").alias("key"), present.alias("present"),
                                         F.when(present, accumulator).alias("accumulator"))
