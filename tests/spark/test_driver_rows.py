"""Frames of the driver's rows (spark_impl/driver_rows.py): a local relation holding exactly
the rows given, in the schema's types, and a value of the wrong type refused as
``createDataFrame`` refuses it."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

pytestmark = pytest.mark.spark

SCHEMA = "k string, v decimal(38,0), n bigint, t int"
ROWS = [("a", Decimal(10) ** 37, 2**62 + 1, 0), (None, Decimal(-5), None, 7), ('"b"', None, -1, None)]


def _leaf(df: Any) -> str:
    plan = df._jdf.queryExecution().optimizedPlan()
    while plan.children().size() > 0:
        plan = plan.children().head()
    return str(plan.nodeName())


def test_the_rows_come_back_exactly_from_a_local_relation(spark: Any) -> None:
    from spark_impl.driver_rows import frame_of_rows

    df = frame_of_rows(spark, ROWS, SCHEMA)
    # an int column holding a null stays ints (no float on the way: 2^62 + 1 is not a float)
    assert [tuple(r) for r in df.collect()] == ROWS
    assert df.dtypes == [("k", "string"), ("v", "decimal(38,0)"), ("n", "bigint"), ("t", "int")]
    assert _leaf(df) == "LocalRelation"
    assert _leaf(spark.createDataFrame(ROWS, SCHEMA)) != "LocalRelation"  # what it replaces


def test_no_rows_give_an_empty_frame_of_the_schema(spark: Any) -> None:
    from spark_impl.driver_rows import frame_of_rows

    df = frame_of_rows(spark, [], SCHEMA)
    assert df.collect() == []
    assert df.dtypes == [("k", "string"), ("v", "decimal(38,0)"), ("n", "bigint"), ("t", "int")]


def test_a_value_of_the_wrong_type_is_refused_as_create_dataframe_refuses_it(spark: Any) -> None:
    from pyspark.errors import PySparkTypeError

    from spark_impl.driver_rows import frame_of_rows

    with pytest.raises(PySparkTypeError, match="FIELD_DATA_TYPE_UNACCEPTABLE"):
        spark.createDataFrame([("x",)], "n bigint")
    with pytest.warns(UserWarning, match="Arrow optimization"), \
            pytest.raises(PySparkTypeError, match="FIELD_DATA_TYPE_UNACCEPTABLE"):
        frame_of_rows(spark, [("x",)], "n bigint")
