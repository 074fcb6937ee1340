"""The reference implementation's ``zset`` engine: the differential evaluation of
:mod:`reference.differential.dataflow` (DD-CLAIM-RULE-*), one version per ``step``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conformance.protocols import EngineError, WeightedRows
from reference.differential.dataflow import (
    DifferentialState,
    Program,
    initial_state,
    program_from_json,
    step,
    zset_from_rows,
    zset_to_rows,
)
from reference.differential.operators import DataflowError


class ReferenceZSetEngine:
    def __init__(self) -> None:
        self.program: Program | None = None
        self.state: DifferentialState = initial_state()

    def build(self, program: Mapping[str, Any]) -> None:
        try:
            self.program = program_from_json(program)
        except DataflowError as exc:
            raise EngineError(exc.error_class, str(exc)) from exc

    def step(self, inputs: Mapping[str, WeightedRows]) -> WeightedRows:
        if self.program is None:
            raise EngineError("malformed-input", "no program built")
        try:
            deltas = {name: zset_from_rows(rows) for name, rows in inputs.items()}
            self.state, out = step(self.program, self.state, deltas)
        except DataflowError as exc:
            raise EngineError(exc.error_class, str(exc)) from exc
        return [(e, w) for e, w in zset_to_rows(out)]
