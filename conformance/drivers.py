"""Run one case on an in-process implementation, through its area engine.

Each driver feeds a case's operations to a fresh engine (the Protocols of
:mod:`conformance.protocols`) and encodes what it observes as wire
observations (JSON data), so in-process and subprocess implementations are
judged by the same code. An :class:`EngineError` becomes ``{"error": class}``;
any other exception makes the case *errored*.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Mapping
from typing import Any

from conformance import wire
from conformance.cases_model import Case, Step, thaw
from conformance.protocols import (
    CaseResult,
    EngineError,
    FixpointChange,
    FixpointEngine,
    FixpointObservation,
    Implementation,
    ReduceEngine,
    ReduceObservation,
    StreamEngine,
    ZSetEngine,
)

Observation = dict[str, Any]


def _work(work: Mapping[str, int] | None) -> dict[str, Any]:
    return {"work": dict(work)} if work else {}


def _reduce_observation(o: ReduceObservation) -> Observation:
    return {"view": wire.pairs(o.view), "changes": wire.pairs(o.changes), **_work(o.work)}


def run_reduce(engine: ReduceEngine, step: Step) -> Observation:
    a = step.args
    if step.op == "declare":
        engine.declare(a["reducer"], thaw(a.get("params", {})))
        return {}
    if step.op == "load":
        return _reduce_observation(engine.load(wire.keyed_values(a["collection"])))
    if step.op == "apply":
        return _reduce_observation(engine.apply(wire.keyed_values(a.get("plus", ())),
                                                wire.keyed_values(a.get("minus", ()))))
    raise EngineError("malformed-input", f"unknown reduce operation {step.op!r}")


def _fixpoint_observation(o: FixpointObservation) -> Observation:
    out: Observation = {
        "current": wire.sort_values(thaw(x) for x in o.current),
        "added": wire.sort_values(thaw(x) for x in o.added),
        "removed": wire.sort_values(thaw(x) for x in o.removed),
    }
    if o.ranks is not None:
        out["ranks"] = wire.pairs(o.ranks)
    return {**out, **_work(o.work)}


def _edges(raw: Any) -> tuple[tuple[Any, Any], ...]:
    return tuple((wire.typed(u), wire.typed(v)) for u, v in raw)


def _elements(raw: Any) -> tuple[Any, ...]:
    return tuple(wire.typed(x) for x in raw)


def run_fixpoint(engine: FixpointEngine, step: Step) -> Observation:
    a = step.args
    if step.op == "make":
        return _fixpoint_observation(engine.make(_elements(a.get("roots", ())), _edges(a.get("edges", ()))))
    if step.op == "apply":
        change = FixpointChange(
            add_roots=_elements(a.get("add_roots", ())),
            remove_roots=_elements(a.get("remove_roots", ())),
            add_edges=_edges(a.get("add_edges", ())),
            remove_edges=_edges(a.get("remove_edges", ())),
        )
        return _fixpoint_observation(engine.apply(change))
    raise EngineError("malformed-input", f"unknown fixpoint operation {step.op!r}")


def run_zset(engine: ZSetEngine, step: Step, case: Case, built: list[bool]) -> Observation:
    if not built:
        engine.build(thaw(case.setup["program"]))
        built.append(True)
    inputs = {name: [(wire.typed(e), w) for e, w in rows] for name, rows in step.args.get("inputs", {}).items()}
    return {"output": wire.weighted_list(wire.weighted(engine.step(inputs)))}


def run_stream(engine: StreamEngine, step: Step, case: Case) -> Observation:
    batches = [[wire.typed(x) for x in b] for b in step.args.get("batches", ())]
    output = engine.run(case.setup["processor"], thaw(case.setup.get("params", {})), batches)
    return {"output": [thaw(x) for x in output]}


def engine_for(impl: Implementation, area: str) -> Any:
    factories: dict[str, Callable[[], Any]] = {
        "reduce": impl.reduce_engine, "fixpoint": impl.fixpoint_engine,
        "zset": impl.zset_engine, "stream": impl.stream_engine,
    }
    return factories[area]()


def run_case(impl: Implementation, case: Case) -> CaseResult:
    """Run ``case`` on a fresh engine of ``impl``; observations per step, or skipped/errored."""
    engine = engine_for(impl, case.area)
    if engine is None:
        return CaseResult(case.id, "skipped", message=f"area {case.area!r} not supported")
    observations: list[Observation] = []
    built: list[bool] = []
    for step in case.steps:
        try:
            if case.area == "reduce":
                obs = run_reduce(engine, step)
            elif case.area == "fixpoint":
                obs = run_fixpoint(engine, step)
            elif case.area == "zset":
                obs = run_zset(engine, step, case, built)
            else:
                obs = run_stream(engine, step, case)
        except EngineError as refusal:
            observations.append({"error": refusal.error_class})
            if step.op == "declare" or (case.area == "zset" and not built):
                break  # nothing further can run without a declared reducer or a built program
            continue
        except Exception as exc:  # noqa: BLE001 - a crash of the engine is a result, not our failure
            return CaseResult(case.id, "errored", tuple(observations),
                              message="".join(traceback.format_exception_only(exc)).strip())
        observations.append(obs)
    return CaseResult(case.id, "result", tuple(observations))

