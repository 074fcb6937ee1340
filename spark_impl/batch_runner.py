"""Run many conformance cases at once: ``run_cases`` of the Spark implementation.

A Spark action costs ~0.1-0.3 s even on tiny data, and a case is a handful of
actions, so cases run one after the other spend their time waiting for job
latency, not computing. ``run_cases`` runs independent cases *concurrently*
on one SparkSession (Spark schedules jobs from several driver threads; each
case has its own engines and DataFrames, so no state is shared and each case's
observations are exactly those of a separate run). Every observation is
encoded as the suite's wire JSON here (the same encoding as the suite's own
drivers: maps as sorted ``[[key, value], ...]``, sets as sorted lists).
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from conformance.protocols import (
    CaseResult,
    EngineError,
    FixpointChange,
    FixpointObservation,
    ReduceObservation,
)

Observation = dict[str, Any]

#: concurrent cases; job latency, not CPU, is what they overlap
WORKERS = 6


def _thaw(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _thaw(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_thaw(v) for v in value]
    return value


def _freeze(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_freeze(v) for v in value)
    return value


def _canonical(value: Any) -> str:
    return json.dumps(_thaw(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _pairs(mapping: Mapping[Any, Any]) -> list[list[Any]]:
    items = sorted(mapping.items(), key=lambda kv: _canonical(kv[0]))
    return [[_thaw(k), _thaw(v)] for k, v in items]


def _sorted(values: Iterable[Any]) -> list[Any]:
    return sorted((_thaw(v) for v in values), key=_canonical)


def _keyed_values(raw: Any) -> dict[Any, list[Any]]:
    out: dict[Any, list[Any]] = {}
    for k, vs in raw:
        out.setdefault(_freeze(k), []).extend(_freeze(v) for v in vs)
    return out


def _reduce_obs(o: ReduceObservation) -> Observation:
    return {"view": _pairs(o.view), "changes": _pairs(o.changes)}


def _fixpoint_obs(o: FixpointObservation) -> Observation:
    out: Observation = {"current": _sorted(o.current), "added": _sorted(o.added),
                        "removed": _sorted(o.removed)}
    if o.ranks is not None:
        out["ranks"] = _pairs(o.ranks)
    return out


def _edges(raw: Any) -> tuple[tuple[Any, Any], ...]:
    return tuple((_freeze(u), _freeze(v)) for u, v in raw)


def _step(area: str, engine: Any, op: str, a: Mapping[str, Any], setup: Mapping[str, Any],
          built: list[bool]) -> Observation:
    if area == "reduce":
        if op == "declare":
            engine.declare(a["reducer"], _thaw(a.get("params", {})))
            return {}
        if op == "load":
            return _reduce_obs(engine.load(_keyed_values(a["collection"])))
        if op == "apply":
            return _reduce_obs(engine.apply(_keyed_values(a.get("plus", ())),
                                            _keyed_values(a.get("minus", ()))))
    elif area == "fixpoint":
        if op == "make":
            return _fixpoint_obs(engine.make(tuple(_freeze(r) for r in a.get("roots", ())),
                                             _edges(a.get("edges", ()))))
        if op == "apply":
            return _fixpoint_obs(engine.apply(FixpointChange(
                add_roots=tuple(_freeze(r) for r in a.get("add_roots", ())),
                remove_roots=tuple(_freeze(r) for r in a.get("remove_roots", ())),
                add_edges=_edges(a.get("add_edges", ())), remove_edges=_edges(a.get("remove_edges", ())))))
    elif area == "zset":
        if not built:
            engine.build(_thaw(setup["program"]))
            built.append(True)
        inputs = {name: [(_freeze(e), int(w)) for e, w in rows] for name, rows in a.get("inputs", {}).items()}
        total: dict[str, tuple[Any, int]] = {}
        for e, w in engine.step(inputs):
            key = _canonical(e)
            total[key] = (e, total.get(key, (e, 0))[1] + int(w))
        return {"output": [[_thaw(e), w] for key, (e, w) in sorted(total.items()) if w]}
    elif area == "stream":
        batches = [list(b) for b in a.get("batches", ())]
        out = engine.run(setup["processor"], _thaw(setup.get("params", {})), batches)
        return {"output": [_thaw(x) for x in out]}
    raise EngineError("malformed-input", f"unknown {area} operation {op!r}")


def run_case(factory: Callable[[str], Any], case: Any) -> CaseResult:
    """One case on fresh engines: observations per step (an EngineError is an observation)."""
    engine = factory(case.area)
    if engine is None:
        return CaseResult(case.id, "skipped", message=f"area {case.area!r} not supported")
    observations: list[Observation] = []
    built: list[bool] = []
    setup = case.setup
    for step in case.steps:
        try:
            observations.append(_step(case.area, engine, step.op, step.args, setup, built))
        except EngineError as refusal:
            observations.append({"error": refusal.error_class})
            if step.op == "declare" or (case.area == "zset" and not built):
                break
        except Exception as exc:  # noqa: BLE001 - an engine crash is this case's result
            return CaseResult(case.id, "errored", tuple(observations),
                              message="".join(traceback.format_exception_only(exc)).strip())
    return CaseResult(case.id, "result", tuple(observations))


def run_cases(factory: Callable[[str], Any], cases: Sequence[Any],
              workers: int = WORKERS) -> list[CaseResult]:
    """Every case, ``workers`` at a time on the shared session; results in case order."""
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda c: run_case(factory, c), cases))
