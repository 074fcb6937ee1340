"""Run many conformance cases at once: ``run_cases`` of the Spark implementation.

A Spark action costs ~0.1-0.3 s even on tiny data, and a case is a handful of
actions, so cases run one after the other spend their time waiting for job
latency, not computing. ``run_cases`` runs independent cases *concurrently*
on one SparkSession (Spark schedules jobs from several driver threads; each
case has its own engines and DataFrames, so no state is shared and each case's
observations are exactly those of a separate run), and runs the fixpoint
cases *in one dataflow*, in lockstep, with the case as part of every element
(:func:`run_fixpoint_lockstep`): one job per round serves all of them. Every observation is
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


def _work(work: Mapping[str, int] | None) -> Observation:
    return {"work": dict(work)} if work else {}


def _reduce_obs(o: ReduceObservation) -> Observation:
    return {"view": _pairs(o.view), "changes": _pairs(o.changes), **_work(o.work)}


def _fixpoint_obs(o: FixpointObservation) -> Observation:
    out: Observation = {"current": _sorted(o.current), "added": _sorted(o.added),
                        "removed": _sorted(o.removed)}
    if o.ranks is not None:
        out["ranks"] = _pairs(o.ranks)
    return {**out, **_work(o.work)}


def _edges(raw: Any) -> tuple[tuple[Any, Any], ...]:
    try:
        return tuple((_freeze(u), _freeze(v)) for u, v in raw)
    except (TypeError, ValueError):
        raise EngineError("malformed-input", f"edges are pairs, got {raw!r}") from None


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
              workers: int = WORKERS, spark: Any = None) -> list[CaseResult]:
    """Every case, ``workers`` at a time on the shared session; results in case order.

    With ``spark``, the fixpoint cases and the reduce cases run in lockstep
    (:func:`run_fixpoint_lockstep`, :func:`run_reduce_lockstep`), the stream
    cases in one streaming query (:func:`run_stream_lockstep`), alongside the
    others, which run concurrently.
    """
    fix = [c for c in cases if spark is not None and c.area == "fixpoint" and _fixpoint_lockstep_ok(c)]
    red = [c for c in cases if spark is not None and c.area == "reduce" and _reduce_lockstep_ok(c)]
    streams = [c for c in cases if spark is not None and c.area == "stream"]
    chosen = {id(c) for c in (*fix, *red, *streams)}
    rest = [c for c in cases if id(c) not in chosen]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        together = [pool.submit(run, spark, group) for run, group in
                    ((run_fixpoint_lockstep, fix), (run_reduce_lockstep, red),
                     (run_stream_lockstep, streams)) if group]
        separate = list(pool.map(lambda c: run_case(factory, c), rest))
        joint = [r for future in together for r in future.result()]
    results = {r.case_id: r for r in (*separate, *joint)}
    return [results[c.id] for c in cases]


def run_stream_lockstep(spark: Any, cases: Sequence[Any]) -> list[CaseResult]:
    """Every cut of every stream case in one streaming query (:mod:`spark_impl.protocol.stream`)."""
    from spark_impl.protocol.stream import run_stream_lockstep as run_together

    return run_together(spark, cases)


# --- fixpoint cases in lockstep: one engine, one job per round for all of them ---------


def _fixpoint_lockstep_ok(case: Any) -> bool:
    """A make-then-apply case without cost checks: the lockstep engine's work
    counters are those of all the cases together, so a case with cost checks
    runs on its own engine."""
    ops = [step.op for step in case.steps]
    return (bool(ops) and ops[0] == "make" and all(op == "apply" for op in ops[1:])
            and not any(getattr(step, "cost", None) for step in case.steps))


def run_fixpoint_lockstep(spark: Any, cases: Sequence[Any]) -> list[CaseResult]:
    """Fixpoint cases whose first step is ``make`` run as *one* dataflow: element
    ``x`` of case ``i`` is the element ``[i, x]`` of a single reachability engine.
    Cases share no element, so no edge joins two cases: every round of an update
    advances each case's frontier exactly as a separate run would (same rounds,
    same ranks, same added and removed elements), and a step of all the cases is
    one update: the Spark jobs of a round serve every case at once.
    """
    from spark_impl.fixpoint_engine import IncrementalReachability
    from spark_impl.values import decode, encode

    engine = IncrementalReachability(spark, "string")
    observations: list[list[Observation]] = [[] for _ in cases]
    failed: dict[int, str] = {}
    steps = max(len(c.steps) for c in cases)

    def tag(i: int, x: Any) -> str:
        return encode([i, _freeze(x)])

    for j in range(steps):
        change: dict[str, list[Any]] = {"add_roots": [], "remove_roots": [], "add_edges": [],
                                        "remove_edges": []}
        active = []
        for i, case in enumerate(cases):
            if j >= len(case.steps) or i in failed:
                continue
            a = case.steps[j].args
            try:
                parts: dict[str, list[Any]] = {
                    "add_roots": [tag(i, r) for r in a.get("roots" if j == 0 else "add_roots", ())],
                    "remove_roots": [tag(i, r) for r in a.get("remove_roots", ())] if j else [],
                    "add_edges": [(tag(i, u), tag(i, v)) for u, v in
                                  a.get("edges" if j == 0 else "add_edges", ())],
                    "remove_edges": [(tag(i, u), tag(i, v)) for u, v in a.get("remove_edges", ())] if j else [],
                }
            except (TypeError, ValueError):
                observations[i].append({"error": "malformed-input"})
                continue
            for key, values in parts.items():
                change[key].extend(values)
            active.append(i)
        if not active:
            continue
        delta = engine.apply(**change)
        live = engine.live.collect_rows()
        by_case: dict[int, dict[Any, int]] = {i: {} for i in active}
        for (node, rank), w in live.items():
            i, x = decode(node)
            if w > 0 and i in by_case:
                by_case[i][x] = int(rank)
        added: dict[int, list[Any]] = {i: [] for i in active}
        removed: dict[int, list[Any]] = {i: [] for i in active}
        for side, out in ((delta.added, added), (delta.removed, removed)):
            for node in side:
                i, x = decode(node)
                out[i].append(x)
        for i in active:
            ranks = by_case[i]
            observations[i].append({"current": _sorted(ranks), "added": _sorted(added[i]),
                                    "removed": _sorted(removed[i]), "ranks": _pairs(ranks)})
    return [CaseResult(c.id, "result", tuple(observations[i])) for i, c in enumerate(cases)]


# --- reduce cases in lockstep: one engine per declared reducer ------------------------------


def _reduce_lockstep_ok(case: Any) -> bool:
    ops = [step.op for step in case.steps]
    return bool(ops) and ops[0] == "declare" and all(op in ("load", "apply") for op in ops[1:])


def run_reduce_lockstep(spark: Any, cases: Sequence[Any]) -> list[CaseResult]:
    """Reduce cases declaring the same reducer run as one collection per reducer:
    key ``k`` of case ``i`` is the key ``[i, k]``. Keys of different cases never
    meet (every reducer works key by key), so each case's view and changes are
    those of a separate run. Per step, one delta for all the cases:

    * a delta a case must refuse (it removes a value not there) is taken out
      and that case observes ``invalid-delta``, the others go on;
    * a ``load`` replaces the case's collection: its current values are first
      removed (its keys leave the view, so they restart from ``initial``), then
      the new collection is added: a recompute, as a fresh load is.
    """
    from spark_impl.named_reducers import named_reducer

    groups: dict[str, list[int]] = {}
    observations: list[list[Observation]] = [[] for _ in cases]
    for i, case in enumerate(cases):
        declare = case.steps[0].args
        try:
            named_reducer(declare["reducer"], _thaw(declare.get("params", {})))
        except EngineError as refused:
            observations[i].append({"error": refused.error_class})
            continue
        observations[i].append({})
        groups.setdefault(_canonical([declare["reducer"], _thaw(declare.get("params", {}))]), []).append(i)

    for members in groups.values():
        _run_reduce_group(spark, cases, members, observations)
    return [CaseResult(c.id, "result", tuple(observations[i])) for i, c in enumerate(cases)]


def _run_reduce_group(spark: Any, cases: Sequence[Any], members: list[int],
                      observations: list[list[Observation]]) -> None:
    """The lockstep run of the cases ``members``, which declare the same reducer."""
    from spark_impl.named_reducers import numeric_values
    from spark_impl.protocol.reduce import SparkReduceEngine
    from spark_impl.reduce_engine import InvalidDelta
    from spark_impl.values import decode, encode

    first = cases[members[0]].steps[0].args
    adapter = SparkReduceEngine(spark)
    adapter.declare(first["reducer"], _thaw(first.get("params", {})))
    reducer = adapter.reducer
    assert adapter.engine is not None and reducer is not None
    engine = adapter.engine
    numeric = numeric_values(reducer)
    collections: dict[int, dict[Any, list[Any]]] = {i: {} for i in members}

    def rows(i: int, values: Mapping[Any, Sequence[Any]], sign: int) -> list[tuple[Any, ...]]:
        counts: dict[tuple[str, Any], int] = {}
        for k, vs in values.items():
            for v in vs:
                cell = (encode([i, k]), _integer(v) if numeric else encode(v))
                counts[cell] = counts.get(cell, 0) + 1
        return [(k, v, sign * n) for (k, v), n in counts.items()]

    def views() -> dict[int, dict[Any, Any]]:
        out: dict[int, dict[Any, Any]] = {i: {} for i in members}
        for key, entry in engine.view_rows().items():
            i, k = decode(key)
            out[i][k] = adapter._accumulator(entry[:-1])
        return out

    before = views()
    for j in range(1, max(len(cases[i].steps) for i in members)):
        deltas: dict[int, list[tuple[Any, ...]]] = {}
        loads: dict[int, list[tuple[Any, ...]]] = {}
        for i in members:
            if j >= len(cases[i].steps):
                continue
            step = cases[i].steps[j]
            try:
                if step.op == "load":
                    new = _keyed_values(step.args["collection"])
                    loads[i] = rows(i, new, 1)
                    deltas[i] = rows(i, collections[i], -1)
                    collections[i] = {k: list(vs) for k, vs in new.items()}
                else:
                    plus = _keyed_values(step.args.get("plus", ()))
                    minus = _keyed_values(step.args.get("minus", ()))
                    deltas[i] = rows(i, plus, 1) + rows(i, minus, -1)
            except EngineError as refused:
                observations[i].append({"error": refused.error_class})
        refused_now: set[int] = set()
        changed: dict[int, dict[Any, Any]] = {}
        calls: dict[int, dict[str, int]] = {i: {} for i in members}  # per case: key -> reducer calls
        while True:
            live = [r for i, rs in deltas.items() if i not in refused_now for r in rs]
            try:
                changes = engine.apply(_frame(spark, engine, live), len(live)) if live else []
                break
            except InvalidDelta as bad:
                refused_now.add(decode(bad.key)[0])
        if live:
            _count_calls(engine.calls, calls)
        for c in changes:
            i, k = decode(c.key)
            changed.setdefault(i, {})[k] = adapter._accumulator(c.accumulator) if c.present else None
        if loads:
            added = [r for i, rs in loads.items() for r in rs]
            engine.apply(_frame(spark, engine, added), len(added), validate=False)
            _count_calls(engine.calls, calls)
        after = views()
        for i in members:
            if j >= len(cases[i].steps) or (i not in deltas and i not in loads):
                continue
            if i in refused_now:
                observations[i].append({"error": "invalid-delta"})
                continue
            if i in loads:
                diff = {k: v for k, v in after[i].items() if before[i].get(k, object()) != v}
                diff.update({k: None for k in before[i] if k not in after[i]})
            else:
                diff = changed.get(i, {})
                for k, vs in _keyed_values(cases[i].steps[j].args.get("minus", ())).items():
                    for v in vs:
                        collections[i][k].remove(v)
                for k, vs in _keyed_values(cases[i].steps[j].args.get("plus", ())).items():
                    collections[i].setdefault(k, []).extend(vs)
            # a load reports its calls only, as a separate run's load does (there the
            # fold runs in Spark, per key unmeasured); a reload's calls include the
            # removal of the case's previous collection, which this run does
            work = {"reducer_calls": sum(calls[i].values())}
            if i not in loads:
                work["keys_touched"] = len(calls[i])
            observations[i].append({"view": _pairs(after[i]), "changes": _pairs(diff), "work": work})
        before = after


def _count_calls(engine_calls: Mapping[str, int], calls: dict[int, dict[str, int]]) -> None:
    """Add an update's reducer calls, per lockstep key ``[i, k]``, to case ``i``'s key ``k``."""
    from spark_impl.values import decode

    for key, n in engine_calls.items():
        i, k = decode(key)
        cell = _canonical(k)
        calls[i][cell] = calls[i].get(cell, 0) + n


def _integer(value: Any) -> Any:
    from decimal import Decimal

    if isinstance(value, bool) or not isinstance(value, int):
        raise EngineError("malformed-input", f"expected an integer value, got {value!r}")
    return Decimal(value)


def _frame(spark: Any, engine: Any, rows: list[tuple[Any, ...]]) -> Any:
    return spark.createDataFrame(rows, f"k string, v {engine.value_type}, w bigint")
