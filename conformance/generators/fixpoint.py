"""Generated ``fixpoint`` cases: random graphs and edit batches, and cost cases on long chains."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from conformance.cases_model import Case, new_case
from conformance.oracle import fixpoint as oracle

NODES = ("a", "b", "c", "d", "e", "f")
TRACES = 24
SEED = 20251123
CHAIN = 40


def _random_edges(rng: random.Random, n: int) -> list[list[str]]:
    return [[rng.choice(NODES), rng.choice(NODES)] for _ in range(n)]


def trace(rng: random.Random) -> list[dict[str, Any]]:
    roots = sorted(set(rng.sample(NODES, rng.randint(1, 2))))
    edges = sorted({tuple(e) for e in map(tuple, _random_edges(rng, rng.randint(4, 9)))})
    steps: list[dict[str, Any]] = [{"op": "make", "roots": roots, "edges": [list(e) for e in edges]}]
    live_edges = set(edges)
    for _ in range(rng.randint(3, 6)):
        step: dict[str, Any] = {"op": "apply"}
        gone = rng.sample(sorted(live_edges), min(len(live_edges), rng.randint(0, 2)))
        new = {tuple(e) for e in _random_edges(rng, rng.randint(0, 2))}
        if gone:
            step["remove_edges"] = [list(e) for e in gone]
        if new:
            step["add_edges"] = [list(e) for e in sorted(new)]
        if rng.random() < 0.3:
            step["add_roots" if rng.random() < 0.5 else "remove_roots"] = [rng.choice(NODES)]
        live_edges = (live_edges - set(gone)) | new
        steps.append(step)
    return steps


def _case(slug: str, description: str, steps: list[dict[str, Any]], cost: bool = False) -> Case:
    cites = ["FIX-DEF-1", "FIX-DEC-BATCH", "FIX-THM-1", "FIX-THM-2"] + (["FIX-CLAIM-COMPLEXITY"] if cost else [])
    expected = oracle.denotational(steps)
    bounds = oracle.cost_bounds(steps) if cost else [{}] * len(steps)
    full = []
    for step, exp, bound in zip(steps, expected, bounds, strict=True):
        full.append({**step, "expect": exp, **({"cost": bound} if bound else {})})
    return new_case("fixpoint", slug, description, {}, full, source="generated", cites=cites)


def chain_cases() -> Iterator[Case]:
    """Cost: a chain of 40 nodes hanging off R, and a small edit far from most of it."""
    chain = [[f"n{i}", f"n{i + 1}"] for i in range(CHAIN)]
    make = {"op": "make", "roots": ["R"], "edges": [["R", "n0"], *chain]}
    edits = [
        {"op": "apply", "add_edges": [["R", "x"], ["x", "y"]]},
        {"op": "apply", "remove_edges": [["x", "y"]]},
        {"op": "apply", "add_edges": [["R", f"n{CHAIN - 2}"]], "remove_roots": ["nobody"]},
        {"op": "apply", "remove_edges": [[f"n{CHAIN - 3}", f"n{CHAIN - 2}"]]},
    ]
    yield _case("cost-chain-local-edits",
                f"Cost: a chain of {CHAIN} live nodes; adding, then removing, a short branch at the root, "
                "and cutting the chain just before a node that has a second deriver, each touch a "
                "constant number of elements and step pairs, not the chain.",
                [make, *edits], cost=True)


def cases() -> Iterator[Case]:
    rng = random.Random(SEED)
    for n in range(TRACES):
        yield _case(f"graph-trace-{n:02d}",
                    "Generated edit trace on a small graph (cycles, self loops and diamonds arise at "
                    "random): after every batch the live set equals lfp(F) recomputed from scratch.",
                    trace(rng))
    yield from chain_cases()
