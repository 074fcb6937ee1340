"""Generated ``zset`` cases: programs of every operator kind fed random version deltas."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from typing import Any

from conformance.cases_model import Case, new_case
from conformance.oracle import zset as oracle

SEED = 20251124
TRACES_PER_PROGRAM = 3
WEIGHTS = (-1, 1, 1, 2)


def inp(name: str) -> dict[str, Any]:
    return {"op": "input", "name": name}


def op(kind: str, **fields: Any) -> dict[str, Any]:
    return {"op": kind, **fields}


REACH_BODY = op("distinct", arg=op("plus", left=inp("roots"), right=op(
    "map", fn="snd", arg=op("map", fn="snd", arg=op(
        "join", left=op("map", fn="dup", arg=op("var", name="X")), right=inp("edges"))))))

Rows = Callable[[random.Random], list[list[Any]]]


def ints(rng: random.Random) -> list[list[Any]]:
    return [[rng.randint(0, 5), rng.choice(WEIGHTS)] for _ in range(rng.randint(0, 3))]


def pairs(rng: random.Random) -> list[list[Any]]:
    return [[[rng.randint(0, 2), rng.randint(0, 5)], rng.choice(WEIGHTS)] for _ in range(rng.randint(0, 3))]


def nodes(rng: random.Random) -> list[list[Any]]:
    return [[rng.choice("rab"), rng.choice((-1, 1))] for _ in range(rng.randint(0, 1))]


def edges(rng: random.Random) -> list[list[Any]]:
    return [[[rng.choice("rabcd"), rng.choice("abcd")], rng.choice((-1, 1))] for _ in range(rng.randint(0, 3))]


#: (slug, program, citations, generator of rows per input)
PROGRAMS: list[tuple[str, dict[str, Any], tuple[str, ...], dict[str, Rows]]] = [
    ("join", {"inputs": ["A", "B"], "output": op("join", left=inp("A"), right=inp("B"))},
     ("DD-CLAIM-RULE-JOIN",), {"A": pairs, "B": pairs}),
    ("distinct-of-map", {"inputs": ["A"], "output": op("distinct", arg=op("map", fn="mod3", arg=inp("A")))},
     ("DD-CLAIM-RULE-DISTINCT", "DD-CLAIM-RULE-LINEAR"), {"A": ints}),
    ("count-by-key", {"inputs": ["A"], "output": op("reduce", agg="count", arg=op("map", fn="key_mod3", arg=inp("A")))},
     ("DD-CLAIM-RULE-REDUCE", "DD-CLAIM-RULE-LINEAR"), {"A": ints}),
    ("filter-of-difference", {"inputs": ["A", "B"], "output": op("filter", pred="even", arg=op(
        "plus", left=inp("A"), right=op("negate", arg=inp("B"))))},
     ("DD-CLAIM-RULE-LINEAR",), {"A": ints, "B": ints}),
    ("min-per-key", {"inputs": ["A"], "output": op("reduce", agg="min", arg=inp("A"))},
     ("DD-CLAIM-RULE-REDUCE",), {"A": pairs}),
    ("distinct-of-join", {"inputs": ["A", "B"], "output": op("distinct", arg=op(
        "join", left=op("map", fn="key_mod3", arg=inp("A")), right=op("map", fn="key_mod3", arg=inp("B"))))},
     ("DD-CLAIM-RULE-JOIN", "DD-CLAIM-RULE-DISTINCT"), {"A": ints, "B": ints}),
    ("reachability", {"inputs": ["roots", "edges"], "output": op(
        "iterate", var="X", seed=inp("roots"), body=REACH_BODY)},
     ("DD-CLAIM-RULE-ITERATE", "DD-CLAIM-RULE-JOIN", "DD-CLAIM-RULE-DISTINCT"), {"roots": nodes, "edges": edges}),
]


def cases() -> Iterator[Case]:
    rng = random.Random(SEED)
    for slug, program, cites, rows in PROGRAMS:
        for n in range(TRACES_PER_PROGRAM):
            steps: list[dict[str, Any]] = []
            for _ in range(rng.randint(3, 5)):
                inputs = {name: r for name, gen in rows.items() if (r := gen(rng))}
                steps.append({"op": "step", "inputs": inputs})
            expected = oracle.denotational({"program": program}, steps)
            yield new_case(
                "zset", f"{slug}-trace-{n:02d}",
                f"Generated versions for the program {slug!r}: every version's output delta is "
                "output(t) - output(t - 1) by the standard semantics.",
                {"program": program}, [{**s, "expect": e} for s, e in zip(steps, expected, strict=True)],
                cites=("DD-DEC-DATAFLOW", "DD-EX-DELTA-N", *cites), source="generated",
                features=("iterate",) if "iterate" in json.dumps(program) else ())
