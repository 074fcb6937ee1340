"""Run selected cases on an implementation and judge every result.

The suite reaches an implementation through a *backend*
(:class:`conformance.adapters.Backend`): in process
(:mod:`conformance.adapters.in_process`) or a subprocess speaking the JSON-lines
protocol (:mod:`conformance.adapters.subprocess_impl`). Cases the implementation
does not support (area or feature missing from its handshake) are *not
supported*, never passed; a result is judged against the case's expectations and
cost bounds, and an expectations file turns a listed failure into ``xfail``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.adapters import Backend
from conformance.cases_model import Case
from conformance.compare import Difference, closest_difference, judge_cost
from conformance.protocols import CaseResult, Handshake

#: Outcome statuses. ``unsupported``: area or feature not declared; ``skipped``: the
#: implementation declined the case; ``xfail``/``xpass``: listed in the expectations file.
STATUSES = ("pass", "fail", "errored", "skipped", "unsupported", "xfail", "xpass")


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
        """The known failures of an expectations file (``{"known_failures": [{"id": ..., "reason":
        ...}, ...]}``); a file that cannot be read or is not one raises :class:`ExpectationsError`
        saying which and why, in one line."""
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            return Expectations({e["id"]: e["reason"] for e in raw.get("known_failures", ())})
        except OSError as exc:
            raise ExpectationsError(f"{path}: cannot be read: {exc.strerror or exc}") from None
        except json.JSONDecodeError as exc:
            raise ExpectationsError(f"{path}: not JSON: {exc}") from None
        except (AttributeError, KeyError, TypeError) as exc:
            raise ExpectationsError(f'{path}: not an expectations file ({{"known_failures": [{{"id": ..., '
                                    f'"reason": ...}}]}}): {type(exc).__name__}: {exc}') from None


class ExpectationsError(ValueError):
    """An expectations file that cannot be read or is not one."""


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
            # the backend's measure when it has one: with cases run concurrently or together, the
            # time between two results is no case's own
            seconds = now - started if result.seconds is None else result.seconds
            outcome = Outcome(case, status, verdict.cost, message, seconds, tuple(result.observations),
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
