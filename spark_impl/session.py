"""The SparkSession: embedded ``local[2]`` by default, any cluster by master URL.

The master comes from the ``master`` argument, else ``$INCSPEC_SPARK_MASTER``,
else ``local[2]``. Nothing is downloaded at run time (no ``spark.jars.packages``):
only what the pyspark wheel ships.

On a cluster (any master but ``local...``) the executors' Python is the cluster's
(``PYSPARK_PYTHON``, else ``spark.pyspark.python``, else ``python3``: an interpreter
with pandas and pyarrow on every worker machine; the driver runs it too, for
``transformWithStateInPandas``); the project's packages are shipped to it
(:mod:`spark_impl.shipping`), and the state goes to ``$INCSPEC_CHECKPOINT_DIR``
(:func:`checkpoint_dir`). Other settings (executor memory and cores, the driver's
address) come from ``conf`` or Spark's own ``spark-defaults.conf``
(``$SPARK_CONF_DIR``).
"""

from __future__ import annotations

import hashlib
import os
import shlex
import sys
import tempfile
from typing import Any

from py4j.protocol import Py4JError

from spark_impl import jvm_lookups
from spark_impl.connect import is_connect_url
from spark_impl.errors import SparkEngineError
from spark_impl.shipping import ship

DEFAULT_MASTER = "local[2]"
#: the engines' checkpoint location (required on a cluster: :func:`checkpoint_dir`)
CHECKPOINT_ENV = "INCSPEC_CHECKPOINT_DIR"
#: set (to anything but empty or ``0``): the session's JVMs are short-lived, on small data
SHORT_LIVED_ENV = "INCSPEC_SHORT_LIVED_JVM"
#: A JVM that lives a minute or few over small data spends much of its CPU in HotSpot's
#: optimising compiler (C2), which it never runs long enough to earn back; the client
#: compiler alone starts fast. JVM CPU measured in a fresh session (2 cores): the fixpoint
#: engine's worked example twice, 69.4-69.9 s with both compilers, 38.5-39.9 s with C1
#: only; one work-counter test 68.8 s against 38.5 s; the suite's fixpoint area (39 cases)
#: 159.0 s against 122.9 s. But three test files in one session (13-15 minutes) took 500 s
#: with both and 681 s with C1 only: a JVM living longer earns C2 back. Off by default,
#: the tests' and the main job's included; for short applications on small data.
SHORT_LIVED_JAVA_OPTIONS = "-XX:TieredStopAtLevel=1"

#: Settings for a session over small data (the tests', the conformance suite's: tens of
#: rows a case): Spark's generated code (whole-stage, and each expression's projections and
#: predicates), compiled afresh for each new plan, pays off over many rows; over a few, the
#: compilation is the cost, and the interpreted path (Spark's own fallback when generated
#: code fails to compile) computes the same rows. Measured, each area of the suite against
#: the Spark engines alone (incspec conform --impl spark --area A), one run each: fixpoint
#: 181 -> 157 s, zset 363 -> 314 s (an earlier profile of the driver: 10 % of its JVM's
#: samples generating and compiling code).
#: ``spark.sql.codegen.factoryMode`` is an internal setting of Spark's (4.x honours it
#: outside its own tests too). Asked for by ``build_session(small_data=True)``: the tests'
#: session and the conformance adapter's; the pipeline's, the benchmarks' and the cluster
#: tier's sessions keep Spark's defaults (so CI still runs the engines on generated code).
SMALL_DATA_CONF: dict[str, str] = {
    "spark.sql.codegen.wholeStage": "false",
    "spark.sql.codegen.factoryMode": "NO_CODEGEN",
}

#: The driver JVM's options for a session over small data. Such a JVM spends its CPU planning
#: many small queries, not computing rows, and much of it in HotSpot's optimising compiler
#: (C2): per-thread CPU of the tests' two JVMs over a whole default-and-heavy run, C2 36.5 %,
#: C1 5 %, the Py4J threads (analysis, planning) 27 %, the executors' task threads under 1 %.
#: Smaller inlining budgets make each C2 compilation cheaper. Measured, the suite's fixpoint
#: area alone (incspec conform --impl spark --area fixpoint, 39 cases, quiet 2-core machine,
#: one run each): HotSpot's defaults 185.9 and 169.6 s; C1 only 164.1 s; these limits 151.2 s.
#: Not taken: tighter limits (FreqInlineSize 50, MaxInlineLevel 4, InlineSmallCode 500,
#: MaxInlineSize 20), faster on that area once but about 5 % slower on the whole main job.
#: The parallel collector instead of G1: no concurrent marking threads, no G1 write barriers,
#: pauses that nothing here waits on. The same area with these limits, runs alternated, quiet
#: machine: G1 84.5 and 83.0 s wall (the driver JVM's CPU 123.4 and 124.3 s), parallel 78.1 and
#: 71.2 s (112.5 and 102.6 s); the zset area 157.6 against 143.5 s. That collector leaves one
#: survivor space out of the heap a JVM reports (``Runtime.maxMemory``), and Spark's unified
#: memory is a share of that: on Spark's default 1 GB heap (about 366 MB of execution and
#: storage memory, against 434 MB with G1) the main job ran out of execution memory
#: (``UNABLE_TO_ACQUIRE_MEMORY`` in a lockstep fixpoint apply) in two whole runs out of three.
#: So a small-data session's driver gets a 2 GB heap (:data:`SMALL_DATA_DRIVER_MEMORY`; its live
#: data peaked at 448 MB there). Asked for with :data:`SMALL_DATA_CONF`; a session over large
#: data keeps HotSpot's defaults (its hot loops earn the inlining, its large heaps G1's short pauses).
SMALL_DATA_JAVA_OPTIONS = ("-XX:FreqInlineSize=100 -XX:MaxInlineLevel=6 -XX:InlineSmallCode=1000 "
                           "-XX:+UseParallelGC")
#: A small-data session's driver heap (``spark.driver.memory``; what ``conf`` gives wins): room
#: for the parallel collector of :data:`SMALL_DATA_JAVA_OPTIONS`.
SMALL_DATA_DRIVER_MEMORY = "2g"

#: The executors' JVM options of a small-data session on a cluster (with a local master the
#: driver's JVM is the executor): HotSpot's client compiler only. An executor over tens of rows
#: a task spends much of its CPU compiling the task code's hot paths with C2, which its small
#: tasks never earn back, though it lives as long as the application. Measured, the suite's
#: areas against the Spark implementation on a standalone cluster of two 1-core workers
#: (``python -m spark_impl.on_cluster -- incspec conform --impl spark --area A``, the
#: executors' CPU summed from ``/proc``, one run each, quiet machine): fixpoint 91.9 -> 56.3 s
#: (wall 117 -> 97 s), zset 158.5 -> 119.5 s (the whole run's CPU 371 -> 332 s); every area
#: (the main job as CI runs it, 187 cases): wall 508 -> 469 s, the whole run's CPU 868 -> 792 s.
#: The parallel collector beside it changed nothing more (zset 116.5 s) and shrinks Spark's
#: share of a 1 GB heap (:data:`SMALL_DATA_JAVA_OPTIONS`): not taken. It replaces the value a
#: ``spark-defaults.conf`` gives; ``conf`` may set others.
SMALL_DATA_EXECUTOR_JAVA_OPTIONS = SHORT_LIVED_JAVA_OPTIONS

#: Settings every engine relies on, whatever the master: adaptive execution off
#: (it re-plans every round of an iterative job and reintroduces the shuffles
#: the engines avoid), Arrow for pandas conversions.
ENGINE_CONF: dict[str, str] = {
    "spark.sql.adaptive.enabled": "false",
    # A micro-batch runs for new input only, never for a watermark that moved alone: the only
    # watermark is a sum or count view's generation (spark_impl/reduce/group_generations.py),
    # whose previous generation is evicted with the next input; so each micro-batch is a batch
    # of the caller's (a step, a published change set). Read when a query's thread starts.
    "spark.sql.streaming.noDataMicroBatches.enabled": "false",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    # A join on (src, dst) of a table hash partitioned by src shuffles only the
    # other side (the fixpoint engine's edges are partitioned once, by source).
    "spark.sql.requireAllClusterKeysForCoPartition": "false",
    # Keyed state lives in the Structured Streaming state store: RocksDB (point
    # lookups, state larger than memory; required by transformWithState), each
    # micro-batch committing a changelog of what it changed, not a snapshot.
    "spark.sql.streaming.stateStore.providerClass":
        "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider",
    "spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled": "true",
    # On (the default), every put and delete first reads the key (to count the store's rows
    # for the ``numRowsTotal`` metric, which nothing of the engines reads), and so does
    # every change replayed from a changelog when a store is loaded (a restart, the state
    # reader). Off, the reduce view over 2*10^6 rows (spark-builtin, 5 batches a size, one
    # run each, benchmarks.run --sizes 2000000): load 106 -> 63 s, 10^5-change batches
    # 8.2 -> 7.0 s, 10^6-change batches 68.0 -> 38.8 s (medians; max 186 -> 52 s). The stream
    # processors' sessions turn it back on (spark_impl/stream/runner.py: their benchmark
    # reports the state's rows).
    "spark.sql.streaming.stateStore.rocksdb.trackTotalNumberOfRows": "false",
    # Unbounded by default, each state store instance (one per operator, partition and
    # loaded version) holds its own block cache and write buffers in native memory, outside
    # the JVM heap and its limits: many partitions or views add up with no ceiling. Bounded,
    # an executor's instances share one cache and write buffer manager of
    # ``rocksdb.maxMemoryUsageMB`` (Spark's default 500 per executor; a local master: :func:`local_state_memory_mb`).
    "spark.sql.streaming.stateStore.rocksdb.boundedMemoryUsage": "true",
    # Each committed state version gets a unique id, recorded in the commit log, and a
    # load follows that lineage. With the default (1) a version's files are named by its
    # number alone: a refused micro-batch (SKIP-DEF-8) writes version N+1 before the
    # batch handler refuses it, the background maintenance may upload that as snapshot
    # N+1.zip, and the re-run of the emptied batch, writing only N+1.changelog, leaves it
    # there: every later load from the checkpoint (a restart, the state reader) then
    # started from the refused state (seen under load as a wrong view after a refusal;
    # tests/spark/test_refusal_snapshot.py forces it).
    "spark.sql.streaming.stateStore.checkpointFormatVersion": "2",
    # Generated code is cached by its text, 100 classes by default: an update's
    # rounds run more distinct stages than that, so each round would compile its
    # code again.
    "spark.sql.codegen.cache.maxEntries": "2048",
    # A kept table is replaced by a newer checkpoint at every update: the old one's files
    # are deleted once nothing refers to it any more (by default they stay forever).
    "spark.cleaner.referenceTracking.cleanCheckpoints": "true",
    # How long a Python worker waits for the JVM to answer its connection and
    # authentication (default 15 s). On a loaded machine the driver-side worker that
    # transformWithStateInPandas starts for every query timed out here
    # (CANNOT_OPEN_SOCKET), failing the query; the JVM's own wait for a worker to connect
    # back is fixed at 10 s, so what remains is retried (spark_impl.errors.transient).
    "spark.python.authenticate.socketTimeout": "120s",
    # On (the default), every pyspark.sql.functions call walks the Python stack for its
    # call site and sends it to the JVM (five Py4J round trips: the active session, a
    # setting, the origin set and cleared): an engine update builds hundreds of columns.
    # Off, a small fixpoint update (a chain of 20 restored, cut and hung back) made 1.66x
    # fewer Py4J calls (21,415 -> 12,895) and spent 1.64x less driver Python CPU; its wall
    # time did not move (16.8 s -> 16.5 s: the JVM's jobs are most of it); medians of 3,
    # benchmarks/driver_cost_bench.py. Spark's errors then lack the DataFrame call site.
    "spark.python.sql.dataFrameDebugging.enabled": "false",
    # Past this many paths Spark lists files with a job (default 32). A stepped view's file
    # source (spark_impl/reduce/view_runner.py) lists every batch's files at each look for
    # new input, every 10 ms while idle: past 32 files an idle view ran a listing job per
    # look (14-18 jobs in 2 s after 40 steps), taking the cores from whatever ran beside
    # it. The engines' reads name few paths; listed on the driver, none runs a job.
    "spark.sql.sources.parallelPartitionDiscovery.threshold": "1000000",
}

#: Quiet logs from the first line: the JVM reads this before Spark starts.
LOG4J2 = """rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
# A refused micro-batch (SKIP-DEF-8) fails its task and query on purpose; the error
# reaches the caller as an exception (the pipeline reports it in one line), so the
# executor's and the query's own ERROR logs of it would only repeat it as stack traces.
logger.executor.name = org.apache.spark.executor.Executor
logger.executor.level = off
logger.tasks.name = org.apache.spark.scheduler.TaskSetManager
logger.tasks.level = off
logger.streaming.name = org.apache.spark.sql.execution.streaming
logger.streaming.level = off
logger.writer.name = org.apache.spark.sql.execution.datasources.FileFormatWriter
logger.writer.level = off
"""

#: Settings measured to suit small iterative jobs on 2 cores (see docs/ARCHITECTURE.md).
LOCAL_CONF: dict[str, str] = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "2",
    "spark.default.parallelism": "2",
    "spark.sql.adaptive.enabled": "false",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.driver.host": "127.0.0.1",
    "spark.sql.session.timeZone": "UTC",
}

#: the setting :func:`local_state_memory_mb` fills for a local master (unless given)
STATE_MEMORY = "spark.sql.streaming.stateStore.rocksdb.maxMemoryUsageMB"


def local_state_memory_mb(heap_mb: int) -> int:
    """The native memory the RocksDB state stores of a local master's executor share (in
    ``local[N]`` the driver's JVM): a third of its heap of ``heap_mb`` MB, at least 256 MB.
    Measured (the reduce view over 2*10^6 rows, 6 GB of driver heap, benchmarks.run --sizes
    2000000): with 256 MB a 10^6-change batch took 38.8 s, with 2048 MB 26.9 s, 10^5-change
    batches 7.0 -> 5.6 s, the load 63 -> 46 s; a budget that does not grow with the heap
    holds large batches back."""
    return max(256, heap_mb // 3)


def _local_executor_heap_mb(spark: Any, master: str) -> int:
    """The heap of a local master's executor: in ``local[N]`` the running driver JVM's (what
    it has, whatever a later builder asked for), in ``local-cluster`` the executors' setting."""
    if master.startswith("local-cluster"):
        return _megabytes(spark.sparkContext.getConf().get("spark.executor.memory", "1g"))
    return _max_heap_mb(spark._jvm)


def _max_heap_mb(jvm: Any) -> int:
    """The running JVM's heap limit (``-Xmx``, HotSpot's ``MaxHeapSize``), fixed for its life.
    Not ``Runtime.maxMemory()``: the parallel collector (:data:`SMALL_DATA_JAVA_OPTIONS`)
    reports that less one survivor space, whose size it changes as it runs, so a budget read
    from it depended on when it was read (606 MB at a session's start, 1,822 // 3 = 607 from a
    reading later in the same JVM). A JVM without HotSpot's diagnostic bean: ``maxMemory``."""
    try:
        bean = jvm.java.lang.management.ManagementFactory.getPlatformMXBean(
            jvm.java.lang.Class.forName("com.sun.management.HotSpotDiagnosticMXBean"))
        return int(bean.getVMOption("MaxHeapSize").getValue()) // (1024 * 1024)
    except Py4JError:
        return int(jvm.java.lang.Runtime.getRuntime().maxMemory()) // (1024 * 1024)


def _megabytes(size: str) -> int:
    """A JVM memory size as Spark writes it (``512m``, ``2g``, ``1t``; a bare number: MB)."""
    text = size.strip().lower().removesuffix("b")
    units = {"k": 1 / 1024, "m": 1, "g": 1024, "t": 1024 * 1024}
    if text and text[-1] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(text)


def _private_file(name: str, text: str, suffix: str = "", executable: bool = False) -> str:
    """A file of the temp folder holding ``text``, named by its digest (written aside, then
    renamed: another process may be reading it)."""
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    path = os.path.join(tempfile.gettempdir(), f"{name}-{digest}{suffix}")
    if not os.path.exists(path):
        aside = f"{path}.{os.getpid()}"
        with open(aside, "w", encoding="utf-8") as out:
            out.write(text)
        if executable:
            os.chmod(aside, 0o755)
        os.replace(aside, path)
    return path


def _log_config() -> str:
    return _private_file("incspec-log4j2", LOG4J2, ".properties")  # log4j reads the suffix


#: Spark puts ``pyspark.zip`` first on every Python worker's PYTHONPATH, and a zip holds no
#: compiled modules: each worker start would compile pyspark from source (about 4x the CPU
#: of the installed, compiled package), and on a loaded machine such a start can overrun
#: the 10 s Spark waits for a worker to connect back, failing the query (every streaming
#: query with a Python operator starts one on the driver). The launcher runs this interpreter
#: with the installed pyspark (the same version: the zip ships in its wheel) first.
#: The worker that transformWithStateInPandas starts on the driver for every query
#: (``-m`` :data:`TWS_DRIVER_WORKER`) talks to the JVM over a socket and prints four
#: progress lines per query to its standard output, which the JVM copies to the
#: application's standard error: hundreds of lines in a conformance run. Its standard
#: output is dropped; its errors still reach the JVM (standard error and the socket).
TWS_DRIVER_WORKER = "pyspark.sql.streaming.transform_with_state_driver_worker"
WORKER_LAUNCHER = """#!/bin/sh
export PYTHONPATH={site}${{PYTHONPATH:+:$PYTHONPATH}}
if [ "$1" = -m ] && [ "$2" = {quiet} ]; then exec {python} "$@" >/dev/null; fi
exec {python} "$@"
"""


def worker_launcher(quiet: str = TWS_DRIVER_WORKER) -> str:
    """The launcher script (:data:`WORKER_LAUNCHER`), the standard output of module ``quiet`` dropped."""
    import pyspark

    site = os.path.dirname(os.path.dirname(os.path.abspath(pyspark.__file__)))
    script = WORKER_LAUNCHER.format(site=shlex.quote(site), python=shlex.quote(sys.executable),
                                    quiet=shlex.quote(quiet))
    return _private_file("incspec-python-worker", script, executable=True)


def build_session(master: str | None = None, app_name: str = "incspec",
                  conf: dict[str, str] | None = None, small_data: bool = False) -> Any:
    """Get or create the process's SparkSession (one per process, never per test); a master
    ``sc://HOST:PORT`` (or none given and ``$SPARK_REMOTE`` set) is a Spark Connect server
    (:func:`connect_session`). ``small_data``: a session over small data, given
    :data:`SMALL_DATA_CONF` (what ``conf`` gives wins)."""
    if is_connect_url(master) or (not master and os.environ.get("SPARK_REMOTE")):
        return connect_session(master or os.environ["SPARK_REMOTE"], conf)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    master = master or os.environ.get("INCSPEC_SPARK_MASTER", DEFAULT_MASTER)
    if master.startswith("local"):  # the workers run here, with this interpreter
        os.environ.setdefault("PYSPARK_PYTHON", worker_launcher())
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.master(master).appName(app_name)
    settings = dict(ENGINE_CONF)
    local = master.startswith("local")
    if local:
        settings.update(LOCAL_CONF)
    if small_data:
        settings.update(SMALL_DATA_CONF)
    # the driver's logs (on a cluster the executors log as the cluster is configured)
    driver_options = f"-Dlog4j2.configurationFile=file:{_log_config()}"
    if small_data:
        driver_options += f" {SMALL_DATA_JAVA_OPTIONS}"
        settings["spark.driver.memory"] = SMALL_DATA_DRIVER_MEMORY
        if not local:
            settings["spark.executor.extraJavaOptions"] = SMALL_DATA_EXECUTOR_JAVA_OPTIONS
    if os.environ.get(SHORT_LIVED_ENV, "0") not in ("", "0"):
        driver_options += f" {SHORT_LIVED_JAVA_OPTIONS}"
        settings["spark.executor.extraJavaOptions"] = SHORT_LIVED_JAVA_OPTIONS
    settings["spark.driver.extraJavaOptions"] = driver_options
    settings.update(conf or {})
    # on a cluster, refused before any executor is requested
    location = None if local else checkpoint_dir(master)
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    jvm_lookups.pin(spark.sparkContext._jvm)
    if local and STATE_MEMORY not in (conf or {}):
        spark.conf.set(STATE_MEMORY, str(local_state_memory_mb(_local_executor_heap_mb(spark, master))))
    if not spark.sparkContext.getCheckpointDir():
        spark.sparkContext.setCheckpointDir(location or checkpoint_dir(master))
    if not local:
        _executor_python(spark)
        ship(spark)
    return spark


def connect_session(url: str, conf: dict[str, str] | None = None) -> Any:
    """A Spark Connect session on the server at ``url`` (``sc://HOST:PORT``), with the
    engines' settings a session may change (:data:`ENGINE_CONF`, then ``conf``); the rest (the
    state store's provider is one on some servers, the JVM's and the Python workers') are the
    server's own, given when it starts (``start-connect-server.sh --conf``). The server's
    Python workers run the ``foreachBatch`` functions, unpickled there: the project must be
    importable by the server's Python (docs/spark.md, "Spark Connect")."""
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.remote(url).getOrCreate()
    for key, value in {**ENGINE_CONF, **(conf or {})}.items():
        if spark.conf.isModifiable(key) and spark.conf.get(key, None) != value:
            spark.conf.set(key, value)
    return spark


def _executor_python(spark: Any) -> None:
    """Honour ``spark.pyspark.python`` (``conf``, ``spark-defaults.conf``) when ``PYSPARK_PYTHON``
    is not set. Only ``spark-submit`` reads that setting: a session started by a Python process
    (``python -m spark_impl.pipeline``) takes its workers' interpreter from ``PYSPARK_PYTHON``,
    else ``python3`` from each machine's path (seen on a standalone cluster: the fold
    reducers' Python workers failed on a ``python3`` without pandas)."""
    python = spark.sparkContext.getConf().get("spark.pyspark.python", None)
    if python and not os.environ.get("PYSPARK_PYTHON"):
        spark.sparkContext.pythonExec = python


def checkpoint_dir(master: str) -> str:
    """Where the engines' reliable checkpoints go: ``$INCSPEC_CHECKPOINT_DIR`` (a Hadoop URL
    every executor and the driver reach), else, on a local master, a fresh temp folder. On a
    cluster there is no default: a folder of the driver's disk would be written by each
    executor to its own local disk, and lost with it."""
    given = os.environ.get(CHECKPOINT_ENV)
    if given:
        return given
    if master.startswith("local"):
        return tempfile.mkdtemp(prefix="incspec-ckpt-")
    raise SparkEngineError("malformed-input",
                           f"on the cluster {master} the engines need {CHECKPOINT_ENV}: a location every "
                           "executor and the driver reach (hdfs://..., s3a://..., or a file:// folder "
                           "mounted at the same path on every machine), where their state is checkpointed")

