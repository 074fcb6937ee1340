"""The in-process backend: an implementation's engines, driven by the suite's one driver."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

from conformance import driver
from conformance.cases_model import Case
from conformance.protocols import CaseResult, Handshake, Implementation, LockstepEngine


class InProcess:
    """An in-process implementation, through the suite's one driver (:mod:`conformance.driver`).

    Cases run one by one on fresh engines, except that, where the implementation
    offers a lockstep engine for an area (``lockstep_engine(area)``), the cases it
    admits run together on one. With ``concurrency`` > 1 (an attribute of the
    implementation) that many cases or lockstep batches run at once, each in its
    own thread. With a ``timeout``, a case (a batch: the timeout times its cases)
    still running after that many seconds is *errored* and abandoned (Python
    cannot stop the thread), and the run goes on with fresh engines.
    """

    def __init__(self, impl: Implementation, timeout: float | None = None) -> None:
        self.impl = impl
        self.timeout = timeout

    def _bounded(self, work: Callable[[], list[CaseResult]], cases: Sequence[Case]) -> list[CaseResult]:
        """``work``'s results, each charged an equal share of its time (a case run alone: all
        of it; cases run together on a lockstep engine: the batch's time over its cases)."""
        started = time.perf_counter()
        results = self._within_timeout(work, cases)
        share = (time.perf_counter() - started) / max(1, len(cases))
        return [dataclasses.replace(r, seconds=share) for r in results]

    def _within_timeout(self, work: Callable[[], list[CaseResult]], cases: Sequence[Case]) -> list[CaseResult]:
        if self.timeout is None:
            return work()
        box: list[list[CaseResult]] = []
        worker = threading.Thread(target=lambda: box.append(work()), daemon=True)
        worker.start()
        worker.join(self.timeout * len(cases))
        if not box:
            return [CaseResult(c.id, "errored", message=f"timed out after {self.timeout:g} s per case (the per-case timeout; --timeout to change it)")
                    for c in cases]
        return box[0]

    def _run_one(self, case: Case) -> list[CaseResult]:
        return self._bounded(lambda: [driver.run_case(self.impl, case)], [case])

    def _run_together(self, engine: LockstepEngine, cases: Sequence[Case]) -> list[CaseResult]:
        def alone(case: Case) -> CaseResult:  # a case whose lockstep call failed runs on its own
            return driver.run_case(self.impl, case)

        def together() -> list[CaseResult]:
            try:
                return driver.run_lockstep(engine, cases, alone)
            finally:
                driver.release(engine)

        return self._bounded(together, cases)

    def _lockstep_batches(self, cases: Sequence[Case]) -> list[tuple[LockstepEngine, list[Case]]]:
        offer: Callable[[str], LockstepEngine | None] | None = getattr(self.impl, "lockstep_engine", None)
        batches = []
        for area in dict.fromkeys(c.area for c in cases) if offer else ():
            engine = offer(area) if offer else None
            if engine is None:
                continue
            admitted = [c for c in cases if c.area == area and engine.admits([s.op for s in c.steps])
                        and (engine.work_per_case or not c.has_cost_checks())]
            if admitted:
                batches.append((engine, admitted))
        return batches

    def handshake(self) -> Handshake:
        return self.impl.handshake()

    def run(self, cases: Sequence[Case]) -> Iterator[CaseResult]:
        batches = self._lockstep_batches(cases)
        together = {c.id for _, batch in batches for c in batch}
        alone = [c for c in cases if c.id not in together]
        workers = max(1, int(getattr(self.impl, "concurrency", 1)))
        if workers == 1 and not batches:
            for case in alone:
                yield from self._run_one(case)
            return
        with ThreadPoolExecutor(max_workers=workers) as pool:
            pending: dict[str, Future[list[CaseResult]]] = {}
            for engine, batch in batches:
                future = pool.submit(self._run_together, engine, batch)
                pending.update({c.id: future for c in batch})
            pending.update({c.id: pool.submit(self._run_one, c) for c in alone})
            for case in cases:
                by_id = {r.case_id: r for r in pending[case.id].result()}
                yield by_id.get(case.id) or CaseResult(case.id, "errored", message="no result")

    def close(self) -> None:
        pass
