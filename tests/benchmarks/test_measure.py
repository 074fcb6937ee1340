"""The driver JVM's retained heap, as the benchmarks report it (benchmarks/measure.py)."""

from __future__ import annotations

from typing import Any

from benchmarks.measure import JvmHeap

MB = 2**20
ATTEMPTS = 3


def test_the_retained_heap_counts_what_the_jvm_holds(spark: Any) -> None:
    """A 64 MB array the driver holds shows in the retained heap. The JVM frees objects of
    its own between two readings (Python proxies released, the context cleaner), so one
    reading pair can show less than the array: it was seen at 54 MB once in a session
    shared with other tests. A measure blind to the array fails every attempt; one
    counting it shows the whole array in at least one of :data:`ATTEMPTS` pairs."""
    heap = JvmHeap(spark)
    gateway = spark.sparkContext._gateway
    grown: list[int] = []
    for _ in range(ATTEMPTS):
        before = heap.retained_bytes()
        held = gateway.new_array(gateway.jvm.long, 8 * MB)  # 64 MB, a JVM object the driver keeps
        try:
            holding = heap.retained_bytes()
            assert heap.max_bytes() >= holding
            grown.append(holding - before)
        finally:
            gateway.detach(held)
        if grown[-1] >= 64 * MB:
            return
    raise AssertionError(f"the retained heap grew by {[g // MB for g in grown]} MB, never 64 MB")
