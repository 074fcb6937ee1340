"""One released engine's run under the suite: what the results page and its data file are made of."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from conformance.execute import Outcome
from conformance.protocols import Handshake


@dataclass(frozen=True)
class EngineRun:
    """One engine's run: its handshake and outcomes, or why it did not run."""

    name: str
    handshake: Handshake | None = None
    outcomes: Sequence[Outcome] = ()
    known: Mapping[str, str] = field(default_factory=dict)  # case ID -> the cause of its known failure
    #: work counter -> the causes known to make it exceed its bound, each with its factor (engines/cost_causes.py)
    cost_causes: Mapping[str, Sequence[Mapping[str, Any]]] = field(default_factory=dict)
    problem: str = ""
