"""What every search engine shares: the problem, guarded evaluation, the result.

The user's reducer is arbitrary code: it is called with value semantics
(:mod:`check_reducer.purity`), each evaluation of a law instance runs under a
per-call time limit (a Python-level hang becomes a finding that names the call
of add or remove that hung, with its arguments), and any exception it raises is
caught and reported with that call and the law's instance.
"""

from __future__ import annotations

import math
import signal
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal, TypeGuard

from check_reducer.domains import Domain
from check_reducer.laws import DECLINED, Equality, Law, Sides
from check_reducer.purity import Call, CallTimeout, ReducerCallFailed, describe_error, guarded
from reference.reduce import Reducer

Status = Literal["holds", "fails", "raised", "hung", "skipped"]

#: the statuses of an instance (and of an engine's search) that end the search of a law
FOUND = ("fails", "raised", "hung")
Found = Literal["fails", "raised", "hung"]


def found(status: str) -> TypeGuard[Found]:
    """Whether an instance's status ends the search of its law (a counterexample, a raise, a hang)."""
    return status in FOUND

__all__ = ["CallTimeout", "describe_error"]  # re-exported for the engines


@dataclass(frozen=True)
class Bounds:
    """Sizes of the multisets the engines build (SKIP-DEF-7's M, SKIP-DEF-11's C(k) and Δ)."""

    bag: int = 3  # |M| for SKIP-DEF-7 and each of |M0|, |D|, |P| for SKIP-DEF-11 (Hypothesis, CrossHair)
    exhaustive_total: int = 3  # |M0| + |D| + |P| <= this in the exhaustive SKIP-DEF-11 search
    exhaustive_cap: int = 20_000  # instances per law in the exhaustive engine


@dataclass(frozen=True)
class Problem:
    """One reducer with its domains, under one notion of equality."""

    R: Reducer[Any, Any]
    values: Domain
    accumulators: Domain
    equality: Equality
    bounds: Bounds
    call_timeout: float = 2.0  # seconds per law instance
    deadline: float = math.inf  # time.monotonic() after which the engines stop searching

    def __post_init__(self) -> None:
        # value semantics for every call of the user's add/remove (idempotent)
        object.__setattr__(self, "R", guarded(self.R))

    def out_of_time(self) -> bool:
        return time.monotonic() > self.deadline


@dataclass(frozen=True)
class Finding:
    """A concrete instance on which a law fails, or on which the reducer raised."""

    args: Mapping[str, Any]
    sides: Mapping[str, Any] | None = None  # when the law fails
    error: str | None = None  # "ZeroDivisionError: division by zero", when it raised
    call: Call | None = None  # the call of add or remove that raised or hung
    hung: bool = False  # the error is the per-call time limit
    #: a multiset M with a = fold_⊕(ι, M), when the engine built the instance's a so
    built_from: tuple[Any, ...] | None = None

    def removing(self) -> bool:
        """Whether the call shown (the one that raised, or the change ``pure`` shows) is a
        remove: for ``pure`` only that call removes values from ``a``."""
        if self.call is not None:
            return self.call.function == "remove"
        return any("remove" in side for side in (self.sides or {}))


@dataclass
class EngineResult:
    """What one engine did for one law."""

    engine: str  # "exhaustive" | "hypothesis" | "crosshair"
    law: str  # Law.key
    status: Status
    searched: str  # exactly what was searched (bounds, examples, time)
    cases: int = 0
    declined: int = 0  # instances on which remove declined (vacuous)
    decided: bool = False  # the search covered the whole quantified domain
    seconds: float = 0.0
    finding: Finding | None = None
    notes: list[str] = field(default_factory=list)


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`CallTimeout` in the block after ``seconds`` (POSIX timers; main thread)."""
    if seconds <= 0:
        yield
        return

    def on_alarm(signum: int, frame: object) -> None:
        raise CallTimeout(f"no answer within the per-call time limit of {seconds} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def call_limited(problem: Problem, f: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """``f`` with each call under the per-call time limit (it raises :class:`CallTimeout`
    instead of hanging), for calls of the user's reducer outside :func:`evaluate`."""

    def limited(a: Any, v: Any) -> Any:
        with time_limit(problem.call_timeout):
            return f(a, v)

    return limited


#: the reference's check and the law's sides disagree on one instance: a reducer whose answers
#: change between calls, or accumulators whose == is not an equivalence, can cause this
INCONSISTENT = ("Inconsistent: the reference's check and the law's sides disagree on this "
                "instance (is the reducer deterministic, and is == on its accumulators an "
                "equivalence?)")

Evaluation = tuple[Literal["holds", "declined", "fails", "raised", "hung"], Finding | None]


def evaluate(problem: Problem, law: Law, args: Mapping[str, Any]) -> Evaluation:
    """Evaluate one instance of ``law``: holds, declined (vacuous), fails, raised or hung."""
    try:
        with time_limit(problem.call_timeout):
            outcome = law.evaluate(problem.R, args)
            by_reference = (law.reference_holds(problem.R, args)
                            if problem.equality.exact and law.reference_holds else None)
    except ReducerCallFailed as exc:
        return ("hung" if exc.hung else "raised"), Finding(
            dict(args), error=describe_error(exc.cause), call=exc.call, hung=exc.hung)
    except CallTimeout as exc:  # the limit struck outside add/remove (in the law's own folds)
        return "hung", Finding(dict(args), error=describe_error(exc), hung=True)
    except (Exception, RecursionError, MemoryError) as exc:
        return "raised", Finding(dict(args), error=describe_error(exc))
    if outcome == DECLINED:
        if by_reference is False:
            return "raised", Finding(dict(args), error=INCONSISTENT)
        return "declined", None
    assert isinstance(outcome, Sides)
    holds = (problem.equality if law.tolerant else Equality()).holds(outcome)
    if by_reference is not None and by_reference != holds:
        return "raised", Finding(dict(args), sides=outcome.as_dict(), error=INCONSISTENT)
    if holds:
        return "holds", None
    return "fails", Finding(dict(args), sides=outcome.as_dict())


class Stopwatch:
    def __init__(self) -> None:
        self.start = time.monotonic()

    def seconds(self) -> float:
        return round(time.monotonic() - self.start, 3)
