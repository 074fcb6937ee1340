"""Shrinking a counterexample: simpler values on which the law still fails.

CrossHair's counterexamples are whatever its solver happened to build (a string such as
``'\\x02\\x00\\x01;;<;'``); the exhaustive engine's come smallest first and Hypothesis
shrinks its own. :func:`shrink` makes a greedy pass over the arguments: for each in turn it
tries simpler values of the same domain (0 and halves for numbers, shorter strings and
containers, simpler elements) and keeps the first on which the law still fails the same
way (or the reducer still raises), until no candidate helps or the budget is spent. Every
candidate is simpler by one measure (the length of its ``repr``, then the ``repr``), so the
pass ends.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Mapping
from fractions import Fraction
from typing import Any

from check_reducer.domains import Domain
from check_reducer.laws import Law
from check_reducer.search import Finding, Problem, evaluate

#: at most this many re-evaluations of the law, and this many seconds, per shrink
MAX_TRIES = 400
MAX_SECONDS = 5.0


def cost(x: Any) -> tuple[int, str]:
    """How complicated a value looks: the length of its repr, then the repr."""
    text = repr(x)
    return len(text), text


def simpler(x: Any) -> Iterator[Any]:
    """Candidates simpler than ``x``, simplest first (each may still be rejected)."""
    if isinstance(x, bool):
        if x:
            yield False
    elif isinstance(x, int):
        yield from (0, x // 2 if x > 0 else -(-x // 2), x - 1 if x > 0 else x + 1, -x)
    elif isinstance(x, float):
        if math.isfinite(x):
            yield from (0.0, float(round(x)), x / 2)
    elif isinstance(x, Fraction):
        yield from (Fraction(0), Fraction(round(x)))
    elif isinstance(x, str):
        yield ""
        yield from (x[:i] + x[i + 1:] for i in range(len(x)))
        yield from (x[:i] + "a" + x[i + 1:] for i in range(len(x)) if x[i] != "a")
    elif type(x) in (tuple, list):
        build = type(x)
        yield from (build(x[:i] + x[i + 1:]) for i in range(len(x)))
        for i, item in enumerate(x):
            yield from (build([*x[:i], y, *x[i + 1:]]) for y in simpler(item))
    elif type(x) in (frozenset, set):
        yield from (type(x)(y for y in x if y != item) for item in x)
    elif type(x) is dict:
        yield from ({k: v for k, v in x.items() if k != key} for key in x)
        for key, value in x.items():
            yield from ({**x, key: y} for y in simpler(value))


def _in_domain(kind: str, x: Any, problem: Problem) -> bool:
    domain: Domain = problem.accumulators if kind == "acc" else problem.values
    if kind == "bag":
        return all(domain.contains(y) is not False for y in x)
    return domain.contains(x) is not False


def shrink(problem: Problem, law: Law, finding: Finding) -> Finding:
    """``finding`` with each argument made as simple as it can be while ``law`` still fails
    the same way (the same status, ``fails`` or ``raised``) on the whole instance."""
    status, _ = evaluate(problem, law, finding.args)
    if status not in ("fails", "raised"):
        return finding
    best, args = finding, dict(finding.args)
    kinds = dict(law.params)
    tries, stop = 0, time.monotonic() + MAX_SECONDS
    improved = True
    while improved:
        improved = False
        for name in list(args):
            for candidate in simpler(args[name]):
                if tries >= MAX_TRIES or time.monotonic() > stop or problem.out_of_time():
                    return best
                if cost(candidate) >= cost(args[name]) or not _in_domain(
                        kinds.get(name, "value"), candidate, problem):
                    continue
                tries += 1
                trial: Mapping[str, Any] = {**args, name: candidate}
                got, found = evaluate(problem, law, trial)
                if got == status and found is not None:
                    args, best, improved = dict(trial), found, True
                    break
    return best
