"""Hypothesis engine: random search with shrinking to a minimal counterexample.

Uses ``hypothesis.find``: generate instances of a law from the domains'
strategies until one fails (or the reducer raises on it), then shrink it. The
search is seeded, so a run is reproducible; no example database is written.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from hypothesis import HealthCheck, find, settings
from hypothesis import strategies as st
from hypothesis.errors import FailedHealthCheck, NoSuchExample, Unsatisfiable

from check_reducer.laws import LAWS, Law
from check_reducer.search import (
    EngineResult,
    Finding,
    Problem,
    Stopwatch,
    evaluate,
    found,
)

# BaseException, not Exception: Hypothesis treats an Exception from the condition as a
# failure to shrink, but lets a BaseException stop the search at once.


class _Abort(BaseException):
    """Stop the search at once (a call timed out: shrinking would re-run the hang)."""


class _OutOfTime(BaseException):
    """The search's time limit passed: stop generating."""


def strategy_for(law: Law, problem: Problem) -> st.SearchStrategy[dict[str, Any]]:
    n = problem.bounds.bag
    parts: dict[str, st.SearchStrategy[Any]] = {}
    for name, kind in law.params:
        if kind == "acc":
            parts[name] = problem.accumulators.strategy()
        elif kind == "value":
            parts[name] = problem.values.strategy()
        else:
            parts[name] = st.lists(problem.values.strategy(), max_size=n).map(tuple)
    return st.fixed_dictionaries(parts)


def check_law(law: Law, problem: Problem, examples: int, seed: int) -> EngineResult:
    clock = Stopwatch()
    counts = {"cases": 0, "declined": 0}
    timed_out: list[Finding] = []

    def breaks(args: Mapping[str, Any]) -> bool:
        if counts["cases"] > 0 and problem.out_of_time():  # always one instance
            raise _OutOfTime
        counts["cases"] += 1
        status, finding = evaluate(problem, law, args)
        if status == "declined":
            counts["declined"] += 1
        if status == "hung" and finding is not None:
            timed_out.append(finding)
            raise _Abort
        return found(status)

    searched = (f"up to {examples} generated examples (seed {seed}, shrinking on), "
                f"A = {problem.accumulators.spec}, V = {problem.values.spec}"
                + (f", multisets of size <= {problem.bounds.bag}"
                   if any(kind == "bag" for _, kind in law.params) else ""))
    config = settings(max_examples=examples, database=None, deadline=None,
                      suppress_health_check=list(HealthCheck), report_multiple_bugs=False)
    try:
        minimal = find(strategy_for(law, problem), breaks, settings=config,
                       random=random.Random(seed))
    except NoSuchExample:
        return EngineResult("hypothesis", law.key, "holds", searched, counts["cases"],
                            counts["declined"], False, clock.seconds())
    except (Unsatisfiable, FailedHealthCheck) as exc:
        return EngineResult("hypothesis", law.key, "skipped", searched, counts["cases"],
                            counts["declined"], False, clock.seconds(),
                            notes=[f"Hypothesis could not search: {type(exc).__name__}: {exc}"])
    except _OutOfTime:
        return EngineResult("hypothesis", law.key, "holds",
                            f"{searched}; stopped at the time limit",
                            counts["cases"], counts["declined"], False, clock.seconds())
    except _Abort:
        return EngineResult("hypothesis", law.key, "hung", searched, counts["cases"],
                            counts["declined"], False, clock.seconds(), timed_out[0],
                            ["stopped at the first call that timed out (not shrunk)"])
    status, finding = evaluate(problem, law, minimal)
    if not found(status):  # flaky: the reducer is not deterministic
        return EngineResult("hypothesis", law.key, "raised", searched, counts["cases"],
                            counts["declined"], False, clock.seconds(),
                            Finding(dict(minimal), error="NonDeterminism: the reducer gave a "
                                    "different answer when the same instance was re-run"))
    return EngineResult("hypothesis", law.key, status, searched, counts["cases"],
                        counts["declined"], False, clock.seconds(), finding)


def run(problem: Problem, examples: int, seed: int, laws: tuple[Law, ...] = LAWS) -> list[EngineResult]:
    return [check_law(law, problem, examples, seed) for law in laws]
