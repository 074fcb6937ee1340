"""A case's seconds in a report are its own run time, however the backend ran it: cases run
concurrently (the implementation's ``concurrency``) or together on a lockstep engine finish
in an order of their own, so the time between two results is no case's (a lockstep batch's
whole time was charged to its first case, and 0 s to the others)."""

from __future__ import annotations

import time
from typing import Any

from conformance.adapters.in_process import InProcess
from conformance.execute import execute
from conformance.loader import load_cases
from tests.conformance.test_engine_release import REDUCE, REFERENCE, ClosingLockstep, CountingImpl

PAUSE = 0.3  # seconds; sleep waits at least this long, however loaded the machine


class PausingLockstep(ClosingLockstep):
    """A lockstep engine whose ``declare`` takes at least :data:`PAUSE` seconds."""

    def declare(self, batch: Any) -> dict[int, Any]:
        time.sleep(PAUSE)
        return super().declare(batch)


def test_the_cases_of_a_lockstep_batch_share_its_time() -> None:
    class Offering(CountingImpl):
        def lockstep_engine(self, area: str) -> PausingLockstep:
            return PausingLockstep()

    _, outcomes = execute(InProcess(Offering()), REDUCE)  # type: ignore[arg-type]
    assert len(outcomes) == len(REDUCE) == 3
    assert all(o.seconds >= PAUSE / len(REDUCE) for o in outcomes), [o.seconds for o in outcomes]


def _one_per_reducer(n: int) -> list[Any]:
    """``n`` reduce cases of as many reducers (the first of each)."""
    by_reducer: dict[str, Any] = {}
    for case in load_cases():
        if case.area == "reduce" and case.steps[0].op == "declare" and not case.has_cost_checks():
            by_reducer.setdefault(case.steps[0].args["reducer"], case)
    return list(by_reducer.values())[:n]


class PausingEngine:
    """The reference's reduce engine, whose ``declare`` takes the seconds ``pauses`` gives its reducer."""

    def __init__(self, inner: Any, pauses: dict[str, float]) -> None:
        self.inner, self.pauses = inner, pauses

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def declare(self, reducer: str, params: Any) -> Any:
        time.sleep(self.pauses[reducer])
        return self.inner.declare(reducer, params)


def test_a_case_run_beside_others_is_charged_its_own_time() -> None:
    """Three cases at once: the first slow, the second fast, the third in between. The third's
    result waits for the first's, and the time since the first's result is not its own."""
    cases = _one_per_reducer(3)
    pauses = dict(zip([c.steps[0].args["reducer"] for c in cases], [2 * PAUSE, 0.0, PAUSE], strict=True))

    class Concurrent(CountingImpl):
        concurrency = 3

        def reduce_engine(self) -> PausingEngine:
            return PausingEngine(REFERENCE.reduce_engine(), pauses)

    _, outcomes = execute(InProcess(Concurrent()), cases)  # type: ignore[arg-type]
    assert [o.status for o in outcomes] == ["pass"] * 3, [o.message for o in outcomes]
    assert outcomes[0].seconds >= 2 * PAUSE and outcomes[2].seconds >= PAUSE, [o.seconds for o in outcomes]
