"""The driver JVM's retained heap, as the benchmarks report it (benchmarks/measure.py)."""

from __future__ import annotations

import glob
import os
from collections.abc import Iterator
from typing import Any

import pyspark
import pytest
from py4j.java_gateway import GatewayParameters, JavaGateway, launch_gateway

from benchmarks.measure import JvmHeap

MB = 2**20


@pytest.fixture
def quiet_jvm() -> Iterator[Any]:
    """A JVM of its own that runs nothing but Py4J's gateway server (the jar the pyspark wheel
    ships): no Spark threads that free or allocate between two readings. In the tests' Spark
    JVM the context cleaner, the listener bus and the state stores of earlier tests' queries
    do, and on a busy machine a reading pair there was seen to shrink by 34 MB while 64 MB
    were held. Here the heap changes only by what the test does, so the check below is
    exact, not a best of several tries."""
    jars = glob.glob(os.path.join(os.path.dirname(pyspark.__file__), "jars", "py4j-*.jar"))
    assert jars, "the pyspark wheel ships Py4J's jar"
    port, process = launch_gateway(classpath=jars[0], javaopts=["-Xmx256m"], die_on_exit=True,
                                   return_proc=True)
    gateway = JavaGateway(gateway_parameters=GatewayParameters(port=port))
    try:
        yield gateway
    finally:
        gateway.shutdown()
        process.kill()
        process.wait()


def test_the_retained_heap_counts_what_the_jvm_holds_and_no_longer_what_it_let_go(quiet_jvm: Any) -> None:
    """A 64 MB array the JVM holds shows whole in the retained heap, and once let go it is
    gone from it: the measure reads what is live after a full collection, neither the
    allocations since the last one (a measure blind to the array fails the first check) nor
    the peak (a measure that keeps the peak fails the second)."""
    heap = JvmHeap(quiet_jvm.jvm)
    before = heap.retained_bytes()
    held = quiet_jvm.new_array(quiet_jvm.jvm.long, 8 * MB)  # 64 MB, kept by the gateway for Python
    holding = heap.retained_bytes()
    assert heap.max_bytes() >= holding
    quiet_jvm.detach(held)
    released = heap.retained_bytes()
    assert holding - before >= 64 * MB, f"the retained heap grew by {(holding - before) / MB:.1f} MB"
    assert holding - released >= 64 * MB, f"it fell by {(holding - released) / MB:.1f} MB once let go"
