"""The scaling probes (:mod:`conformance.scaling`) against the Spark engine: its
zset steps, timed from outside, do not grow with the stored collection (a
recomputing engine's do: tests/conformance/test_scaling.py). The linear
operators' probes run in the default tier; the keyed operators' (distinct, join,
reduce: several Spark jobs a step) in the slow tier, as do the reduce and fixpoint probes
(changes-only observations, the feature ``changes-only``)."""

from __future__ import annotations

from typing import Any

import pytest

from conformance import driver, scaling
from conformance.adapters.in_process import InProcess
from conformance.implementations import resolve

pytestmark = pytest.mark.spark

LINEAR = ("map-filter", "map-plus")
#: The command line's smallest and largest sizes. A verdict reads only these two
#: (``ProbeResult.growth``); the sizes between them show the curve, not asserted here, and a
#: Spark case of any size costs seconds.
ENDS = (scaling.SIZES[0], scaling.SIZES[-1])


@pytest.mark.serial  # it times the engine: alone, so that no other test skews it
@pytest.mark.parametrize("names", [
    pytest.param(LINEAR, id="linear"),
    pytest.param(tuple(p.name for p in scaling.PROBES if p.name not in LINEAR), id="keyed", marks=pytest.mark.slow),
])
@pytest.mark.heavy
def test_the_spark_engine_passes_the_scaling_probes(spark: Any, names: tuple[str, ...]) -> None:
    from spark_impl.conformance_adapter import implementation

    probes = [p for p in scaling.PROBES if p.name in names]
    assert len(probes) == len(names)
    results = scaling.run_probes(InProcess(implementation), ENDS, steps=5, repeats=3, probes=probes)
    assert [r.probe.name for r in results] == list(names)
    report = scaling.report(results)
    assert all(not r.problem and r.passed for r in results), report



@pytest.mark.parametrize("probe", scaling.CHANGES_PROBES, ids=lambda p: p.name)
@pytest.mark.heavy
def test_the_spark_engine_answers_a_changes_only_case_as_the_reference_does(
        spark: Any, probe: scaling.AnyProbe, monkeypatch: pytest.MonkeyPatch) -> None:
    """Asked for changes only, its reduce and fixpoint adapters answer the changes (computed by
    the Spark engine) and nothing else, the reference's observations, and read the whole view
    or live set back from Spark at most once, for the load, not at each of the 4 changes."""
    from spark_impl.conformance_adapter import implementation
    from spark_impl.fixpoint.reachability import StoredTable
    from spark_impl.protocol.reduce import SparkReduceEngine

    reads: list[str] = []

    def counted(name: str, whole: Any) -> Any:
        def read(self: Any, *args: Any) -> Any:
            reads.append(name)
            return whole(self, *args)
        return read

    for cls, name in ((SparkReduceEngine, "read_view"), (StoredTable, "collect_rows")):
        monkeypatch.setattr(cls, name, counted(name, getattr(cls, name)))
    assert scaling.CHANGES_ONLY in implementation.handshake().features
    case = probe.case(6, 4)
    spark_run = driver.run_case(implementation, case)
    assert spark_run.status == "result", spark_run.message
    observed = [{k: v for k, v in o.items() if k != "work"} for o in spark_run.observations]
    expected = [{k: v for k, v in o.items() if k != "work"}
                for o in driver.run_case(resolve("reference"), case).observations]
    assert observed == expected and not any({"view", "current", "ranks"} & o.keys() for o in observed)
    assert len(reads) <= 1, reads


@pytest.mark.slow
@pytest.mark.serial  # it times the engine
@pytest.mark.parametrize("probe", scaling.CHANGES_PROBES, ids=lambda p: p.name)
@pytest.mark.heavy
def test_the_spark_engine_under_the_reduce_and_fixpoint_probes(spark: Any, probe: scaling.AnyProbe) -> None:
    """Its reduce and fixpoint steps, observed by their changes, do not grow with the stored
    keys or edges (passed: reduce-sum in 222 s, reach-edge in 653 s, on 2 cores with a load
    average of 10 to 14; ``-rA`` shows the timings)."""
    from spark_impl.conformance_adapter import implementation

    results = scaling.run_probes(InProcess(implementation), ENDS, steps=5, repeats=3, probes=[probe])
    print(scaling.report(results))
    assert [r.probe for r in results] == [probe]
    assert not results[0].problem and results[0].passed, scaling.report(results)
