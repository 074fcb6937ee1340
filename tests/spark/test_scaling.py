"""The scaling probes (:mod:`conformance.scaling`) against the Spark engine: its
zset steps, timed from outside, do not grow with the stored collection (a
recomputing engine's do: tests/conformance/test_scaling.py)."""

from __future__ import annotations

from typing import Any

import pytest

from conformance import scaling
from conformance.adapters.in_process import InProcess

pytestmark = [pytest.mark.spark, pytest.mark.serial]  # it times the engine


def test_the_spark_engine_passes_the_scaling_probes(spark: Any) -> None:
    from spark_impl.conformance_adapter import implementation

    results = scaling.run_probes(InProcess(implementation), scaling.SIZES, steps=5, repeats=3)
    assert [r.probe.name for r in results] == [p.name for p in scaling.PROBES]
    report = scaling.report(results)
    assert all(not r.problem and r.passed for r in results), report
