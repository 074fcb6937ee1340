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
        self.only_changes = False  # observations without the live set (the feature changes-only)

    def observe_changes_only(self) -> None:
        """Observations carry the added and removed elements only: the live set and the ranks
        are built whole when read (FIX-DEC-PERSISTENT-STATE), so a step then costs its update."""
        self.only_changes = True

    def _observe(self, update: Update) -> FixpointObservation:
        if self.only_changes:
            return FixpointObservation(current=frozenset(), added=update.added, removed=update.removed,
                                       work=update.work.as_mapping())
        return FixpointObservation(current=self.fp.current, added=update.added, removed=update.removed,
                                   ranks=dict(self.fp.ranks), work=update.work.as_mapping())

    def make(self, roots: Sequence[Any], edges: Sequence[tuple[Any, Any]]) -> FixpointObservation:
        self.fp, update = ManagedFixpoint.make(roots, edges)
        return self._observe(update)

    def apply(self, change: FixpointChange) -> FixpointObservation:
        self.fp, update = self.fp.apply(Change(change.add_roots, change.remove_roots,
                                               change.add_edges, change.remove_edges))
        return self._observe(update)
