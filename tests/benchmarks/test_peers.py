"""The peer engines run in child processes of their own environments (pathway, Apache Flink):
how each is found, skipped when it does not import, and (where installed) a tiny real run."""

from __future__ import annotations

import sys

import pandas as pd
import pytest

from benchmarks import engines
from benchmarks.workloads import ReduceWorkload


def test_peer_python_prefers_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INCSPEC_FLINK_PYTHON", "/nowhere/python")
    monkeypatch.setenv("INCSPEC_PATHWAY_PYTHON", "/elsewhere/python")
    assert engines.flink_python() == "/nowhere/python"
    assert engines.pathway_python() == "/elsewhere/python"


def test_a_missing_interpreter_is_a_stated_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INCSPEC_FLINK_PYTHON", "/nowhere/python")
    why = engines.flink_available()
    assert why is not None and "FileNotFoundError" in why
    assert engines.flink_version() is None


def test_an_interpreter_without_flink_says_what_failed(monkeypatch: pytest.MonkeyPatch) -> None:
    """This interpreter (the project's) has no PyFlink: the reason names the import that failed."""
    pytest.importorskip("pandas")
    try:
        import pyflink  # noqa: F401
        pytest.skip("PyFlink imports in the project's own environment")
    except ImportError:
        pass
    monkeypatch.setenv("INCSPEC_FLINK_PYTHON", sys.executable)
    why = engines.flink_available()
    assert why is not None and sys.executable in why and "pyflink" in why


def test_the_runner_skips_flink_with_its_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    from benchmarks import run

    """Runner's checks alone (no Spark session): Flink reported missing is skipped with the reason."""
    monkeypatch.setattr(engines, "flink_available", lambda: "no PyFlink here")
    runner = object.__new__(run.Runner)
    runner.__dict__.update(preset=run.PRESETS["quick"], selected={"flink-builtin", "flink-custom"},
                           pathway_missing=None, flink_missing=engines.flink_available())
    assert runner._wanted("flink-builtin", 10_000) == "PyFlink cannot be imported here: no PyFlink here"
    assert runner._wanted("flink-custom", 10_000) == "PyFlink cannot be imported here: no PyFlink here"
    assert runner._wanted("pathway-builtin", 10_000) == "not selected"
    assert "flink-builtin" in run.REDUCE_ENGINES and "flink-custom" in run.REDUCE_ENGINES


def test_the_child_request_names_workload_variant_and_batches() -> None:
    request = engines.peer_request(ReduceWorkload(100, 10), "custom", [(10, 2)])
    assert request == {"workload": {"rows": 100, "keys": 10, "skew": "uniform", "zipf_s": 1.1, "seed": 7},
                       "kind": "reduce", "variant": "custom", "schedule": [(10, 2)]}
    assert engines.FlinkPeer("custom").name == "flink-custom"


def test_a_failing_child_raises_with_its_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INCSPEC_FLINK_PYTHON", sys.executable)
    with pytest.raises(RuntimeError, match="flink child failed"):
        engines.FlinkPeer("nonsense").run(ReduceWorkload(100, 10), [(10, 1)])


def test_a_batch_file_is_removals_additions_then_the_marker() -> None:
    from benchmarks.flink_peer import batch_text, view_sql

    removed = pd.DataFrame({"id": [1], "k": [2], "v": [3]})
    added = pd.DataFrame({"id": [4], "k": [5], "v": [6]})
    lines = batch_text(removed, added, -7).splitlines()
    assert lines == ['{"before":{"id":1,"k":2,"v":3},"after":null,"op":"d"}',
                     '{"before":null,"after":{"id":4,"k":5,"v":6},"op":"c"}',
                     '{"before":null,"after":{"id":0,"k":-7,"v":0},"op":"c"}']
    assert "SUM(v)" in view_sql("builtin") and "sum_count(v)" in view_sql("custom")
    with pytest.raises(ValueError):
        view_sql("other")


FLINK_MISSING = engines.flink_available()


@pytest.mark.heavy
@pytest.mark.skipif(FLINK_MISSING is not None, reason=f"PyFlink not installed: {FLINK_MISSING}")
@pytest.mark.parametrize("variant", ["builtin", "custom"])
def test_flink_tiny_run_holds_what_the_generator_holds(variant: str) -> None:
    workload = ReduceWorkload(200, 20)
    out = engines.FlinkPeer(variant, timeout_s=600).run(workload, [(10, 2)])
    stream = workload.stream()
    stream.initial()
    stream.batch(10)
    stream.batch(10)
    assert out["stored"] == {"rows": 200.0, "keys": float(stream.live_keys())}
    assert [len(b["samples_s"]) for b in out["batches"]] == [2]
    assert out["version"] == engines.flink_version()
