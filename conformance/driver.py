"""The suite's one driver: run cases on an in-process implementation's engines.

A case's operation is decoded once (:func:`decode`: the wire JSON as the
arguments of an engine method of :mod:`conformance.protocols`) and the
engine's answer is encoded once (:func:`encode`: the protocol's result as a
wire observation), whichever way the case runs:

- :func:`run_case`: on a fresh per-area engine, one operation after the other, the
  engine released (:func:`release`) when the case ends;
- :func:`run_lockstep`: with other cases of its area on one lockstep engine,
  which receives the i-th operation of every case in one call.

So in-process, lockstep and subprocess implementations are judged by the same
code. An :class:`EngineError` becomes ``{"error": class}``; any other
exception makes the case *errored*.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from conformance import wire
from conformance.cases_model import Case, Step, thaw
from conformance.protocols import (
    CaseResult,
    EngineError,
    FixpointChange,
    FixpointObservation,
    Implementation,
    LockstepEngine,
    ReduceObservation,
)

Observation = dict[str, Any]


@dataclass(frozen=True)
class Call:
    """One operation as an engine call: the method's name and its arguments."""

    method: str
    args: tuple[Any, ...]


def _edges(raw: Any) -> tuple[tuple[Any, Any], ...]:
    try:
        return tuple((wire.typed(u), wire.typed(v)) for u, v in raw)
    except (TypeError, ValueError):
        raise EngineError("malformed-input", f"edges are pairs, got {thaw(raw)!r}") from None


def _elements(raw: Any) -> tuple[Any, ...]:
    return tuple(wire.typed(x) for x in raw)


def decode(area: str, step: Step, setup: Mapping[str, Any]) -> Call:
    """The engine call of ``step``; ``EngineError('malformed-input')`` if it has no meaning."""
    a, op = step.args, step.op
    if area == "reduce":
        if op == "declare":
            return Call("declare", (a["reducer"], thaw(a.get("params", {}))))
        if op == "load":
            return Call("load", (wire.keyed_values(a["collection"]),))
        if op == "apply":
            return Call("apply", (wire.keyed_values(a.get("plus", ())), wire.keyed_values(a.get("minus", ()))))
    elif area == "fixpoint":
        if op == "make":
            return Call("make", (_elements(a.get("roots", ())), _edges(a.get("edges", ()))))
        if op == "apply":
            return Call("apply", (FixpointChange(
                add_roots=_elements(a.get("add_roots", ())),
                remove_roots=_elements(a.get("remove_roots", ())),
                add_edges=_edges(a.get("add_edges", ())),
                remove_edges=_edges(a.get("remove_edges", ())),
            ),))
    elif area == "zset":
        inputs = {name: [(wire.typed(e), w) for e, w in rows] for name, rows in a.get("inputs", {}).items()}
        return Call("step", (inputs,))
    elif area == "stream":
        batches = [[wire.typed(x) for x in b] for b in a.get("batches", ())]
        return Call("run", (setup["processor"], thaw(setup.get("params", {})), batches))
    raise EngineError("malformed-input", f"unknown {area} operation {op!r}")


def _work(work: Mapping[str, int] | None) -> Observation:
    return {"work": dict(work)} if work else {}


def _reduce(o: ReduceObservation, only_changes: bool) -> Observation:
    if only_changes:
        return {"changes": wire.pairs(o.changes), **_work(o.work)}
    return {"view": wire.pairs(o.view), "changes": wire.pairs(o.changes), **_work(o.work)}


def _fixpoint(o: FixpointObservation, only_changes: bool) -> Observation:
    out: Observation = {
        "added": wire.sort_values(thaw(x) for x in o.added),
        "removed": wire.sort_values(thaw(x) for x in o.removed),
    }
    if only_changes:
        return {**out, **_work(o.work)}
    out = {"current": wire.sort_values(thaw(x) for x in o.current), **out}
    if o.ranks is not None:
        out["ranks"] = wire.pairs(o.ranks)
    return {**out, **_work(o.work)}


def changes_only(case: Case) -> bool:
    """Whether ``case`` asks for changes-only observations (``"setup": {"observe": "changes"}``,
    a ``reduce`` or ``fixpoint`` case needing the feature ``changes-only``): a step observes the
    reduce view's changes, the fixpoint's added and removed elements, not the whole view or live
    set, so that its cost can follow the change (the scaling probes, :mod:`conformance.scaling`)."""
    return case.area in CHANGES_AREAS and case.setup.get("observe") == "changes"


#: the areas whose observation carries the whole view or live set unless changes only are asked
CHANGES_AREAS = ("reduce", "fixpoint")


def encode(area: str, method: str, result: Any, only_changes: bool = False) -> Observation:
    """The wire observation of an engine method's result (with ``only_changes``, without the
    reduce view, the fixpoint's live set and ranks)."""
    if area == "reduce":
        return {} if method == "declare" else _reduce(result, only_changes)
    if area == "fixpoint":
        return _fixpoint(result, only_changes)
    if area == "zset":
        return {"output": wire.weighted_list(wire.weighted(result))}
    return {"output": [thaw(x) for x in result]}


def stops(method: str) -> bool:
    """Whether a refusal of ``method`` ends the case: nothing runs without a declared reducer."""
    return method == "declare"


def engine_for(impl: Implementation, area: str) -> Any:
    factories: dict[str, Callable[[], Any]] = {
        "reduce": impl.reduce_engine, "fixpoint": impl.fixpoint_engine,
        "zset": impl.zset_engine, "stream": impl.stream_engine,
    }
    return factories[area]()


def release(engine: Any) -> None:
    """Tell an engine the driver is done with it: its optional ``close()``, called once
    (an engine may hold what outlives a case: a Spark engine, a running streaming query)."""
    close = getattr(engine, "close", None)
    if callable(close):
        close()


def prepare(engine: Any, case: Case) -> None:
    """What the case's ``setup`` asks before its first step: a ``zset`` program is built; an
    engine asked for changes only is told, if it listens (``observe_changes_only()``, optional:
    then it may leave the view or live set of its observations empty, as nothing reads them)."""
    if case.area == "zset":
        engine.build(thaw(case.setup["program"]))
    tell = getattr(engine, "observe_changes_only", None)
    if changes_only(case) and tell is not None:
        tell()


def observe(engine: Any, case: Case, step: Step) -> Observation:
    """One step on ``engine``: its observation, or ``{"error": class}`` for a refusal."""
    try:
        call = decode(case.area, step, case.setup)
        return encode(case.area, call.method, getattr(engine, call.method)(*call.args), changes_only(case))
    except EngineError as refusal:
        return {"error": refusal.error_class}


def _crash(exc: BaseException) -> str:
    return "".join(traceback.format_exception_only(exc)).strip()


def run_case(impl: Implementation, case: Case) -> CaseResult:
    """Run ``case`` on a fresh engine of ``impl``; observations per step, or skipped/errored."""
    engine = engine_for(impl, case.area)
    if engine is None:
        return CaseResult(case.id, "skipped", message=f"area {case.area!r} not supported")
    try:
        return _run_steps(engine, case)
    finally:
        release(engine)


def _run_steps(engine: Any, case: Case) -> CaseResult:
    observations: list[Observation] = []
    try:
        prepare(engine, case)
    except EngineError as refusal:
        return CaseResult(case.id, "result", ({"error": refusal.error_class},))  # no program, no step
    except Exception as exc:  # noqa: BLE001 - a crash of the engine is a result, not our failure
        return CaseResult(case.id, "errored", message=_crash(exc))
    for step in case.steps:
        try:
            call = decode(case.area, step, case.setup)
            observations.append(encode(case.area, call.method, getattr(engine, call.method)(*call.args),
                                       changes_only(case)))
        except EngineError as refusal:
            observations.append({"error": refusal.error_class})
            if stops(step.op):
                break
        except Exception as exc:  # noqa: BLE001
            return CaseResult(case.id, "errored", tuple(observations), message=_crash(exc))
    return CaseResult(case.id, "result", tuple(observations))


def run_lockstep(engine: LockstepEngine, cases: Sequence[Case],
                 alone: Callable[[Case], CaseResult] | None = None) -> list[CaseResult]:
    """Run ``cases`` (one area) together on one lockstep engine; one result per case, in order.

    Round ``j`` gives the engine the ``j``-th operation of every case still running,
    one call per method (tags are positions in ``cases``); each answer is encoded as
    :func:`run_case` encodes it. A refused ``declare`` ends its case. An engine call
    that raises leaves the lockstep run: each case of that call is run again from its
    start by ``alone`` (a fresh engine of its own, :func:`run_case`), so a failure is
    reported only for the cases whose own run fails, each with its own cause; without
    ``alone``, every case of that call is *errored*.
    """
    observations: list[list[Observation]] = [[] for _ in cases]
    ended: dict[int, str] = {}  # tag -> "" (ended by a refusal) or the crash message
    rerun: dict[int, CaseResult] = {}  # tag -> its result when run alone
    for j in range(max((len(c.steps) for c in cases), default=0)):
        calls: dict[str, dict[int, tuple[Any, ...]]] = {}
        for i, case in enumerate(cases):
            if i in ended or i in rerun or j >= len(case.steps):
                continue
            try:
                call = decode(case.area, case.steps[j], case.setup)
            except EngineError as refusal:
                observations[i].append({"error": refusal.error_class})
                if stops(case.steps[j].op):
                    ended[i] = ""
                continue
            calls.setdefault(call.method, {})[i] = call.args
        for method, batch in calls.items():
            try:
                answers = getattr(engine, method)(batch)
            except Exception as exc:  # noqa: BLE001 - the cases of the call leave the lockstep run
                if alone is None:
                    ended.update({i: _crash(exc) for i in batch})
                    continue
                print(f"incspec conform: the lockstep call {method!r} of {len(batch)} "
                      f"{cases[next(iter(batch))].area} case(s) failed ({_crash(exc).splitlines()[0]}); "
                      "running each of them alone", file=sys.stderr)
                rerun.update({i: alone(cases[i]) for i in batch})
                continue
            for i in batch:
                if i not in answers:
                    ended[i] = f"the lockstep engine gave no answer to {method!r}"
                elif isinstance(answers[i], EngineError):
                    observations[i].append({"error": answers[i].error_class})
                    if stops(method):
                        ended[i] = ""
                else:
                    observations[i].append(encode(cases[i].area, method, answers[i], changes_only(cases[i])))
    return [rerun[i] if i in rerun
            else CaseResult(c.id, "errored", tuple(observations[i]), message=ended[i]) if ended.get(i)
            else CaseResult(c.id, "result", tuple(observations[i])) for i, c in enumerate(cases)]
