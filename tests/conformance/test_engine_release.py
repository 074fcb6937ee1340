"""The driver releases every engine it is done with (:func:`conformance.driver.release`):
an engine's optional ``close()`` is called once when its case ends, whether it passed,
was refused or crashed, and once when a lockstep run ends. (A Spark reduce engine holds a
streaming query that, left running, polls its input for as long as the process lives.)"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.adapters.in_process import InProcess
from conformance.driver import run_case
from conformance.implementations import resolve
from conformance.loader import load_cases
from conformance.protocols import EngineError

REFERENCE = resolve("reference")
REDUCE = [c for c in load_cases() if c.area == "reduce"
          and c.steps[0].op == "declare" and all(s.op in ("load", "apply") for s in c.steps[1:])][:3]


class Counted:
    """The reference's reduce engine, counting its ``close()`` calls; ``crash`` makes its
    ``load`` raise (a crash, not a refusal), ``refuse`` makes its ``declare`` refuse."""

    def __init__(self, closed: list[int], crash: bool = False, refuse: bool = False) -> None:
        self.inner, self.closed, self.crash, self.refuse = REFERENCE.reduce_engine(), closed, crash, refuse

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def declare(self, reducer: str, params: Any) -> Any:
        if self.refuse:
            raise EngineError("malformed-input", "refused by the test")
        return self.inner.declare(reducer, params)

    def load(self, collection: Any) -> Any:
        if self.crash:
            raise RuntimeError("the engine crashed")
        return self.inner.load(collection)

    def close(self) -> None:
        self.closed.append(1)


class CountingImpl:
    """The reference, its reduce engines :class:`Counted`."""

    def __init__(self, **faults: bool) -> None:
        self.closed: list[int] = []
        self.faults = faults

    def __getattr__(self, name: str) -> Any:
        return getattr(REFERENCE, name)

    def reduce_engine(self) -> Counted:
        return Counted(self.closed, **self.faults)


@pytest.mark.parametrize("faults", [{}, {"crash": True}, {"refuse": True}], ids=["passes", "crashes", "refuses"])
def test_a_case_run_alone_closes_its_engine_once(faults: dict[str, bool]) -> None:
    impl = CountingImpl(**faults)
    result = run_case(impl, REDUCE[0])  # type: ignore[arg-type]
    assert result.status == ("errored" if faults.get("crash") else "result")
    assert impl.closed == [1]


class ClosingLockstep:
    """A lockstep engine that answers nothing (every case errored) and counts ``close()``."""

    work_per_case = True

    def __init__(self) -> None:
        self.closed = 0

    def admits(self, ops: Any) -> bool:
        return True

    def declare(self, batch: Any) -> dict[int, Any]:
        return {i: None for i in batch}

    def load(self, batch: Any) -> dict[int, Any]:
        return {}

    apply = load

    def close(self) -> None:
        self.closed += 1


def test_a_lockstep_run_closes_its_engine_once() -> None:
    engine = ClosingLockstep()

    class Offering(CountingImpl):
        def lockstep_engine(self, area: str) -> ClosingLockstep:
            return engine

    results = list(InProcess(Offering()).run(REDUCE))  # type: ignore[arg-type]
    assert [r.case_id for r in results] == [c.id for c in REDUCE]
    assert {r.status for r in results} == {"errored"}  # the engine gave no answer
    assert engine.closed == 1
