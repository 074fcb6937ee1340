"""The driver JVM's retained heap, as the benchmarks report it (benchmarks/measure.py)."""

from __future__ import annotations

from typing import Any

from benchmarks.measure import JvmHeap

MB = 2**20


def test_the_retained_heap_counts_what_the_jvm_holds(spark: Any) -> None:
    heap = JvmHeap(spark)
    gateway = spark.sparkContext._gateway
    before = heap.retained_bytes()
    held = gateway.new_array(gateway.jvm.long, 8 * MB)  # 64 MB, a JVM object the driver keeps
    try:
        holding = heap.retained_bytes()
        assert holding - before >= 64 * MB
        assert heap.max_bytes() >= holding
    finally:
        gateway.detach(held)
