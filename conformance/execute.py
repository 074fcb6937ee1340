"""Run selected cases on an implementation and judge every result.

A *backend* is how the suite reaches an implementation: in process (an
:class:`~conformance.protocols.Implementation`) or a subprocess speaking the
JSON-lines protocol (:mod:`conformance.adapters.subprocess_impl`). Cases the
implementation does not support (area or feature missing from its handshake)
are *not supported*, never passed.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from conformance import driver
from conformance.cases_model import Case
from conformance.compare import Difference, closest_difference, judge_cost
from conformance.protocols import CaseResult, Handshake, Implementation, LockstepEngine

#: Outcome statuses. ``unsupported``: area or feature not declared; ``skipped``: the
#: implementation declined the case; ``xfail``/``xpass``: listed in the expectations file.
STATUSES = ("pass", "fail", "errored", "skipped", "unsupported", "xfail", "xpass")


class Backend(Protocol):
    def handshake(self) -> Handshake: ...

    def run(self, cases: Sequence[Case]) -> Iterator[CaseResult]:
        """Results in the order of ``cases`` (one per case)."""
        ...

    def close(self) -> None: ...


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

        return self._bounded(lambda: driver.run_lockstep(engine, cases, alone), cases)

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


@dataclass(frozen=True)
class Outcome:
    case: Case
    status: str
    cost: str = ""  # "ok" | "fail" | "n/a" | ""
    message: str = ""
    seconds: float = 0.0
    observations: Sequence[Any] = ()
    difference: Difference | None = None


@dataclass(frozen=True)
class Expectations:
    """Known failures of one implementation: case ID -> reason."""

    known_failures: Mapping[str, str] = field(default_factory=dict)

    @staticmethod
    def read(path: Path) -> Expectations:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return Expectations({e["id"]: e["reason"] for e in raw.get("known_failures", ())})


def unsupported_reason(case: Case, hs: Handshake) -> str:
    if case.area not in hs.areas:
        return f"area {case.area!r} not supported"
    missing = [f for f in case.features if f not in hs.features]
    return f"features not supported: {', '.join(missing)}" if missing else ""


@dataclass(frozen=True)
class Judgement:
    status: str
    cost: str = ""
    message: str = ""
    difference: Difference | None = None  # a failing result's first difference from its closest answer


def judge(case: Case, result: CaseResult) -> Judgement:
    """The status, cost verdict and message of one result. A case failing both its
    result and its cost bounds says both."""
    if result.status in ("skipped", "errored"):
        return Judgement(result.status, "", result.message)
    observations = list(result.observations)
    if not all(isinstance(o, Mapping) for o in observations):
        return Judgement("errored", "", "observations must be JSON objects")
    refused = next((i for i, o in enumerate(observations) if o.get("error") == "unsupported"), None)
    if refused is not None:
        return Judgement("skipped", "", f"step {refused}: the implementation reports the operation unsupported")
    try:
        verdict = closest_difference(case, observations)
        cost = judge_cost(case, observations)
    except (TypeError, ValueError, KeyError, IndexError) as exc:
        return Judgement("errored", "", f"malformed observation: {exc!r}")
    if verdict:
        also = f"; and cost: {cost.message}" if cost.status == "fail" else ""
        return Judgement("fail", cost.status, verdict.message + also, verdict.difference)
    return Judgement("pass", cost.status, cost.message)


def execute(
    backend: Backend,
    cases: Sequence[Case],
    expectations: Expectations | None = None,
    progress: Callable[[Outcome], None] | None = None,
) -> tuple[Handshake, list[Outcome]]:
    """Run ``cases`` on ``backend``; one outcome per case, in order."""
    hs = backend.handshake()
    known = (expectations or Expectations()).known_failures
    runnable = [c for c in cases if not unsupported_reason(c, hs)]
    started = time.perf_counter()
    ran = iter(backend.run(runnable))
    outcomes: list[Outcome] = []
    for case in cases:
        reason = unsupported_reason(case, hs)
        if reason:
            outcome = Outcome(case, "unsupported", message=reason)
        else:
            result = next(ran)
            now = time.perf_counter()
            verdict = judge(case, result)
            status, message = verdict.status, verdict.message
            if case.id in known:
                status = {"fail": "xfail", "errored": "xfail", "pass": "xpass"}.get(status, status)
                message = message or f"listed as a known failure: {known[case.id]}"
            outcome = Outcome(case, status, verdict.cost, message, now - started, tuple(result.observations),
                              verdict.difference)
            started = now
        outcomes.append(outcome)
        if progress:
            progress(outcome)
    return hs, outcomes


def exit_status(outcomes: Sequence[Outcome]) -> int:
    """1 if any ``must`` case failed or errored, or a known failure passed; else 0."""
    bad = any(o.status in ("fail", "errored") and o.case.level == "must" for o in outcomes)
    stale = any(o.status == "xpass" for o in outcomes)
    return 1 if bad or stale else 0
