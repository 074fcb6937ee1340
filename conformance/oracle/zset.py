"""Oracle for the ``zset`` area: the standard semantics of the dataflow language
(:mod:`reference.differential.dataflow`, DD-DEC-DATAFLOW), recomputed from scratch.

Setup: ``{"program": P}`` in the language's JSON form. Operations: ``step``,
one version's input deltas by input name (``[[element, weight], ...]``).
Observation: ``{"output": delta}`` with ``delta = output(t) - output(t - 1)``,
or an error class (``malformed-input`` for a bad program or element,
``no-fixpoint`` for an ``iterate`` that does not converge). A version that
errs leaves the inputs as they were (its deltas are dropped).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from conformance.cases_model import thaw
from reference.algebra.zset import ZSet
from reference.differential.dataflow import (
    Program,
    program_from_json,
    standard_outputs,
    zset_from_rows,
    zset_to_rows,
)
from reference.differential.operators import DataflowError

Observation = dict[str, Any]


def inputs_of(step: Mapping[str, Any]) -> dict[str, ZSet]:
    return {name: zset_from_rows(thaw(rows)) for name, rows in step.get("inputs", {}).items()}


def denotational(setup: Mapping[str, Any], steps: Sequence[Mapping[str, Any]]) -> list[Observation]:
    """Expected observations: each version's output delta by the standard semantics."""
    try:
        program: Program = program_from_json(thaw(setup["program"]))
    except DataflowError as exc:
        return [{"error": exc.error_class}]
    accepted: list[dict[str, ZSet]] = []
    previous = ZSet.zero()
    out: list[Observation] = []
    for step in steps:
        try:
            deltas = inputs_of(step)
            unknown = [n for n in deltas if n not in program.inputs]
            if unknown:
                raise DataflowError("malformed-input", f"undeclared inputs {unknown}")
            now = standard_outputs(program, [*accepted, deltas])[-1]
        except DataflowError as exc:
            out.append({"error": exc.error_class})
            continue
        accepted.append(deltas)
        out.append({"output": zset_to_rows(now - previous)})
        previous = now
    return out
