"""What a run measures besides wall time: peak memory, and the machine it ran on."""

from __future__ import annotations

import json
import os
import platform
import resource
import statistics
import subprocess
import sys
from importlib import metadata
from typing import Any


def summary(samples: list[float]) -> dict[str, float]:
    """Median, min and max of per-batch seconds."""
    if not samples:
        return {}
    return {"median_s": statistics.median(samples), "min_s": min(samples), "max_s": max(samples)}


# --- the Python process: peak resident set size ------------------------------------


def reset_rss_peak() -> None:
    """Reset the kernel's high-water mark of this process's RSS (Linux; else a no-op)."""
    try:
        with open("/proc/self/clear_refs", "w") as out:
            out.write("5")
    except OSError:
        pass


def rss_peak_bytes() -> int:
    """Peak RSS since the last :func:`reset_rss_peak` (VmHWM; else the lifetime peak)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


# --- the driver JVM: peak heap, through the py4j gateway ------------------------------


class JvmHeap:
    """Peak heap of the Spark driver JVM, bounded from above: the sum of the heap pools'
    peak usage, reset per series (each pool peaks at its own time, so the sum can exceed
    the heap's maximum; it is reported under that name).

    In ``local`` mode the executors share the driver JVM, so this is the whole
    engine's heap; with executors in JVMs of their own (``local-cluster``, a
    cluster) it is the driver's alone.
    """

    def __init__(self, jvm: Any) -> None:
        """The heap of the JVM behind a Py4J view (``gateway.jvm``)."""
        self.pools = [p for p in jvm.java.lang.management.ManagementFactory.getMemoryPoolMXBeans()
                      if str(p.getType().name()) == "HEAP"]
        self.runtime = jvm.java.lang.Runtime.getRuntime()

    @classmethod
    def of_session(cls, spark: Any) -> JvmHeap:
        """The heap of a SparkSession's driver JVM."""
        return cls(spark.sparkContext._jvm)

    def reset(self) -> None:
        for pool in self.pools:
            pool.resetPeakUsage()

    def peak_bytes(self) -> int:
        return int(sum(pool.getPeakUsage().getUsed() for pool in self.pools))

    def max_bytes(self) -> int:
        return int(self.runtime.maxMemory())

    def retained_bytes(self) -> int:
        """The heap in use just after a full collection (``System.gc()``): what the
        JVM holds on to, which is what grows if state accumulates in it. Untimed."""
        self.runtime.gc()
        return int(self.runtime.totalMemory() - self.runtime.freeMemory())


class JobCounter:
    """Spark jobs run between two marks: the newest job id in the driver's status store
    (jobs are numbered in order across the SparkContext), read after the listener bus
    has delivered every event so far. Both marks are taken outside the timed region."""

    def __init__(self, spark: Any) -> None:
        self.context = spark.sparkContext._jsc.sc()

    def mark(self) -> int:
        self.context.listenerBus().waitUntilEmpty()
        jobs = self.context.statusStore().jobsList(None)  # newest first
        return int(jobs.head().jobId()) if jobs.nonEmpty() else -1


def session_conf(master: str | None, driver_memory: str, executor_memory: str = "8g") -> dict[str, str]:
    """The benchmarks' Spark settings. ``master`` as for
    :func:`spark_impl.session.build_session`; with executors in JVMs of their own
    (``local-cluster[...]``, a cluster), the driver's heap is measured alone and the
    benchmark's own modules (a Python reducer) must be importable by the executors'
    Python workers, which start elsewhere. ``executor_memory`` is their heap (Spark's
    default, 1 GB, also in ``local-cluster``, whatever memory its workers offer)."""
    conf = {"spark.driver.memory": driver_memory}
    if master and not master.startswith("local["):
        conf["spark.executorEnv.PYTHONPATH"] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        conf["spark.executor.memory"] = executor_memory
    return conf


MASTER_HELP = ("Spark master URL (default: $INCSPEC_SPARK_MASTER or local[2]); local-cluster[1,2,MB] runs the "
               "executors in a JVM of their own, so the heap measured is the driver's alone "
               "(their heap: --executor-memory, at most the MB)")
EXECUTOR_MEMORY_HELP = "the executors' heap when they run in JVMs of their own (not in local[N] mode)"


# --- the machine ----------------------------------------------------------------------


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _mem_total_bytes() -> int | None:
    try:
        with open("/proc/meminfo") as info:
            for line in info:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def _git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             timeout=5, cwd=os.path.dirname(os.path.abspath(__file__)))
        return out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def machine(java_version: str | None = None) -> dict[str, Any]:
    """Cores, memory, load average, versions: recorded with every result."""
    return {
        "cores": os.cpu_count(),
        "memory_bytes": _mem_total_bytes(),
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "java": java_version,
        "versions": {d: _version(d) for d in ("pyspark", "pathway", "numpy", "pandas", "pyarrow",
                                              "matplotlib")},
        "commit": _git_commit(),
    }


def load_average() -> list[float] | None:
    return list(os.getloadavg()) if hasattr(os, "getloadavg") else None


def write_results(path: str | None, results: dict[str, Any]) -> None:
    """``results`` as a JSON file at ``path`` (nothing without a path)."""
    if path:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
