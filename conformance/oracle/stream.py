"""Oracle for the ``stream`` area: the named processors of :mod:`reference.streams.named`.

Setup: ``{"processor": name, "params": {...}}``. Operations: ``run``, the same
input cut into ``batches`` in some way. Observation: ``{"output": ...}``, the
processor's whole output in JSON. A stream processor is a monoid
homomorphism with state, so its output does not depend on the cut
(STREAM-DEC-BATCHING): the expectation of every ``run`` is the output on the
input in one batch.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from conformance.cases_model import thaw
from reference.streams.named import MalformedInput, UnknownProcessor, run_named, to_json

Observation = dict[str, Any]


def output(processor: str, params: Mapping[str, Any], items: Sequence[Any]) -> Observation:
    """The expected observation of any cut of ``items``: the output on one batch."""
    try:
        return {"output": to_json(run_named(processor, thaw(params), [list(thaw(items))]))}
    except (MalformedInput, UnknownProcessor):
        return {"error": "malformed-input"}


def denotational(setup: Mapping[str, Any], steps: Sequence[Mapping[str, Any]]) -> list[Observation]:
    return [output(setup["processor"], setup.get("params", {}),
                   [x for batch in step["batches"] for x in batch]) for step in steps]


def cuts(items: Sequence[Any]) -> list[list[list[Any]]]:
    """Every way of cutting ``items`` into non-empty batches (2^(n-1) of them; one, empty, for n = 0)."""
    if not items:
        return [[]]
    out: list[list[list[Any]]] = []
    n = len(items)
    for mask in range(2 ** (n - 1)):
        batches, current = [], [items[0]]
        for i in range(1, n):
            if mask >> (i - 1) & 1:
                batches.append(current)
                current = []
            current.append(items[i])
        batches.append(current)
        out.append([list(b) for b in batches])
    return out


def with_empty_batches(items: Sequence[Any]) -> list[list[list[Any]]]:
    """Cuts with empty batches: before, between every item, and after."""
    between: list[list[Any]] = [[]]
    for x in items:
        between += [[x], []]
    return [[[], list(items)], [list(items), [], []], between]
