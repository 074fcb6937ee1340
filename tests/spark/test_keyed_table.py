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
    assert sorted(r["node"] for r in table.frame().collect()) == [*range(100), *range(140, 150)]
