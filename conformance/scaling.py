"""Scaling probes: cost conformance that does not take the engine's word (``--scaling``).

The cost columns read the work counters an engine reports about itself. A probe instead times
the engine from outside: the same small change applied to a collection of growing size
(``n``, ``10 n``, ``100 n``), each step timed through the ordinary backend (in process or a
subprocess speaking the protocol). The paper's algorithm handles a change in time that depends on
the change, not on what is stored (DD-CLAIM-RULE-*); an engine whose step time grows with the
stored size is a cost failure, whatever its counters say.

Only the ``zset`` area is probed, where an observation is the output delta, as small as the
change, while a reduce or fixpoint observation carries the whole view or live set, so its step
time grows with the data by the protocol's own doing. The probes go through the linear operators
(``map``, ``filter``, ``plus``, ``negate``: a change passes through) and through ``distinct``,
``join`` and ``reduce``, which read the trace of what came before: by the key of the change, in
the paper's algorithm, and in the reference's (DD-DEC-PERSISTENT-TRACES: each input's trace
arranged by key, a step reading the keys it touches). Their programs keep each key's history as
small as the change (the elements added are fresh, so is each key, its group one value), so that
a step's time that grows with the stored collection is a step reading more than its keys: the
whole trace, or every key. (Before the arrangements the reference's own step folded whole traces
there, ``distinct`` ×330 from 100 to 30,000 elements, and these operators were not probed.)

Timing, from outside the engine: an in-process engine's ``step`` calls are timed one by one (the
median over the changes); a subprocess answers once per case, so a case that loads the collection
and then makes ``steps`` changes is timed against the same case without the changes, each run
``repeats`` times, and a step's time is the difference of the least times divided by ``steps``:
the least of a case's runs is the one least disturbed by other work on the machine (with medians,
two runs slowed by such work made the reference fail). Its resolution is the spread of those times
per step, below which step times are not told apart. Both ways, this process's garbage collector
is paused while a case runs, as ``timeit`` pauses it: a full collection walks every object of the
process, so one that fell inside a timed case would charge the whole process's size to the steps.
(The reference once failed the whole-case probe at the end of a long test session: map-plus at
10^4 elements, every run of the case with changes about 125 ms slower than without, about what a
full collection of two million objects costs, 0.15 s; not reproduced in a fresh process.)
The verdict divides the step time at the largest size by the one at the smallest, taken as at
least its resolution and ``NOISE_FLOOR``: a growth above ``threshold`` (default ×10, against the
×100 of the sizes) fails, if it fails again when measured anew (``ATTEMPTS``).
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from conformance import driver
from conformance.adapters import Backend
from conformance.adapters.in_process import InProcess
from conformance.cases_model import Case
from conformance.protocols import CaseResult, Implementation

SIZES = (100, 1_000, 10_000)
THRESHOLD = 10.0
#: Step times below this many seconds count as this (timer and scheduling noise).
NOISE_FLOOR = 1e-4
#: a probe that fails is measured again, this many measurements in all
ATTEMPTS = 2


@dataclass(frozen=True)
class Probe:
    """A program over one input ``a`` of integers: load ``n`` of them, then add one per step."""

    name: str
    program: dict[str, Any]
    claim: str

    def case(self, n: int, steps: int) -> Case:
        load = {"op": "step", "inputs": {"a": [[i, 1] for i in range(n)]}, "expect": {}}
        changes = [{"op": "step", "inputs": {"a": [[n + i, 1]]}, "expect": {}} for i in range(steps)]
        return Case.from_json({
            "id": f"zset.scaling-{self.name}-{n}-{steps}", "area": "zset", "level": "should",
            "description": f"scaling probe {self.name}", "cites": [], "features": [], "source": "generated",
            "setup": {"program": {"inputs": ["a"], "output": self.program}},
            "steps": [load, *changes]})


def _input() -> dict[str, Any]:
    return {"op": "input", "name": "a"}


def _dup() -> dict[str, Any]:
    """``x -> (x, x)``: each element its own key."""
    return {"op": "map", "fn": "dup", "arg": _input()}


PROBES = (
    Probe("map-filter", {"op": "filter", "pred": "even", "arg": {"op": "map", "fn": "inc", "arg": _input()}},
          "linear operators: a change passes through in O(|Δ|) (DD-CLAIM-RULE-LINEAR)"),
    Probe("map-plus", {"op": "plus", "left": {"op": "map", "fn": "double", "arg": _input()},
                       "right": {"op": "negate", "arg": _input()}},
          "map, negate, plus: O(|Δ|) (DD-CLAIM-RULE-LINEAR)"),
    Probe("distinct", {"op": "distinct", "arg": _input()},
          "distinct reads the keys of the change (DD-CLAIM-RULE-DISTINCT)"),
    Probe("join", {"op": "join", "left": _dup(), "right": _dup()},
          "join reads the keys of the change on each side (DD-CLAIM-RULE-JOIN)"),
    Probe("reduce", {"op": "reduce", "agg": "sum", "arg": _dup()},
          "reduce reads the keys of the change (DD-CLAIM-RULE-REDUCE)"),
)


@dataclass(frozen=True)
class Timing:
    size: int
    step_seconds: float
    resolution: float = NOISE_FLOOR  # step times this small are not told apart from noise

    @property
    def resolved(self) -> float:
        return max(self.step_seconds, self.resolution, NOISE_FLOOR)


@dataclass(frozen=True)
class ProbeResult:
    probe: Probe
    timings: tuple[Timing, ...]
    threshold: float
    problem: str = ""  # the engine errored or declined: no verdict

    @property
    def growth(self) -> float:
        return self.timings[-1].step_seconds / self.timings[0].resolved

    @property
    def passed(self) -> bool:
        return not self.problem and self.growth <= self.threshold


class _TimedZSet:
    """An engine's ``zset`` engine with each ``step`` call timed (the engine is not asked)."""

    def __init__(self, engine: Any, times: list[float]) -> None:
        self.engine, self.times = engine, times

    def build(self, program: Any) -> None:
        self.engine.build(program)

    def step(self, inputs: Any) -> Any:
        start = time.perf_counter()
        out = self.engine.step(inputs)
        self.times.append(time.perf_counter() - start)
        return out


class _Timed:
    """An in-process implementation whose zset steps are timed one by one."""

    def __init__(self, impl: Implementation) -> None:
        self.impl = impl
        self.times: list[float] = []

    def handshake(self) -> Any:
        return self.impl.handshake()

    def zset_engine(self) -> Any:
        engine = self.impl.zset_engine()
        return None if engine is None else _TimedZSet(engine, self.times)

    def reduce_engine(self) -> None:
        return None

    def fixpoint_engine(self) -> None:
        return None

    def stream_engine(self) -> None:
        return None


def _problem(results: Sequence[CaseResult]) -> str:
    bad = next((r for r in results if r.status != "result"), None)
    errors = [o for r in results for o in r.observations if isinstance(o, dict) and "error" in o]
    return (bad.message or bad.status) if bad else (f"error {errors[0]['error']}" if errors else "")


@contextmanager
def _collector_paused() -> Iterator[None]:
    """This process's garbage collector run, then paused until the block ends."""
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _step_in_process(impl: Implementation, case: Case) -> tuple[float, str]:
    timed = _Timed(impl)
    with _collector_paused():
        problem = _problem([driver.run_case(timed, case)])
    return statistics.median(timed.times[1:]) if len(timed.times) > 1 else 0.0, problem


def _seconds(backend: Backend, case: Case) -> tuple[float, str]:
    with _collector_paused():
        start = time.perf_counter()
        results = list(backend.run([case]))
        elapsed = time.perf_counter() - start
    return elapsed, _problem(results)


def _step_from_cases(backend: Backend, probe: Probe, n: int, steps: int, repeats: int) -> tuple[Timing, str]:
    """A step's time from whole cases, and its resolution: the spread of the case times per step."""
    full, base = [], []
    for _ in range(repeats):
        t_full, problem = _seconds(backend, probe.case(n, steps))
        t_base, problem_base = _seconds(backend, probe.case(n, 0))
        if problem or problem_base:
            return Timing(n, 0.0), problem or problem_base
        full.append(t_full)
        base.append(t_base)
    step = max(min(full) - min(base), 0.0) / steps
    spread = (max(full) - min(full) + max(base) - min(base)) / steps
    return Timing(n, step, spread), ""


def _measure(backend: Backend, probe: Probe, sizes: Sequence[int], steps: int, repeats: int,
             threshold: float) -> ProbeResult:
    timings: list[Timing] = []
    for n in sizes:
        if isinstance(backend, InProcess):
            runs = [_step_in_process(backend.impl, probe.case(n, steps)) for _ in range(repeats)]
            timing, problem = Timing(n, statistics.median(t for t, _ in runs)), next((p for _, p in runs if p), "")
        else:
            timing, problem = _step_from_cases(backend, probe, n, steps, repeats)
        if problem:
            return ProbeResult(probe, tuple(timings), threshold, f"size {n}: {problem}")
        timings.append(timing)
    return ProbeResult(probe, tuple(timings), threshold)


def run_probe(backend: Backend, probe: Probe, sizes: Sequence[int] = SIZES, steps: int = 20,
              repeats: int = 3, threshold: float = THRESHOLD, attempts: int = ATTEMPTS) -> ProbeResult:
    """The probe measured; a cost failure is measured again, up to ``attempts`` times in all,
    and stands only if every measurement fails (the least growth is reported): a step whose
    cost grows with the stored data shows in every measurement, a disturbance of the machine
    seldom in all of them."""
    result = _measure(backend, probe, sizes, steps, repeats, threshold)
    for _ in range(attempts - 1):
        if result.passed or result.problem:
            break
        again = _measure(backend, probe, sizes, steps, repeats, threshold)
        result = again if again.problem or again.growth < result.growth else result
    return result


def run_probes(backend: Backend, sizes: Sequence[int] = SIZES, steps: int = 20, repeats: int = 3,
               threshold: float = THRESHOLD, progress: Callable[[str], None] | None = None,
               probes: Sequence[Probe] = PROBES) -> list[ProbeResult]:
    """``probes`` (default: every one) against ``backend``; none for an engine without the zset area."""
    if "zset" not in backend.handshake().areas:
        return []
    results = []
    for probe in probes:
        if progress:
            progress(probe.name)
        results.append(run_probe(backend, probe, sizes, steps, repeats, threshold))
    return results


def report(results: Sequence[ProbeResult]) -> str:
    if not results:
        return "scaling probes: none (the implementation does not declare the zset area)\n"
    lines = ["scaling probes (zset): median step time as the stored collection grows; "
             f"a growth above ×{results[0].threshold:g} from the smallest to the largest size fails "
             f"(step times under {NOISE_FLOOR * 1e3:g} ms, or under the spread of the timings, count as that)",
             ""]
    for r in results:
        sizes = ", ".join(f"n={t.size}: {t.step_seconds * 1e3:.3f} ms"
                          + (f" (spread {t.resolution * 1e3:.3f} ms)" if t.resolution > NOISE_FLOOR else "")
                          for t in r.timings)
        verdict = (f"not judged: {r.problem}" if r.problem
                   else f"{'ok' if r.passed else 'COST FAIL'}: ×{r.growth:.1f}")
        lines.append(f"  {r.probe.name:<11} {verdict}  ({sizes}; claim: {r.probe.claim})")
    return "\n".join(lines) + "\n"
