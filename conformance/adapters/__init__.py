"""How the suite reaches an implementation: a :class:`Backend`, in process
(:mod:`~conformance.adapters.in_process`) or a subprocess over JSON lines
(:mod:`~conformance.adapters.subprocess_impl`)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol

from conformance.cases_model import Case
from conformance.protocols import CaseResult, Handshake


class Backend(Protocol):
    """One implementation as the suite runs it (:func:`conformance.execute.execute`)."""

    def handshake(self) -> Handshake: ...

    def run(self, cases: Sequence[Case]) -> Iterator[CaseResult]:
        """Results in the order of ``cases`` (one per case)."""
        ...

    def close(self) -> None: ...
