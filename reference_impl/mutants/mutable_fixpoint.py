"""An in-place incremental fixpoint engine, written to be mutated.

It implements the paper's §3.2 algorithms with the project's corrections
(expansion seeded by F'(current) \\ current; a re-derived or added element
ranked 1 + the least rank of its live derivers) over mutable dicts, as a
production engine would. Unmutated it passes the suite (a test checks it);
each fixpoint mutant overrides exactly one hook with a real-world fault.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from typing import Any

from conformance.protocols import FixpointChange, FixpointObservation


class FixpointEngineBase:
    def __init__(self) -> None:
        self.roots: set[Any] = set()
        self.fwd: dict[Any, set[Any]] = {}
        self.inv: dict[Any, set[Any]] = {}
        self.current: set[Any] = set()
        self.rank: dict[Any, int] = {}
        self.visited = 0
        self.scanned = 0

    # --- hooks -----------------------------------------------------------------

    def expansion_seeds(self, new_roots: Iterable[Any], new_edges: Iterable[tuple[Any, Any]]) -> set[Any]:
        """F'(current) \\ current restricted to what changed: new roots, and targets of new
        edges out of live elements."""
        seeds = {r for r in new_roots if r not in self.current}
        seeds |= {v for u, v in new_edges if u in self.current and v not in self.current}
        return seeds

    def well_founded(self, deriver: Any, x: Any) -> bool:
        """``deriver`` wf-derives ``x``: strictly lower rank (FIX-DEF-5)."""
        return self.rank[deriver] < self.rank[x]

    def supported(self, x: Any, dying: set[Any]) -> bool:
        """Phase 1: ``x`` keeps a live, not dying, well-founded deriver (examined afresh
        each time it is popped: a deriver may have died since)."""
        for y in self.inv.get(x, ()):
            self.scanned += 1
            if y in self.current and y not in dying and self.well_founded(y, x):
                return True
        return False

    def rederive(self, dying: set[Any]) -> set[Any]:
        """Phase 2: dying elements with a surviving deriver are expanded again."""
        return {y for y in dying if any(x in self.current for x in self.inv.get(y, ()))}

    def rank_for(self, x: Any) -> int:
        """An added element's rank: 0 for a root, else 1 + least rank of its live derivers."""
        if x in self.roots:
            return 0
        return 1 + min(self.rank[u] for u in self.inv.get(x, ()) if u in self.current and u in self.rank)

    # --- algorithms ---------------------------------------------------------------

    def expand(self, seeds: Iterable[Any]) -> None:
        frontier = deque(s for s in seeds if s not in self.current)
        queued = set(frontier)
        while frontier:
            x = frontier.popleft()
            self.visited += 1
            self.rank[x] = self.rank_for(x)
            self.current.add(x)
            for y in self.fwd.get(x, ()):
                self.scanned += 1
                if y not in self.current and y not in queued:
                    queued.add(y)
                    frontier.append(y)

    def contract(self, worklist: Iterable[Any]) -> None:
        work = deque(worklist)
        dying: set[Any] = set()
        while work:
            x = work.popleft()
            self.visited += 1
            if x in dying or x not in self.current or x in self.roots:
                continue
            if not self.supported(x, dying):
                dying.add(x)
                for z in self.fwd.get(x, ()):
                    self.scanned += 1
                    work.append(z)
        self.current -= dying
        for x in dying:
            del self.rank[x]
        self.expand(self.rederive(dying))

    # --- the FixpointEngine protocol -------------------------------------------------

    def make(self, roots: Sequence[Any], edges: Sequence[tuple[Any, Any]]) -> FixpointObservation:
        self.__init__()  # type: ignore[misc]
        return self.apply(FixpointChange(add_roots=tuple(roots), add_edges=tuple(edges)))

    def apply(self, change: FixpointChange) -> FixpointObservation:
        self.visited = self.scanned = 0
        before = set(self.current)
        add_roots, add_edges = set(change.add_roots), {tuple(e) for e in change.add_edges}
        gone_roots = {r for r in change.remove_roots if r in self.roots and r not in add_roots}
        gone_edges = {(u, v) for u, v in change.remove_edges
                      if v in self.fwd.get(u, ()) and (u, v) not in add_edges}
        self.roots -= gone_roots
        for u, v in gone_edges:
            self.fwd[u].discard(v)
            self.inv[v].discard(u)
        self.contract([*gone_roots, *(v for _, v in gone_edges)])
        new_roots = add_roots - self.roots
        new_edges = {(u, v) for u, v in add_edges if v not in self.fwd.get(u, ())}
        self.roots |= new_roots
        for r in new_roots & self.current:
            self.rank[r] = 0
        for u, v in new_edges:
            self.fwd.setdefault(u, set()).add(v)
            self.inv.setdefault(v, set()).add(u)
        self.expand(self.expansion_seeds(new_roots, new_edges))
        return FixpointObservation(
            current=frozenset(self.current), added=frozenset(self.current - before),
            removed=frozenset(before - self.current), ranks=dict(self.rank),
            work={"elements_visited": self.visited, "edges_scanned": self.scanned},
        )
