"""Scaling probes: cost conformance that does not take the engine's word (``--scaling``).

The cost columns read the work counters an engine reports about itself. A probe instead times
the engine from outside: the same small change applied to a collection of growing size
(``n``, ``10 n``, ``100 n``), each step timed through the ordinary backend (in process or a
subprocess speaking the protocol). The paper's algorithm handles a change in time that depends on
the change, not on what is stored (DD-CLAIM-RULE-*); an engine whose step time grows with the
stored size is a cost failure, whatever its counters say.

In the ``zset`` area an observation is the output delta, as small as the change; a reduce or
fixpoint observation carries the whole view or live set, so its step time grows with the data by
the protocol's own doing, unless the engine declares the feature ``changes-only``: then the probes
of those areas ask for changes-only observations (``"setup": {"observe": "changes"}``, see
:func:`conformance.driver.changes_only`), each step answering the keys whose accumulator changed
or the elements added and removed. An engine that does not declare it is not probed there (its
results say "not declared", not a pass). The reduce probe loads ``n`` keys of one value each and
changes one key per step, an existing one or a fresh one (SKIP-THM-3: an update costs the delta,
and the collection and view are persistent, SKIP-DEC-PERSISTENT-VIEW); the fixpoint probe builds
a binary tree of ``n`` edges from one root and adds or removes one edge from a leaf to a fresh
node per step, far from the rest of the graph (FIX-CLAIM-COMPLEXITY: the cost of the affected
region, the state persistent, FIX-DEC-PERSISTENT-STATE). In process, their ``apply`` calls are
timed (the ``load`` or ``make`` is not). A whole search of the graph per step is cheap, about
0.14 µs an edge in Python, so from 100 to 10^4 edges it measures ×14, near the threshold: a
recomputing engine is told apart surely from about 3 × 10^4 edges (the tests' sizes for it).
The ``zset`` probes go through the linear operators
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
and then makes ``steps`` changes (doubled until the changes take as long as the load: a small
step is a small difference of two case times) is timed against the same case without the
changes, each run ``repeats`` times, and a step's time is the difference of the least times
divided by the steps:
the least of a case's runs is the one least disturbed by other work on the machine (with medians,
two runs slowed by such work made the reference fail). Its resolution is the spread of those times
per step, below which step times are not told apart. Both ways, this process's garbage collector
is paused while a case runs, as ``timeit`` pauses it: a full collection walks every object of the
process, so one that fell inside a timed case would charge the whole process's size to the steps.
(The reference once failed the whole-case probe at the end of a long test session: map-plus at
10^4 elements, every run of the case with changes about 125 ms slower than without, about what a
full collection of two million objects costs, 0.15 s; not reproduced in a fresh process.)
The clock is wall time (``time.perf_counter``) unless the caller gives another: ``clock=
time.thread_time`` counts the CPU time of the calling thread alone, which other work on the
machine (or in this process) does not stretch; the tests time the reference and their toy
engines so, beside other tests. It does not count what another thread, a subprocess or a JVM
does, so it times only an engine that works in the caller's thread (in process, one case at
a time, no time limit: :class:`~conformance.adapters.in_process.InProcess`).
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
from typing import Any, ClassVar

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
#: timed from whole cases, a case's steps are doubled at most this many times (x256) for its
#: changes to take as long as its load
MAX_DOUBLINGS = 8


CHANGES_ONLY = "changes-only"

#: a clock the probes read times from, in seconds (``time.perf_counter``, ``time.thread_time``)
Clock = Callable[[], float]


@dataclass(frozen=True)
class Probe:
    """A program over one input ``a`` of integers: load ``n`` of them, then add one per step."""

    name: str
    program: dict[str, Any]
    claim: str
    area: ClassVar[str] = "zset"
    #: the engine method a change is, and how many calls of it load the data (not timed)
    method: ClassVar[str] = "step"
    loads: ClassVar[int] = 1
    #: a feature the engine must declare to be probed (else: "not declared")
    feature: ClassVar[str] = ""

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


def _changes_case(area: str, name: str, n: int, steps: int, load: list[dict[str, Any]],
                  changes: list[dict[str, Any]]) -> Case:
    return Case.from_json({
        "id": f"{area}.scaling-{name}-{n}-{steps}", "area": area, "level": "should",
        "description": f"scaling probe {name}", "cites": [], "features": [CHANGES_ONLY], "source": "generated",
        "setup": {"observe": "changes"},
        "steps": [*load, *({**c, "expect": {}} for c in changes)]})


@dataclass(frozen=True)
class _ChangesProbe:
    """A probe of an area observed by its changes (the feature ``changes-only``): each ``apply``
    step timed, the load before them not."""

    name: str
    claim: str
    area: ClassVar[str]
    method: ClassVar[str] = "apply"
    loads: ClassVar[int] = 0
    feature: ClassVar[str] = CHANGES_ONLY


@dataclass(frozen=True)
class ReduceProbe(_ChangesProbe):
    """``sum`` over ``n`` keys of one value each, then one value added per step: to an existing
    key (its accumulator changes) and to a fresh key (it enters the view), in turn."""

    area: ClassVar[str] = "reduce"

    def case(self, n: int, steps: int) -> Case:
        load: list[dict[str, Any]] = [
            {"op": "declare", "reducer": "sum", "params": {}, "expect": {}},
            {"op": "load", "collection": [[i, [1]] for i in range(n)], "expect": {}}]
        changes: list[dict[str, Any]] = [
            {"op": "apply", "plus": [[i % n if i % 2 == 0 else n + i, [1]]], "minus": []} for i in range(steps)]
        return _changes_case(self.area, self.name, n, steps, load, changes)


@dataclass(frozen=True)
class FixpointProbe(_ChangesProbe):
    """Reachability from root 0 over a binary tree of ``n`` edges (``(i - 1) // 2 -> i``: no
    node of high degree, depth log n), then per step an edge from leaf ``n`` to a fresh node
    added (one element enters) and removed again (it leaves)."""

    area: ClassVar[str] = "fixpoint"

    def case(self, n: int, steps: int) -> Case:
        load = [{"op": "make", "roots": [0], "edges": [[(i - 1) // 2, i] for i in range(1, n + 1)], "expect": {}}]
        changes: list[dict[str, Any]] = [
            {"op": "apply", ("add_edges" if i % 2 == 0 else "remove_edges"): [[n, n + 1 + i // 2]]}
            for i in range(steps)]
        return _changes_case(self.area, self.name, n, steps, load, changes)


AnyProbe = Probe | ReduceProbe | FixpointProbe

#: the probes of the areas observed by changes only (the engine must declare ``changes-only``)
CHANGES_PROBES: tuple[AnyProbe, ...] = (
    ReduceProbe("reduce-sum", "an update costs the delta's keys, not the view: O(|Δ⁻(k)| + |Δ⁺(k)|) "
                              "(SKIP-THM-3; SKIP-DEC-PERSISTENT-VIEW)"),
    FixpointProbe("reach-edge", "an edge update costs the affected region, not the graph "
                                "(FIX-CLAIM-COMPLEXITY; FIX-DEC-PERSISTENT-STATE)"),
)
#: every probe, in the order they run
ALL_PROBES: tuple[AnyProbe, ...] = (*PROBES, *CHANGES_PROBES)


@dataclass(frozen=True)
class Timing:
    size: int
    step_seconds: float
    resolution: float = NOISE_FLOOR  # step times this small are not told apart from noise
    steps: int = 0  # timed from whole cases: the steps of the case timed (0: each step timed)

    @property
    def resolved(self) -> float:
        return max(self.step_seconds, self.resolution, NOISE_FLOOR)


@dataclass(frozen=True)
class ProbeResult:
    probe: AnyProbe
    timings: tuple[Timing, ...]
    threshold: float
    problem: str = ""  # the engine errored or declined: no verdict
    undeclared: str = ""  # the feature the probe needs, which the engine does not declare: not probed

    @property
    def growth(self) -> float:
        return self.timings[-1].step_seconds / self.timings[0].resolved

    @property
    def passed(self) -> bool:
        return not self.problem and not self.undeclared and self.growth <= self.threshold


class _TimedEngine:
    """An engine with each call of one method timed (the engine is not asked); its other
    methods, optional ones included, are the engine's own."""

    def __init__(self, engine: Any, method: str, times: list[float], clock: Clock) -> None:
        self.engine, self.method, self.times, self.clock = engine, method, times, clock

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.engine, name)
        if name != self.method:
            return attr

        def timed(*args: Any) -> Any:
            start = self.clock()
            out = attr(*args)
            self.times.append(self.clock() - start)
            return out

        return timed


class _Timed:
    """An in-process implementation whose engine of the probe's area has its changes timed one
    by one (the other areas' engines are not offered)."""

    def __init__(self, impl: Implementation, probe: AnyProbe, clock: Clock) -> None:
        self.impl, self.probe, self.clock = impl, probe, clock
        self.times: list[float] = []

    def handshake(self) -> Any:
        return self.impl.handshake()

    def _engine(self, area: str) -> Any:
        engine = driver.engine_for(self.impl, area) if area == self.probe.area else None
        return None if engine is None else _TimedEngine(engine, self.probe.method, self.times, self.clock)

    def zset_engine(self) -> Any:
        return self._engine("zset")

    def reduce_engine(self) -> Any:
        return self._engine("reduce")

    def fixpoint_engine(self) -> Any:
        return self._engine("fixpoint")

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


def _step_in_process(impl: Implementation, probe: AnyProbe, case: Case, clock: Clock) -> tuple[float, str]:
    timed = _Timed(impl, probe, clock)
    with _collector_paused():
        problem = _problem([driver.run_case(timed, case)])
    changes = timed.times[probe.loads:]
    return statistics.median(changes) if changes else 0.0, problem


def _seconds(backend: Backend, case: Case, clock: Clock) -> tuple[float, str]:
    with _collector_paused():
        start = clock()
        results = list(backend.run([case]))
        elapsed = clock() - start
    return elapsed, _problem(results)


def _step_from_cases(backend: Backend, probe: AnyProbe, n: int, steps: int, repeats: int,
                     clock: Clock) -> tuple[Timing, str]:
    """A step's time from whole cases, and its resolution: the spread of the case times per step.

    The step is a difference of two case times, and the load's own noise grows with the data
    (some 100 ms in a load of 10^4 elements taking 400 ms, on a quiet machine), so the case's
    changes are first made to take at least as long as its load: ``steps`` doubled, at most
    ``MAX_DOUBLINGS`` times, until they do. (At a fixed 100 steps of the reference's 0.15 ms the
    changes were 15 ms against that noise: step times from -0.1 to 0.8 ms at 10^4 elements, and
    ×12 for ``distinct`` on a loaded machine.) An engine whose steps already take that long, as a
    recomputing one's do, is timed at ``steps``."""
    t_base, problem = _seconds(backend, probe.case(n, 0), clock)
    t_full, problem_full = (0.0, problem) if problem else _seconds(backend, probe.case(n, steps), clock)
    for _ in range(MAX_DOUBLINGS):
        if problem_full or t_full - t_base >= t_base:
            break
        steps *= 2
        t_full, problem_full = _seconds(backend, probe.case(n, steps), clock)
    full, base = [t_full], [t_base]
    for _ in range(repeats - 1):
        if problem or problem_full:
            break
        t_full, problem_full = _seconds(backend, probe.case(n, steps), clock)
        t_base, problem = _seconds(backend, probe.case(n, 0), clock)
        full.append(t_full)
        base.append(t_base)
    if problem or problem_full:
        return Timing(n, 0.0), problem or problem_full
    step = max(min(full) - min(base), 0.0) / steps
    spread = (max(full) - min(full) + max(base) - min(base)) / steps
    return Timing(n, step, spread, steps), ""


def _measure(backend: Backend, probe: AnyProbe, sizes: Sequence[int], steps: int, repeats: int,
             threshold: float, clock: Clock) -> ProbeResult:
    timings: list[Timing] = []
    for n in sizes:
        if isinstance(backend, InProcess):
            runs = [_step_in_process(backend.impl, probe, probe.case(n, steps), clock) for _ in range(repeats)]
            timing, problem = Timing(n, statistics.median(t for t, _ in runs)), next((p for _, p in runs if p), "")
        else:
            timing, problem = _step_from_cases(backend, probe, n, steps, repeats, clock)
        if problem:
            return ProbeResult(probe, tuple(timings), threshold, f"size {n}: {problem}")
        timings.append(timing)
    return ProbeResult(probe, tuple(timings), threshold)


def run_probe(backend: Backend, probe: AnyProbe, sizes: Sequence[int] = SIZES, steps: int = 20,
              repeats: int = 3, threshold: float = THRESHOLD, attempts: int = ATTEMPTS,
              clock: Clock = time.perf_counter) -> ProbeResult:
    """The probe measured; a cost failure is measured again, up to ``attempts`` times in all,
    and stands only if every measurement fails (the least growth is reported): a step whose
    cost grows with the stored data shows in every measurement, a disturbance of the machine
    seldom in all of them."""
    result = _measure(backend, probe, sizes, steps, repeats, threshold, clock)
    for _ in range(attempts - 1):
        if result.passed or result.problem:
            break
        again = _measure(backend, probe, sizes, steps, repeats, threshold, clock)
        result = again if again.problem or again.growth < result.growth else result
    return result


def run_probes(backend: Backend, sizes: Sequence[int] = SIZES, steps: int = 20, repeats: int = 3,
               threshold: float = THRESHOLD, progress: Callable[[str], None] | None = None,
               probes: Sequence[AnyProbe] = ALL_PROBES,
               clock: Clock = time.perf_counter) -> list[ProbeResult]:
    """``probes`` (default: every one) against ``backend``: none of an area the engine does not
    serve; a probe needing a feature it does not declare is reported so, unmeasured. ``clock``:
    what a time is read from (see the module's docstring: wall time, or the calling thread's CPU
    time for an engine that works in that thread alone)."""
    hs = backend.handshake()
    results = []
    for probe in probes:
        if probe.area not in hs.areas:
            continue
        if probe.feature and probe.feature not in hs.features:
            results.append(ProbeResult(probe, (), threshold, undeclared=probe.feature))
            continue
        if progress:
            progress(probe.name)
        results.append(run_probe(backend, probe, sizes, steps, repeats, threshold, clock=clock))
    return results


def _verdict(r: ProbeResult) -> str:
    if r.undeclared:
        return f"not declared: the engine does not declare {r.undeclared}, so it is not probed"
    if r.problem:
        return f"not judged: {r.problem}"
    return f"{'ok' if r.passed else 'COST FAIL'}: ×{r.growth:.1f}"


def report(results: Sequence[ProbeResult]) -> str:
    if not results:
        return ("scaling probes: none (the implementation declares none of the probed areas: "
                f"{', '.join(dict.fromkeys(p.area for p in ALL_PROBES))})\n")
    areas = ", ".join(dict.fromkeys(r.probe.area for r in results))
    lines = [f"scaling probes ({areas}): median step time as the stored data grows "
             f"(reduce and fixpoint: observations of the changes only, the feature {CHANGES_ONLY}); "
             f"a growth above ×{results[0].threshold:g} from the smallest to the largest size fails "
             f"(step times under {NOISE_FLOOR * 1e3:g} ms, or under the spread of the timings, count as that)",
             ""]
    for r in results:
        sizes = ", ".join(f"n={t.size}: {t.step_seconds * 1e3:.3f} ms"
                          + (f" (spread {t.resolution * 1e3:.3f} ms)" if t.resolution > NOISE_FLOOR else "")
                          + (f" over {t.steps} steps" if t.steps else "")
                          for t in r.timings)
        measured = f"{sizes}; " if sizes else ""
        lines.append(f"  {r.probe.name:<11} {_verdict(r)}  ({measured}claim: {r.probe.claim})")
    return "\n".join(lines) + "\n"
