"""Scaling probes: they time the engine from outside, so an engine that recomputes everything
fails them whatever it reports, and the reference (O(|Δ|) through linear operators) passes."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pytest

from conformance import conform, scaling
from conformance.adapters.in_process import InProcess
from conformance.cases_model import Case
from conformance.implementations import resolve
from conformance.protocols import CaseResult, EngineError, Handshake, WeightedRows
from reference.algebra import ZSet
from reference.differential.dataflow import (
    evaluate,
    initial_state,
    program_from_json,
    zset_from_rows,
    zset_to_rows,
)
from tests.differential.test_persistent_traces import whole_trace_step


class RecomputingZSet:
    """Right answers, the output recomputed from the whole input at each step (and the previous
    output subtracted): O(stored data) per step."""

    def __init__(self) -> None:
        self.program: Any = None
        self.inputs: dict[str, ZSet] = {}
        self.output = ZSet.zero()

    def build(self, program: Mapping[str, Any]) -> None:
        self.program = program_from_json(program)

    def step(self, inputs: Mapping[str, WeightedRows]) -> WeightedRows:
        for name, rows in inputs.items():
            self.inputs[name] = self.inputs.get(name, ZSet.zero()) + zset_from_rows(rows)
        now = evaluate(self.program.output, self.inputs, {}, self.program.max_iterations)
        delta, self.output = now - self.output, now
        return [(e, w) for e, w in zset_to_rows(delta)]


class WholeTraceZSet(RecomputingZSet):
    """The reference's differential step with join, distinct and reduce applied to whole
    traces, as before DD-DEC-PERSISTENT-TRACES: O(|Δ|) through linear operators, O(stored
    data) through those three."""

    def build(self, program: Mapping[str, Any]) -> None:
        super().build(program)
        self.state = initial_state()

    def step(self, inputs: Mapping[str, WeightedRows]) -> WeightedRows:
        deltas = {name: zset_from_rows(rows) for name, rows in inputs.items()}
        self.state, out = whole_trace_step(self.program, self.state, deltas)
        return [(e, w) for e, w in zset_to_rows(out)]


class Recomputing:
    def handshake(self) -> Handshake:
        return Handshake("recomputing", "0", areas=("zset",))

    def zset_engine(self) -> RecomputingZSet:
        return RecomputingZSet()

    def reduce_engine(self) -> None:
        return None

    def fixpoint_engine(self) -> None:
        return None

    def stream_engine(self) -> None:
        return None


class WholeTraces(Recomputing):
    def zset_engine(self) -> WholeTraceZSet:
        return WholeTraceZSet()


class CasesOnly:
    """A backend that is not in process: the probes can only time whole cases (as a subprocess's)."""

    def __init__(self, backend: InProcess) -> None:
        self.backend = backend

    def handshake(self) -> Handshake:
        return self.backend.handshake()

    def run(self, cases: Sequence[Case]) -> Iterator[CaseResult]:
        return self.backend.run(cases)

    def close(self) -> None:
        pass


SIZES = (100, 1_000, 10_000)


@pytest.mark.serial
def test_the_reference_passes_and_a_recomputing_engine_fails_in_process() -> None:
    reference = scaling.run_probes(InProcess(resolve("reference")), SIZES)
    assert reference and all(r.passed for r in reference), scaling.report(reference)
    recomputing = scaling.run_probes(InProcess(Recomputing()), SIZES)
    assert recomputing and not any(r.passed for r in recomputing), scaling.report(recomputing)
    assert all(r.growth > 3 * scaling.THRESHOLD for r in recomputing)
    assert "COST FAIL" in scaling.report(recomputing)


KEYED = ("distinct", "join", "reduce")


@pytest.mark.serial
def test_the_keyed_operators_probes_fail_an_engine_that_folds_whole_traces() -> None:
    """The probes of distinct, join and reduce tell a step that reads the keys of its change
    from one that folds the whole trace: the reference before its arrangements passes the
    linear probes and fails those three."""
    assert [p.name for p in scaling.PROBES if p.name in KEYED] == list(KEYED)
    results = {r.probe.name: r for r in scaling.run_probes(InProcess(WholeTraces()), SIZES)}
    report = scaling.report(list(results.values()))
    assert all(results[name].passed for name in ("map-filter", "map-plus")), report
    # failing is the claim; no margin beyond the threshold is (a whole-trace join measured
    # x19 from 100 to 10,000 elements: its step's fixed cost dominates at the smallest size)
    assert not any(results[name].passed for name in KEYED), report


def test_whole_cases_are_timed_by_their_least_disturbed_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """From whole cases a step's time is the difference of the least case times: two of three
    runs slowed by other work on the machine (the median's case) leave the verdict alone, while
    a step that really costs more shows in every run (scripted case times, in seconds)."""
    def scripted(full: list[float], base: list[float]) -> None:
        times = {True: iter(full), False: iter(base)}
        monkeypatch.setattr(scaling, "_seconds", lambda backend, case: (next(times[len(case.steps) > 1]), ""))

    probe = scaling.PROBES[0]
    scripted([0.50, 0.90, 0.91], [0.50, 0.50, 0.51])  # two runs of the case with changes slowed
    noisy, _ = scaling._step_from_cases(None, probe, 10_000, 100, 3)  # type: ignore[arg-type]
    assert noisy.step_seconds == 0.0 and noisy.resolution == pytest.approx(0.42 / 100)
    scripted([0.90, 0.95, 0.91], [0.50, 0.50, 0.51])  # every run of it 0.4 s longer: 4 ms a step
    growing, _ = scaling._step_from_cases(None, probe, 10_000, 100, 3)  # type: ignore[arg-type]
    assert growing.step_seconds == pytest.approx(0.4 / 100)


def test_a_cost_failure_stands_only_if_measuring_again_fails_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """Scripted measurements (step seconds at 100 and 10^4 elements): a failure then a pass is a
    pass; two failures are a failure, reported with the lesser growth; a pass is not measured again."""
    probe = scaling.PROBES[1]

    def scripted(*growths: float) -> list[float]:
        measured = iter(growths)
        calls: list[float] = []

        def measure(*args: object) -> scaling.ProbeResult:
            calls.append(growth := next(measured))
            timings = (scaling.Timing(100, 1e-3), scaling.Timing(10_000, growth * 1e-3))
            return scaling.ProbeResult(probe, timings, scaling.THRESHOLD)

        monkeypatch.setattr(scaling, "_measure", measure)
        return calls

    calls = scripted(12.5, 0.3)
    assert scaling.run_probe(None, probe).passed and calls == [12.5, 0.3]  # type: ignore[arg-type]
    calls = scripted(40.0, 30.0)
    result = scaling.run_probe(None, probe)  # type: ignore[arg-type]
    assert not result.passed and result.growth == pytest.approx(30.0) and calls == [40.0, 30.0]
    calls = scripted(0.3)
    assert scaling.run_probe(None, probe).passed and calls == [0.3]  # type: ignore[arg-type]


@pytest.mark.serial
def test_timed_from_whole_cases_the_verdicts_are_the_same() -> None:
    reference = scaling.run_probes(CasesOnly(InProcess(resolve("reference"))), SIZES, steps=100)
    assert all(r.passed for r in reference), scaling.report(reference)
    recomputing = scaling.run_probes(CasesOnly(InProcess(Recomputing())), SIZES, steps=100)
    assert not any(r.passed for r in recomputing), scaling.report(recomputing)


class ReduceOnly(Recomputing):
    def handshake(self) -> Handshake:
        return Handshake("reduce-only", "0", areas=("reduce",))


class Refusing(RecomputingZSet):
    def step(self, inputs: Mapping[str, WeightedRows]) -> WeightedRows:
        raise EngineError("unsupported")


class RefusingImpl(Recomputing):
    def zset_engine(self) -> Refusing:
        return Refusing()


def test_an_engine_without_the_zset_area_is_not_probed_and_a_refusing_one_is_not_judged() -> None:
    assert scaling.run_probes(InProcess(ReduceOnly()), SIZES) == []
    assert "none" in scaling.report([])
    refused = scaling.run_probes(InProcess(RefusingImpl()), SIZES)
    assert refused and all(r.problem == "size 100: error unsupported" and not r.passed for r in refused)
    assert "not judged: size 100: error unsupported" in scaling.report(refused)


@pytest.mark.serial
def test_the_command_line_flag_runs_the_probes(capsys: pytest.CaptureFixture[str]) -> None:
    assert conform.main(["--impl", "reference", "--scaling", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "scaling probes (zset)" in out and "COST FAIL" not in out
    assert all(f"  {p.name:<11} ok" in out for p in scaling.PROBES) and len(scaling.PROBES) == 5
