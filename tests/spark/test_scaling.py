"""The scaling probes (:mod:`conformance.scaling`) against the Spark engine: its
zset steps, timed from outside, do not grow with the stored collection (a
recomputing engine's do: tests/conformance/test_scaling.py). The linear
operators' probes run in the default tier; the keyed operators' (distinct, join,
reduce: several Spark jobs a step) in the slow tier."""

from __future__ import annotations

from typing import Any

import pytest

from conformance import scaling
from conformance.adapters.in_process import InProcess

pytestmark = [pytest.mark.spark, pytest.mark.serial]  # it times the engine

LINEAR = ("map-filter", "map-plus")


@pytest.mark.parametrize("names", [
    pytest.param(LINEAR, id="linear"),
    pytest.param(tuple(p.name for p in scaling.PROBES if p.name not in LINEAR), id="keyed", marks=pytest.mark.slow),
])
def test_the_spark_engine_passes_the_scaling_probes(spark: Any, names: tuple[str, ...]) -> None:
    from spark_impl.conformance_adapter import implementation

    probes = [p for p in scaling.PROBES if p.name in names]
    assert len(probes) == len(names)
    results = scaling.run_probes(InProcess(implementation), scaling.SIZES, steps=5, repeats=3, probes=probes)
    assert [r.probe.name for r in results] == list(names)
    report = scaling.report(results)
    assert all(not r.problem and r.passed for r in results), report

