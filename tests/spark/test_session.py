"""The engines' SparkSession (spark_impl/session.py)."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.spark


def test_generated_code_of_many_query_shapes_is_compiled_once(spark: Any) -> None:
    """An update's rounds run more distinct stages than Spark's default code
    cache holds (100 classes), so with it every round compiled its code again.
    Sixty query shapes (two generated classes each) run twice: the second time
    nothing is compiled."""
    from pyspark.sql import functions as F

    metrics = spark._jvm.org.apache.spark.metrics.source.CodegenMetrics

    def compilations() -> int:
        return int(metrics.METRIC_COMPILATION_TIME().getCount())

    def run_shapes() -> None:
        for k in range(60):  # each literal makes new code: Spark inlines integer literals
            rows = spark.range(4).where(F.col("id") != k % 4).select((F.col("id") * (k + 1000)).alias("x"))
            assert len(rows.collect()) == 3

    before = compilations()
    run_shapes()
    first = compilations() - before
    assert first > 100  # more than the default cache holds
    run_shapes()
    assert compilations() - before == first


def test_python_workers_import_the_installed_compiled_pyspark(spark: Any) -> None:
    """Spark puts its ``pyspark.zip`` first on a worker's path, where nothing is compiled:
    every worker start compiled pyspark from source, on a loaded machine past the 10 s
    Spark waits for a worker. The session's launcher puts the installed package first."""
    import os

    import pyspark

    def pyspark_of_the_worker(_: Any) -> list[str]:
        import pyspark as worker_pyspark

        return [os.path.abspath(worker_pyspark.__file__)]

    seen = set(spark.sparkContext.parallelize(range(2), 2).mapPartitions(pyspark_of_the_worker).collect())
    assert seen == {os.path.abspath(pyspark.__file__)}
    assert ".zip" not in next(iter(seen))


def test_rocksdb_state_stores_share_a_bounded_memory(spark: Any) -> None:
    """Each RocksDB state store instance holds its own cache and write buffers in native
    memory by default, with no ceiling in all; bounded, an executor's stores share one budget.
    The names are the ones the installed Spark's RocksDB provider reads."""
    rocksdb = spark._jvm.org.apache.spark.sql.execution.streaming.state.RocksDBConf
    prefix = rocksdb.ROCKSDB_SQL_CONF_NAME_PREFIX()
    assert spark.conf.get(f"{prefix}.{rocksdb.BOUNDED_MEMORY_USAGE_CONF_KEY()}") == "true"
    assert int(spark.conf.get(f"{prefix}.{rocksdb.MAX_MEMORY_USAGE_MB_CONF_KEY()}")) == 256
