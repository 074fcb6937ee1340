"""The driver JVM's retained heap, as the benchmarks report it (benchmarks/measure.py)."""

from __future__ import annotations

from typing import Any

from benchmarks.measure import JvmHeap

MB = 2**20
ATTEMPTS = 3
#: readings of the retained heap at most, waiting for it to settle before an attempt
SETTLE_READINGS = 10


def settled(heap: JvmHeap) -> int:
    """The retained heap once two readings in a row agree within 1 MB (at most
    :data:`SETTLE_READINGS`): a collection lets Spark's context cleaner release what only weak
    references held (the blocks, shuffles and checkpoints of RDDs the tests before dropped),
    and that is freed only by a later collection, so a JVM that ran Spark jobs gives back
    tens of MB over the next few readings (-33 MB twice in a row was seen after the heavy
    tier's tests, in the same JVM)."""
    last = heap.retained_bytes()
    for _ in range(SETTLE_READINGS - 1):
        now = heap.retained_bytes()
        if abs(now - last) < MB:
            return now
        last = now
    return last


def test_the_retained_heap_counts_what_the_jvm_holds(spark: Any) -> None:
    """A 64 MB array the driver holds shows in the retained heap. The JVM frees objects of
    its own between two readings (Python proxies released, the context cleaner), so one
    reading pair can show less than the array: it was seen at 54 MB once in a session
    shared with other tests. So each attempt starts from a settled heap (:func:`settled`).
    A measure blind to the array fails every attempt; one counting it shows the whole
    array in at least one of :data:`ATTEMPTS` pairs."""
    heap = JvmHeap(spark)
    gateway = spark.sparkContext._gateway
    grown: list[int] = []
    for _ in range(ATTEMPTS):
        before = settled(heap)
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
