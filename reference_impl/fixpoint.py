"""The reference implementation's ``fixpoint`` engine: the managed API of
:mod:`reference.fixpoint.managed` (expansion and contraction with
re-derivation, FIX-ALG-*), behind the suite's :class:`FixpointEngine` protocol."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from conformance.protocols import FixpointChange, FixpointObservation
from reference.fixpoint.managed import Change, ManagedFixpoint, Update


class ReferenceFixpointEngine:
    def __init__(self) -> None:
        self.fp = ManagedFixpoint.empty()

    def _observe(self, update: Update) -> FixpointObservation:
        return FixpointObservation(current=self.fp.current, added=update.added, removed=update.removed,
                                   ranks=dict(self.fp.ranks), work=update.work.as_mapping())

    def make(self, roots: Sequence[Any], edges: Sequence[tuple[Any, Any]]) -> FixpointObservation:
        self.fp, update = ManagedFixpoint.make(roots, edges)
        return self._observe(update)

    def apply(self, change: FixpointChange) -> FixpointObservation:
        self.fp, update = self.fp.apply(Change(change.add_roots, change.remove_roots,
                                               change.add_edges, change.remove_edges))
        return self._observe(update)
