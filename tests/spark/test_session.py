"""The engines' SparkSession (spark_impl/session.py)."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.spark


def test_generated_code_of_many_query_shapes_is_compiled_once(spark: Any) -> None:
    """An update's rounds run more distinct stages than Spark's default code
    cache holds (100 classes), so with it every round compiled its code again.
    Sixty query shapes (two generated classes each) run twice, with Spark's code
    generation on: the second time nothing is compiled."""
    from pyspark.sql import functions as F

    metrics = spark._jvm.org.apache.spark.metrics.source.CodegenMetrics

    def compilations() -> int:
        return int(metrics.METRIC_COMPILATION_TIME().getCount())

    def run_shapes() -> None:
        for k in range(60):  # each literal makes new code: Spark inlines integer literals
            rows = spark.range(4).where(F.col("id") != k % 4).select((F.col("id") * (k + 1000)).alias("x"))
            assert len(rows.collect()) == 3

    from tests.spark.generated_code import generated_code

    # the cache matters to the sessions that generate code (the pipeline's, the benchmarks')
    with generated_code(spark):
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


def test_the_small_data_sessions_jvm_runs_with_its_compiler_options(spark: Any) -> None:
    """The tests' session is one over small data: its driver JVM was started with
    :data:`~spark_impl.session.SMALL_DATA_JAVA_OPTIONS` (read from the running JVM's own
    arguments and its HotSpot flags, not from a setting)."""
    from spark_impl.session import SMALL_DATA_JAVA_OPTIONS

    management = spark._jvm.java.lang.management.ManagementFactory
    arguments = set(management.getRuntimeMXBean().getInputArguments())
    assert set(SMALL_DATA_JAVA_OPTIONS.split()) <= arguments
    hotspot = _hotspot(spark)
    assert hotspot.getVMOption("FreqInlineSize").getValue() == "100"
    assert hotspot.getVMOption("MaxInlineLevel").getValue() == "6"
    assert hotspot.getVMOption("UseParallelGC").getValue() == "true"
    assert hotspot.getVMOption("UseG1GC").getValue() == "false"


def _hotspot(spark: Any) -> Any:
    """The running driver JVM's HotSpot flags (``getVMOption(name).getValue()``)."""
    management = spark._jvm.java.lang.management.ManagementFactory
    return management.getPlatformMXBean(
        spark._jvm.java.lang.Class.forName("com.sun.management.HotSpotDiagnosticMXBean"))


def test_rocksdb_state_stores_share_a_bounded_memory(spark: Any) -> None:
    """Each RocksDB state store instance holds its own cache and write buffers in native
    memory by default, with no ceiling in all; bounded, an executor's stores share one budget.
    The names are the ones the installed Spark's RocksDB provider reads; the tests' session
    (2 GB of driver heap, tests/conftest.py) gives them a third of it: of the JVM's ``-Xmx``,
    fixed for its life, not of the heap it reports usable, which its collector resizes."""
    rocksdb = spark._jvm.org.apache.spark.sql.execution.streaming.state.RocksDBConf
    prefix = rocksdb.ROCKSDB_SQL_CONF_NAME_PREFIX()
    assert spark.conf.get(f"{prefix}.{rocksdb.BOUNDED_MEMORY_USAGE_CONF_KEY()}") == "true"
    # the heap the JVM was started with (-Xmx), and the part of it the JVM reports usable (the
    # parallel collector, the small-data sessions', leaves one survivor space out): the JVM's, not a setting's
    assert _hotspot(spark).getVMOption("MaxHeapSize").getValue() == str(2 * 2**30)
    heap_mb = spark._jvm.java.lang.Runtime.getRuntime().maxMemory() / 2**20
    assert 1024 < heap_mb <= 2048
    budget = int(spark.conf.get(f"{prefix}.{rocksdb.MAX_MEMORY_USAGE_MB_CONF_KEY()}"))
    assert budget == 2048 // 3


def test_a_local_masters_state_stores_get_a_third_of_its_heap_at_least_256_mb() -> None:
    from spark_impl.session import local_state_memory_mb

    assert [local_state_memory_mb(mb) for mb in (512, 768, 1024, 2048, 6144)] == [256, 256, 341, 682, 2048]


@pytest.mark.parametrize(("size", "mb"), [("1g", 1024), ("6144m", 6144), ("3072", 3072), ("1t", 1048576),
                                          ("2GB", 2048), ("524288k", 512)])
def test_memory_sizes_read_as_spark_writes_them(size: str, mb: int) -> None:
    from spark_impl.session import _megabytes

    assert _megabytes(size) == mb


def test_the_launcher_drops_only_the_quiet_modules_standard_output() -> None:
    """transformWithStateInPandas starts a worker on the driver for every query, whose
    progress lines (four a query) the JVM copies to the application's standard error:
    hundreds of lines in a conformance run. The launcher drops that module's standard output
    and keeps its standard error; any other module (the daemon reports its port on its
    standard output) is untouched. Shown with ``json.tool`` as the quiet module."""
    import importlib.util
    import subprocess

    from spark_impl.session import TWS_DRIVER_WORKER, worker_launcher

    assert importlib.util.find_spec(TWS_DRIVER_WORKER) is not None  # the module pyspark starts
    quiet, plain = worker_launcher(quiet="json.tool"), worker_launcher()

    def run(launcher: str, text: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([launcher, "-m", "json.tool"], input=text, capture_output=True, text=True, timeout=60)

    assert run(plain, '{"a": 1}').stdout.split() == ["{", '"a":', "1", "}"]
    assert run(quiet, '{"a": 1}').stdout == ""
    failed = run(quiet, "{")
    assert failed.returncode != 0 and "Expecting property name" in failed.stderr
