"""Generated ``reduce`` cases: random valid (and some invalid) delta traces per named reducer."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from conformance import reducers
from conformance.cases_model import Case, new_case
from conformance.oracle import reduce as oracle

KEYS = ("a", "b", "c")
TRACES_PER_REDUCER = 6
SEED = 20251122


def _values(rng: random.Random, reducer: str) -> list[Any]:
    n = rng.randint(0, 3)
    if reducer == "count":
        return [rng.choice(["x", "y", "z"]) for _ in range(n)]
    return [rng.randint(0, 6) for _ in range(n)]


def _delta(rng: random.Random, reducer: str, C: dict[str, list[Any]], invalid: bool) -> dict[str, Any]:
    plus, minus = [], []
    for k in rng.sample(KEYS, rng.randint(0, len(KEYS))):
        held = list(C.get(k, []))
        out = rng.sample(held, rng.randint(0, len(held))) if held else []
        add = _values(rng, reducer)
        if out:
            minus.append([k, out])
        if add:
            plus.append([k, add])
    if invalid:
        k = rng.choice(KEYS)
        minus.append([k, [*C.get(k, []), 99]])  # one copy more than the key holds
    return {"op": "apply", "plus": plus, "minus": minus}


def _apply(C: dict[str, list[Any]], step: dict[str, Any]) -> dict[str, list[Any]]:
    out = {k: list(vs) for k, vs in C.items()}
    for k, vs in step["minus"]:
        for v in vs:
            out[k].remove(v)
    for k, vs in step["plus"]:
        out.setdefault(k, []).extend(vs)
    return {k: vs for k, vs in out.items() if vs}


def trace(rng: random.Random, reducer: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = [{"op": "declare", "reducer": reducer, "params": params}]
    C = {k: vs for k in KEYS if (vs := _values(rng, reducer))}
    steps.append({"op": "load", "collection": [[k, vs] for k, vs in C.items()]})
    for _ in range(rng.randint(2, 5)):
        invalid = rng.random() < 0.15
        step = _delta(rng, reducer, C, invalid)
        steps.append(step)
        if not invalid:
            C = _apply(C, step)
    return steps


def _cites(spec: reducers.ReducerSpec) -> tuple[str, ...]:
    ids = ["SKIP-DEF-5", "SKIP-DEF-8", "SKIP-DEF-9", "SKIP-DEF-10", "SKIP-DEF-11", "SKIP-DEC-VIEW"]
    ids += ["SKIP-THM-2"] + (["SKIP-THM-3"] if spec.total and spec.well_formed else [])
    return tuple(ids + ([] if spec.total else ["SKIP-DEC-PARTIAL"]))


def _case(slug: str, reducer: str, steps: list[dict[str, Any]]) -> Case:
    spec = reducers.REDUCERS[reducer]
    expected, alternatives = oracle.expectations(steps)
    with_expect: list[dict[str, Any]] = []
    for step, exp in zip(steps, expected, strict=True):
        out = {**step, "expect": exp}
        if spec.well_formed and spec.total and "error" not in exp:
            bounds = oracle.cost_bounds(step)
            if bounds:
                out["cost"] = bounds
        with_expect.append(out)
    return new_case(
        "reduce", slug,
        f"Generated trace for the {reducer!r} reducer: after every delta the view equals a recompute "
        "of reduce_R over the current collection; invalid deltas are refused and change nothing.",
        {}, with_expect,
        features=spec.features, level="must" if spec.well_formed else "should",
        source="generated", alternatives=alternatives, cites=_cites(spec),
    )


def cases() -> Iterator[Case]:
    rng = random.Random(SEED)
    plans: list[tuple[str, dict[str, Any]]] = [
        ("sum", {}), ("count", {}), ("xor", {}), ("sum_monus_int", {}), ("min", {}), ("max", {}),
        ("saturating_sum", {"cap": 8}), ("sum_bad_remove", {}), ("min_declines_below", {}),
    ]
    for reducer, params in plans:
        for n in range(TRACES_PER_REDUCER):
            yield _case(f"{reducer.replace('_', '-')}-trace-{n:02d}", reducer, trace(rng, reducer, params))
