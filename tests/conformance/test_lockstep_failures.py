"""The suite's driver when a lockstep call fails (:func:`conformance.driver.run_lockstep`):
the cases of that call leave the lockstep run and each runs alone, so a failure is
reported only for the cases whose own run fails, each with its own cause."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from conformance.cases_model import Case
from conformance.driver import run_case, run_lockstep
from conformance.implementations import resolve
from conformance.loader import load_cases
from conformance.protocols import CaseResult, EngineError

REFERENCE = resolve("reference")
CASES = [c for c in load_cases() if c.area == "reduce"
         and c.steps[0].op == "declare" and all(s.op in ("load", "apply") for s in c.steps[1:])][:6]


class PerTagLockstep:
    """A lockstep reduce engine made of one reference engine per tag, whose ``apply`` call
    raises whenever it carries ``crash_tag``."""

    work_per_case = True

    def __init__(self, crash_tag: int) -> None:
        self.engines: dict[int, Any] = {}
        self.crash_tag = crash_tag

    def admits(self, ops: Any) -> bool:
        return True

    def _each(self, method: str, batch: Mapping[int, tuple[Any, ...]]) -> dict[int, Any]:
        out: dict[int, Any] = {}
        for i, args in batch.items():
            engine = self.engines.setdefault(i, REFERENCE.reduce_engine())
            try:
                out[i] = getattr(engine, method)(*args)
            except EngineError as refusal:
                out[i] = refusal
        return out

    def declare(self, batch: Mapping[int, tuple[Any, ...]]) -> dict[int, Any]:
        return self._each("declare", batch)

    def load(self, batch: Mapping[int, tuple[Any, ...]]) -> dict[int, Any]:
        return self._each("load", batch)

    def apply(self, batch: Mapping[int, tuple[Any, ...]]) -> dict[int, Any]:
        if self.crash_tag in batch:
            raise RuntimeError("Python worker exited unexpectedly (crashed)")
        return self._each("apply", batch)


def alone_on_reference(case: Case) -> CaseResult:
    return run_case(REFERENCE, case)


def test_the_cases_of_a_failed_call_run_alone_and_get_their_own_results() -> None:
    assert len(CASES) == 6 and any(s.op == "apply" for s in CASES[0].steps)
    results = run_lockstep(PerTagLockstep(crash_tag=0), CASES, alone_on_reference)
    assert results == [run_case(REFERENCE, c) for c in CASES]
    assert all(r.status == "result" for r in results)


def test_only_the_case_whose_own_run_fails_is_errored() -> None:
    def alone(case: Case) -> CaseResult:  # the first case fails on its own too
        if case.id == CASES[0].id:
            return CaseResult(case.id, "errored", message="its own cause")
        return alone_on_reference(case)

    results = run_lockstep(PerTagLockstep(crash_tag=0), CASES, alone)
    assert [(r.status, r.message) for r in results] == [("errored", "its own cause")] + [("result", "")] * 5
    assert results[1:] == [run_case(REFERENCE, c) for c in CASES[1:]]


def test_without_a_way_to_run_alone_every_case_of_the_call_is_errored() -> None:
    results = run_lockstep(PerTagLockstep(crash_tag=0), CASES)
    in_call = [i for i, c in enumerate(CASES) if any(s.op == "apply" for s in c.steps)]
    assert in_call and all(results[i].status == "errored" and "crashed" in results[i].message
                           for i in in_call)


def test_an_undisturbed_lockstep_run_runs_nothing_alone() -> None:
    ran_alone: list[str] = []
    runs: Callable[[Case], CaseResult] = lambda c: ran_alone.append(c.id) or alone_on_reference(c)  # noqa: E731
    results = run_lockstep(PerTagLockstep(crash_tag=-1), CASES, runs)
    assert ran_alone == [] and results == [run_case(REFERENCE, c) for c in CASES]
