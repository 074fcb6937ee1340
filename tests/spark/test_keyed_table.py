"""A stored table patched round after round (spark_impl/keyed_table.py: Patched)."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.spark


def _joins(df: Any) -> int:
    return str(df._jdf.queryExecution().analyzed().toString()).count("Join ")


def test_a_table_patched_every_round_keeps_shallow_plans(spark: Any) -> None:
    """Forty rounds each taking one key out of a table with an added patch: the
    patches stay at most two frames, each at most one join deep (unstacked, a
    cascade of 32 rounds held 32 hash tables in one task and ran out of memory),
    and the table's rows are right."""
    from spark_impl.keyed_table import Patched

    table = Patched(spark.range(0, 100).selectExpr("id as node"), ("node",)).plus(
        spark.range(100, 150).selectExpr("id as node"))
    for k in range(40):
        table = table.without(spark.createDataFrame([(100 + k,)], "node bigint"))
        assert len(table.added) <= 2 and len(table.removed) <= 2
        assert max(_joins(part) for part in table.added + table.removed) <= 1
        # read every round, as a cascade round reads the live set: each added frame is computed
        # then, on top of the last one's stored rows (unread, the forty would be computed in one task)
        assert table.frame().count() == 150 - (k + 1)
    assert sorted(r["node"] for r in table.frame().collect()) == [*range(100), *range(140, 150)]


def _rows_scanned(df: Any) -> tuple[list[tuple[Any, ...]], int]:
    """``df``'s rows, and how many rows its in-memory table scans produced (a
    scan outputs every row of each cached batch it does not skip)."""
    rows = [tuple(r) for r in df.collect()]
    scanned = 0

    def walk(node: Any) -> None:
        nonlocal scanned
        name = str(node.nodeName())
        if name.startswith("AdaptiveSparkPlan"):
            return walk(node.finalPhysicalPlan())
        if "QueryStage" in name:
            return walk(node.plan())
        if name.startswith("InMemoryTableScan"):
            scanned += int(node.metrics().apply("numOutputRows").value())
        children = node.children().iterator()
        while children.hasNext():
            walk(children.next())

    walk(df._jdf.queryExecution().executedPlan())
    return rows, scanned


def test_a_join_within_a_span_reads_the_batches_of_the_span_only(spark: Any) -> None:
    """A base is sorted within its partitions, so its cached batches cover
    narrow key ranges: a one-key probe joined within its span scans one batch
    per partition, where the same join without the span scans every row, and
    both find the same row."""
    from pyspark.sql import functions as F

    from spark_impl.keyed_table import Patched, Span, Table

    spark.conf.set("spark.sql.inMemoryColumnarStorage.batchSize", "1000")
    try:
        node = F.col("id") * 7919 % 50_000  # the keys 0..49999, out of order
        rows = spark.range(0, 50_000).select(node.alias("node"), (node * 2).alias("rank"))
        table = Table.build(rows, ("node",), ("rank",))
        table.bases[0].count()  # the cache built, in batches of 1000 rows
    finally:
        spark.conf.unset("spark.sql.inMemoryColumnarStorage.batchSize")
    stored = Patched(table.bases[0], ("node",))
    probe = spark.createDataFrame([(31_337,)], "node bigint")
    whole, scanned_all = _rows_scanned(stored.join(probe, ["node"]))
    within, scanned_span = _rows_scanned(stored.join(probe, ["node"], span=Span(31_337, 31_337)))
    assert whole == within == [(31_337, 62_674)]
    assert scanned_all == 50_000
    assert scanned_span <= 1000 * table.bases[0].rdd.getNumPartitions(), scanned_span


def test_a_span_of_values_that_do_not_compare_is_unknown() -> None:
    from spark_impl.keyed_table import Span

    assert Span.of([3, 1, 2]) == Span(1, 3)
    assert Span.of(["b", "ab", "é"]) == Span("ab", "é")
    assert Span.of([]) is None
    assert Span.of([1, "a"]) is None
