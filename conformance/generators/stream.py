"""Generated ``stream`` cases: every named processor over random inputs, each input
cut into batches in every way (and with empty batches)."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

from conformance.cases_model import Case, new_case
from conformance.oracle import stream as oracle
from reference.streams.named import lookup

SEED = 20251125
INPUTS_PER_PROCESSOR = 2

Items = Callable[[random.Random], list[Any]]


def ints(rng: random.Random) -> list[Any]:
    return [rng.randint(-3, 6) for _ in range(rng.randint(3, 5))]


def tagged(rng: random.Random) -> list[Any]:
    return [[rng.choice("LR"), rng.randint(0, 2)] for _ in range(rng.randint(3, 5))]


def tagged_edges(rng: random.Random) -> list[Any]:
    return [[rng.choice("LR"), [rng.randint(0, 2), rng.randint(0, 2)]] for _ in range(rng.randint(3, 5))]


def values(rng: random.Random) -> list[Any]:
    return [rng.choice([1, 2, "a", [1, 2], 2]) for _ in range(rng.randint(3, 5))]


def signed(rng: random.Random) -> list[Any]:
    return [rng.choice(["tick", ["+", rng.randint(0, 3)], ["-", rng.randint(0, 3)]])
            for _ in range(rng.randint(3, 5))]


def packets(rng: random.Random) -> list[Any]:
    return [rng.choice(["tick", [rng.randint(0, 3), rng.choice("xyz")]]) for _ in range(rng.randint(3, 5))]


def rounds(rng: random.Random) -> list[Any]:
    return [[[rng.randint(0, 3), rng.randint(0, 3)] for _ in range(rng.randint(0, 2))]
            for _ in range(rng.randint(2, 4))]


def bits(rng: random.Random) -> list[Any]:
    return [[rng.randint(0, 1), rng.randint(0, 1)] for _ in range(rng.randint(3, 5))]


PLANS: list[tuple[str, dict[str, Any], Items]] = [
    ("prefix_sum", {}, ints), ("filter_even", {}, ints), ("map_inc", {"k": 2}, ints),
    ("integral", {}, ints), ("derivative", {}, ints), ("pairs", {}, tagged),
    ("join", {}, tagged_edges), ("join_partitioned", {"partitions": 2}, tagged_edges),
    ("join_partitioned", {"partitions": 3}, tagged_edges), ("split_merge", {"partitions": 3}, values),
    ("distinct", {}, values), ("set_difference_ticks", {}, signed), ("tcp_receiver", {}, packets),
    ("transitive_closure_loop", {}, rounds), ("full_adder", {"carry": 1}, bits),
]


def cases() -> Iterator[Case]:
    rng = random.Random(SEED)
    for processor, params, items_of in PLANS:
        for n in range(INPUTS_PER_PROCESSOR):
            items = items_of(rng)
            runs = [*oracle.cuts(items), *oracle.with_empty_batches(items)]
            setup = {"processor": processor, "params": params}
            steps = [{"op": "run", "batches": b} for b in runs]
            expected = oracle.denotational(setup, steps)
            suffix = "-".join(str(v) for v in params.values())
            slug = f"{processor.replace('_', '-')}{'-' + suffix if suffix else ''}-cuts-{n:02d}"
            yield new_case(
                "stream", slug,
                f"The processor {processor!r} over {len(items)} items cut into batches in every "
                f"way ({len(runs)} cuts, some with empty batches): the output never depends on the cut.",
                setup, [{**s, "expect": e} for s, e in zip(steps, expected, strict=True)],
                cites=("STREAM-DEC-BATCHING", *lookup(processor).spec_ids),
                source="generated")
