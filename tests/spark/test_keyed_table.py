"""A stored table patched round after round (spark_impl/storage/keyed_tables.py: Patched)."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.spark


def _joins(df: Any) -> int:
    return str(df._jdf.queryExecution().analyzed().toString()).count("Join ")


def _partitions(df: Any) -> int:
    return int(df._jdf.queryExecution().toRdd().getNumPartitions())


@pytest.mark.heavy
def test_a_table_patched_every_round_keeps_shallow_plans(spark: Any) -> None:
    """Forty rounds each taking one key out of a table with an added patch: the
    patches stay at most two frames, each at most one join deep (unstacked, a
    cascade of 32 rounds held 32 hash tables in one task and ran out of memory),
    and the table's rows are right."""
    from spark_impl.storage.keyed_tables import Patched, partitions

    table = Patched(spark.range(0, 100).selectExpr("id as node"), ("node",)).plus(
        spark.range(100, 150).selectExpr("id as node"))
    for k in range(40):
        table = table.without(spark.createDataFrame([(100 + k,)], "node bigint"))
        assert len(table.added) <= 2 and len(table.removed) <= 2
        assert max(_joins(part) for part in table.added + table.removed) <= 1
        # merged patches keep the session's partition count (a union of unions grew by two a
        # round: 68 tasks a stage by the end of a cascade of 32)
        assert max(_partitions(part) for part in table.added + table.removed) <= partitions(table.base)
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

    from spark_impl.storage.keyed_tables import Patched, Span, Table
    from tests.spark.generated_code import generated_code

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
    # generated code scans a cached table batch by batch, each batch's rows counted whole;
    # interpreted, a scan counts the rows a join pulls from it, and a merge join stops early
    with generated_code(spark):
        whole, scanned_all = _rows_scanned(stored.join(probe, ["node"]))
        within, scanned_span = _rows_scanned(stored.join(probe, ["node"], span=Span(31_337, 31_337)))
    assert whole == within == [(31_337, 62_674)]
    assert scanned_all == 50_000
    assert scanned_span <= 1000 * table.bases[0].rdd.getNumPartitions(), scanned_span


def test_a_span_of_values_that_do_not_compare_is_unknown() -> None:
    from spark_impl.storage.keyed_tables import Span

    assert Span.of([3, 1, 2]) == Span.around(1, 3)
    assert Span.of(["b", "ab", "é"]) == Span("ab", "é")
    assert Span.of([]) is None
    assert Span.of([1, "a"]) is None


def test_integer_spans_are_widened_to_a_grid_that_holds_them() -> None:
    """Integer ends are multiples of a block (at least ``SPAN_GRID``, a power of
    two at least the span's width) around the span; other values are kept."""
    from spark_impl.storage.keyed_tables import SPAN_GRID, Span

    for low, high in [(0, 0), (5, 5), (1023, 1024), (-3, 7), (10**7, 10**7 + 5000), (2**40 + 1, 2**41)]:
        span = Span.around(low, high)
        width = span.high - span.low + 1
        assert span.low <= low <= high <= span.high
        assert span.low % SPAN_GRID == 0 and (span.high + 1) % SPAN_GRID == 0
        assert width <= 2 * max(SPAN_GRID, 2 * (high - low + 1)), (low, high, span)
    # a cascade down a chain probes one id further each round: the rounds share their span
    assert len({Span.around(x, x) for x in range(5 * SPAN_GRID, 6 * SPAN_GRID)}) == 1
    assert Span.around("a", "b") == Span("a", "b")
    # never past Spark's bigint
    assert Span.around(2**63 - 5, 2**63 - 1) == Span(2**63 - SPAN_GRID, 2**63 - 1)
    assert Span.around(-(2**63), -(2**63) + 5) == Span(-(2**63), -(2**63) + SPAN_GRID - 1)


@pytest.mark.heavy
def test_joins_within_nearby_spans_share_their_generated_code(spark: Any) -> None:
    """Spark writes integer literals into generated code: a join within a span
    one id further each round compiled its stages anew every round. Within the
    grid's spans, forty rounds compile nothing after the first."""
    from spark_impl.storage.keyed_tables import Patched, Span, Table
    from tests.spark.generated_code import generated_code

    metrics = spark._jvm.org.apache.spark.metrics.source.CodegenMetrics
    table = Table.build(spark.range(0, 10_000).selectExpr("id as node", "id * 2 as rank"), ("node",), ("rank",))
    stored = Patched(table.bases[0], ("node",))

    def lookup(x: int) -> None:
        probe = spark.createDataFrame([(x,)], "node bigint")
        assert [tuple(r) for r in stored.join(probe, ["node"], span=Span.of([x])).collect()] == [(x, 2 * x)]

    with generated_code(spark):  # the tests' session runs plans interpreted: nothing to compile
        lookup(4_096)
        before = int(metrics.METRIC_COMPILATION_TIME().getCount())
        for x in range(4_097, 4_137):
            lookup(x)
        assert int(metrics.METRIC_COMPILATION_TIME().getCount()) == before
        # the lookups' stages are generated code (marked "*(n)"): the count above could have grown
        probe = spark.createDataFrame([(4_137,)], "node bigint")
        plan = str(stored.join(probe, ["node"], span=Span.of([4_137]))._jdf.queryExecution().executedPlan())
        assert "*(" in plan, plan


@pytest.mark.heavy
def test_the_overlay_keeps_the_session_partition_count_update_after_update(spark: Any) -> None:
    """Thirty updates, each changing a few keys of two tables: the overlay is rewritten
    every time as the old overlay's rows plus the new changes, and stays in the
    session's partition count (it was a union of its parts: it gained the change
    frames' partitions at every update, 94 tasks a stage after six small updates of a
    fixpoint engine), and every table reads as its changes made it."""
    from spark_impl.storage.keyed_tables import KeyedTables, Table, partitions

    tables = KeyedTables.of({
        "a": Table.build(spark.range(0, 50).selectExpr("id as node", "0 as rank"), ("node",), ("rank",)),
        "b": Table.build(spark.range(0, 20).selectExpr("id as node"), ("node",)),
    })
    expected_a = {n: 0 for n in range(50)}
    expected_b = set(range(20))
    for k in range(30):
        changes_a = spark.createDataFrame([(k, k + 1, True), (100 + k, 1, True)], "node bigint, rank int, present boolean")
        changes_b = spark.createDataFrame([(k % 20, False)], "node bigint, present boolean")
        tables = tables.with_changes({"a": (changes_a, 2), "b": (changes_b, 1)})
        expected_a.update({k: k + 1, 100 + k: 1})
        expected_b.discard(k % 20)
        assert tables.written is not None
        assert tables.written.rdd.getNumPartitions() <= partitions(tables.written), k
    assert {r["node"]: r["rank"] for r in tables.current("a").collect()} == expected_a
    assert {r["node"] for r in tables.current("b").collect()} == expected_b
