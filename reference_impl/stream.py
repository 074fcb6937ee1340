"""The reference implementation's ``stream`` engine: :func:`reference.streams.named.run_named`,
which feeds the batches one at a time and threads the processor's state."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from conformance.protocols import EngineError
from reference.streams.named import MalformedInput, UnknownProcessor, run_named, to_json


class ReferenceStreamEngine:
    def run(self, processor: str, params: Mapping[str, Any],
            batches: Sequence[Sequence[Any]]) -> Sequence[Any]:
        try:
            out: Sequence[Any] = to_json(run_named(processor, params, batches))
        except UnknownProcessor as exc:
            raise EngineError("unsupported", f"unknown processor {processor!r}") from exc
        except MalformedInput as exc:
            raise EngineError("malformed-input", str(exc)) from exc
        return out
