"""The Spark lockstep engines (:mod:`spark_impl.protocol.lockstep`), driven by the
suite's one driver: cases run together (reduce and fixpoint in lockstep, one dataflow
per area; the others concurrently) give exactly the observations of separate runs."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.adapters.in_process import InProcess
from conformance.cases_model import Case
from conformance.driver import run_case

pytestmark = pytest.mark.spark


def case(case_id: str, area: str, setup: dict[str, Any], steps: list[dict[str, Any]]) -> Case:
    return Case.from_json({"id": case_id, "area": area, "setup": setup,
                           "steps": [{**s, "expect": {}} for s in steps]})


CASES = [
    case("r1", "reduce", {}, [{"op": "declare", "reducer": "sum", "params": {}},
                              {"op": "load", "collection": [["a", [1, 2]], ["b", [5]]]},
                              {"op": "apply", "plus": [["a", [100]]], "minus": [["b", [6]]]},
                              {"op": "apply", "plus": [], "minus": [["a", [1]]]}]),
    case("r2", "reduce", {}, [{"op": "declare", "reducer": "no-such", "params": {}},
                              {"op": "load", "collection": []}]),
    case("r3", "reduce", {}, [{"op": "declare", "reducer": "min", "params": {}},
                              {"op": "load", "collection": [["a", [3, 5]], ["b", [2]]]},
                              {"op": "apply", "plus": [], "minus": [["a", [3]]]},
                              {"op": "load", "collection": [["a", [9]]]}]),
    case("r4", "reduce", {}, [{"op": "declare", "reducer": "sum", "params": {}},
                              {"op": "load", "collection": [[["k", 1], [4]]]},
                              {"op": "apply", "plus": [[["k", 1], [1]]], "minus": []}]),
    case("f1", "fixpoint", {}, [{"op": "make", "roots": ["R"], "edges": [["R", "A"], ["A", "B"]]},
                                {"op": "apply", "remove_edges": [["R", "A"]]}]),
    case("f2", "fixpoint", {}, [{"op": "make", "roots": ["R"], "edges": [["R", "B"], ["R", "C"], ["C", "B"]]},
                                {"op": "apply", "remove_edges": [["R", "B"]]},
                                {"op": "apply", "add_edges": [["x"]]},
                                {"op": "apply", "remove_roots": ["R"], "add_roots": ["C"]}]),
    case("s1", "stream", {"processor": "prefix_sum", "params": {}}, [{"op": "run", "batches": [[1, 2], [3]]}]),
]

EXPECTED = {
    "r1": [{}, {"view": [["a", 3], ["b", 5]], "changes": [["a", 3], ["b", 5]]},
           {"error": "invalid-delta"}, {"view": [["a", 2], ["b", 5]], "changes": [["a", 2]]}],
    "r2": [{"error": "malformed-input"}],
    "r3": [{}, {"view": [["a", 3], ["b", 2]], "changes": [["a", 3], ["b", 2]]},
           {"view": [["a", 5], ["b", 2]], "changes": [["a", 5]]},
           {"view": [["a", 9]], "changes": [["a", 9], ["b", None]]}],
    "r4": [{}, {"view": [[["k", 1], 4]], "changes": [[["k", 1], 4]]},
           {"view": [[["k", 1], 5]], "changes": [[["k", 1], 5]]}],
    "f1": [{"current": ["A", "B", "R"], "added": ["A", "B", "R"], "removed": [],
            "ranks": [["A", 1], ["B", 2], ["R", 0]]},
           {"current": ["R"], "added": [], "removed": ["A", "B"], "ranks": [["R", 0]]}],
    "f2": [{"current": ["B", "C", "R"], "added": ["B", "C", "R"], "removed": [],
            "ranks": [["B", 1], ["C", 1], ["R", 0]]},
           {"current": ["B", "C", "R"], "added": [], "removed": [], "ranks": [["B", 2], ["C", 1], ["R", 0]]},
           {"error": "malformed-input"},
           {"current": ["B", "C"], "added": [], "removed": ["R"], "ranks": [["B", 1], ["C", 0]]}],
    "s1": [{"output": [1, 3, 6]}],
}


def semantic(observations: Any) -> list[dict[str, Any]]:
    """The observations without their work counters (tested in test_work_counters)."""
    return [{k: v for k, v in o.items() if k != "work"} for o in observations]


@pytest.mark.slow  # every case of an area run twice, lockstep and alone (the main job runs lockstep)
def test_lockstep_runs_equal_separate_runs(spark: Any) -> None:
    from spark_impl.conformance_adapter import implementation
    from spark_impl.protocol.lockstep import SparkLockstepFixpoint, SparkLockstepReduce
    from spark_impl.protocol.stream import SparkLockstepStream

    # the suite's runner: reduce, fixpoint and stream cases on lockstep engines, the others
    # (zset) concurrently
    assert isinstance(implementation.lockstep_engine("reduce"), SparkLockstepReduce)
    assert isinstance(implementation.lockstep_engine("fixpoint"), SparkLockstepFixpoint)
    assert isinstance(implementation.lockstep_engine("stream"), SparkLockstepStream)
    assert implementation.lockstep_engine("zset") is None
    together = list(InProcess(implementation).run(CASES))
    assert [r.case_id for r in together] == [c.id for c in CASES]
    for c, result in zip(CASES, together, strict=True):
        assert result.status == "result", result.message
        assert semantic(result.observations) == EXPECTED[c.id], c.id
    # and, for the cases the lockstep runs treat specially (a load replacing a
    # collection, a refused delta, stale ranks, a malformed edge), a separate run
    for c in CASES:
        if c.id in ("r1", "r3", "f2"):
            assert semantic(run_case(implementation, c).observations) == EXPECTED[c.id], c.id


def test_cases_refused_in_one_micro_batch_are_taken_out_together(spark: Any) -> None:
    """Two of three sum cases remove what they do not hold: both are answered
    ``invalid-delta`` from one refused micro-batch, and the third's delta is applied by the
    same micro-batch run again with its rows alone (one step, one committed micro-batch:
    before, a refusal cost an emptied micro-batch and a step of its own)."""
    from spark_impl.protocol.lockstep import _ReducerGroup

    group = _ReducerGroup(spark, "sum", {})
    steps: list[int] = []
    kept: list[int | None] = []
    step = group.runner.step

    def counted(rows: Any, retry: Any = None) -> None:
        def retried(refused: Any) -> Any:
            again = retry(refused)
            kept.append(None if again is None else again.count())
            return again

        steps.append(rows.count())
        step(rows, retry=retried)

    group.runner.step = counted  # type: ignore[method-assign]
    try:
        out: dict[Any, Any] = {}
        group.update({0: group.tagged(0, {"a": [1]}, -1), 1: group.tagged(1, {"a": [2]}, 1),
                      2: group.tagged(2, {"b": [3]}, -1)}, out)
        assert sorted(out) == [0, 2] and {e.error_class for e in out.values()} == {"invalid-delta"}
        assert steps == [3] and kept == [1]
        assert group.runner.fs.names(f"{group.runner.root}/checkpoint/commits") == ["0"]
        assert group.views() == {1: {"a": 2}}
    finally:
        group.runner.stop()
