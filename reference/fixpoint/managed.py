"""§3.1.4 "Managed API (No User Obligations)": the system owns the step
relation as explicit data (roots and edges), computes stepFwd and stepInv
itself and derives exact deltas from the mutation methods, so neither user
obligation (FIX-DEF-3.1.4.1, FIX-DEF-3.1.4.2) can be violated.

A :class:`ManagedFixpoint` is an immutable value. Every update method returns
``(new_fixpoint, update)`` where :class:`Update` is the output delta a
downstream consumer needs (elements added to and removed from the fixpoint,
§7) with the work counters of the update.

Batch semantics (FIX-DEC-BATCH): a :class:`Change` denotes the configuration
``roots' = (roots \\ remove_roots) ∪ add_roots``, ``edges' = (edges \\
remove_edges) ∪ add_edges`` (removals first, then additions; removing an
absent root or edge and adding a present one are no-ops). The update acts on
the *net* difference between the two configurations: contraction for the net
removals, then expansion for the net additions; ``added``/``removed`` are
lfp(F') \\ lfp(F) and lfp(F) \\ lfp(F'). A root removed and re-added in one
batch is therefore untouched and reported in neither set.

Ranks (FIX-DEC-RANKS-OBSERVABLE): ``ranks`` are observable; after every
operation they satisfy the rank invariant FIX-DEC-RANK-INVARIANT, and after
:meth:`ManagedFixpoint.make` they are the exact BFS distances from the roots.
Exactness is *not* kept by later updates (an added shortcut edge does not
lower the ranks of elements already live), and conformance requires only the
invariant.

Persistence (FIX-DEC-PERSISTENT-STATE): the live set, the rank map and the
adjacency maps are persistent values, so an update writes only the elements,
ranks and adjacency entries it touches and shares the rest with the value it
came from, which stays valid. Its cost is in proportion to the affected region
(the work counters of :mod:`reference.fixpoint.algorithms`, times a
logarithm), not to the graph; ``current`` and ``edges`` are built whole only
when asked for.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Set
from dataclasses import dataclass, field
from typing import Literal

from reference.algebra.persistent import PMap
from reference.fixpoint import algorithms, printed
from reference.fixpoint.algorithms import Applied, Config, State, UpdateWork
from reference.fixpoint.general_pattern import Edge, Elem, lookup

Variant = Literal["corrected", "printed"]


@dataclass(frozen=True)
class Change:
    """A batch of edits (FIX-DEC-BATCH); mirrors the conformance suite's ``FixpointChange``."""

    add_roots: tuple[Elem, ...] = ()
    remove_roots: tuple[Elem, ...] = ()
    add_edges: tuple[Edge, ...] = ()
    remove_edges: tuple[Edge, ...] = ()


@dataclass(frozen=True)
class Update:
    """The output delta of one operation: lfp(F') \\ lfp(F), lfp(F) \\ lfp(F'), and work.
    ``churn``: elements the update removed and added back (stale-rank
    re-derivation, §4.5), in neither ``added`` nor ``removed``; reported so
    that the work can be compared with what the update touched."""

    added: frozenset[Elem]
    removed: frozenset[Elem]
    work: UpdateWork = UpdateWork()
    churn: frozenset[Elem] = frozenset()


def output_delta(old: Set[Elem], applied: Applied) -> Update:
    """§7's output delta of an update from the live set ``old``: added =
    lfp(F') \\ lfp(F), removed = lfp(F) \\ lfp(F') (both found among the touched
    elements), and the churn (touched, live before and after)."""
    new = applied.state.live
    return Update(frozenset(x for x in applied.touched if x in new and x not in old),
                  frozenset(x for x in applied.touched if x in old and x not in new),
                  applied.work,
                  frozenset(x for x in applied.touched if x in old and x in new))


def _adjust(table: PMap[Elem, frozenset[Elem]], add: Iterable[Edge],
            remove: Iterable[Edge]) -> PMap[Elem, frozenset[Elem]]:
    """The adjacency map with pairs (k, v) removed then added: a new value that
    shares every entry but those of the keys changed (the same map when there is
    nothing to change). Each changed key's set is rebuilt once, from all its pairs
    (pair by pair, a key of n pairs would be copied n times: quadratic on a star)."""
    removed: dict[Elem, set[Elem]] = {}
    added: dict[Elem, set[Elem]] = {}
    for k, v in remove:
        removed.setdefault(k, set()).add(v)
    for k, v in add:
        added.setdefault(k, set()).add(v)
    if not added and not removed:
        return table
    out = table.evolver()
    none: frozenset[Elem] = frozenset()
    for k in dict.fromkeys([*removed, *added]):  # first seen first: deterministic
        entry = (out.get(k, none) - removed.get(k, none)) | added.get(k, none)
        if entry:
            out[k] = entry
        else:
            out.discard(k)
    return out.persistent()


@dataclass(frozen=True)
class ManagedFixpoint:
    """The managed API over a graph: base = roots, stepFwd = successors and
    stepInv = predecessors, both maintained incrementally from the edges.
    ``variant="printed"`` runs the pseudo-code as printed (evidence only,
    FIX-DEC-PRINTED-VARIANT)."""

    roots: frozenset[Elem]
    fwd: PMap[Elem, frozenset[Elem]]
    inv: PMap[Elem, frozenset[Elem]]
    state: State
    variant: Variant = "corrected"
    edge_count: int = field(default=0)

    # --- observations ---

    @property
    def current(self) -> frozenset[Elem]:
        return self.state.current

    @property
    def ranks(self) -> Mapping[Elem, int]:
        return self.state.rank

    @property
    def edges(self) -> frozenset[Edge]:
        return frozenset((u, v) for u, vs in self.fwd.items() for v in vs)

    def config(self) -> Config:
        return Config(self.roots, lookup(self.fwd), lookup(self.inv))

    # --- construction ---

    @staticmethod
    def empty(variant: Variant = "corrected") -> ManagedFixpoint:
        return ManagedFixpoint(frozenset(), PMap(), PMap(), State(), variant)

    @staticmethod
    def make(roots: Iterable[Elem], edges: Iterable[Edge],
             variant: Variant = "corrected") -> tuple[ManagedFixpoint, Update]:
        """§3.1 ``make``: the fixpoint of the given roots and edges (an expansion
        from the empty state: BFS ranks are exact here)."""
        return ManagedFixpoint.empty(variant).apply(
            Change(add_roots=tuple(roots), add_edges=tuple(edges)))

    # --- updates ---

    def add_root(self, x: Elem) -> tuple[ManagedFixpoint, Update]:
        return self.apply(Change(add_roots=(x,)))

    def remove_root(self, x: Elem) -> tuple[ManagedFixpoint, Update]:
        return self.apply(Change(remove_roots=(x,)))

    def add_edge(self, x: Elem, y: Elem) -> tuple[ManagedFixpoint, Update]:
        return self.apply(Change(add_edges=((x, y),)))

    def remove_edge(self, x: Elem, y: Elem) -> tuple[ManagedFixpoint, Update]:
        return self.apply(Change(remove_edges=((x, y),)))

    def apply(self, change: Change) -> tuple[ManagedFixpoint, Update]:
        """Apply a batch (FIX-DEC-BATCH): contraction for the net removals, then
        expansion for the net additions; returns the new value and the output delta."""
        add_roots = {r: None for r in change.add_roots}
        add_edges = {e: None for e in change.add_edges}
        gone_roots = tuple(dict.fromkeys(
            r for r in change.remove_roots if r in self.roots and r not in add_roots))
        gone_edges = tuple(dict.fromkeys(
            (u, v) for u, v in change.remove_edges
            if v in self.fwd.get(u, ()) and (u, v) not in add_edges))
        new_roots = tuple(r for r in add_roots if r not in self.roots)
        new_edges = tuple((u, v) for u, v in add_edges if v not in self.fwd.get(u, ()))

        mid_roots = self.roots.difference(gone_roots) if gone_roots else self.roots
        mid_fwd = _adjust(self.fwd, (), gone_edges)
        mid_inv = _adjust(self.inv, (), ((v, u) for u, v in gone_edges))
        new_fwd = _adjust(mid_fwd, new_edges, ())
        new_inv = _adjust(mid_inv, ((v, u) for u, v in new_edges), ())
        final_roots = mid_roots.union(new_roots) if new_roots else mid_roots
        printed_code = self.variant == "printed"
        applied = algorithms.apply_delta(
            self.state, Config(mid_roots, lookup(mid_fwd), lookup(mid_inv)),
            Config(final_roots, lookup(new_fwd), lookup(new_inv)),
            gone_roots, gone_edges, new_roots, new_edges,
            contraction=printed.contract if printed_code else algorithms.contract,
            expansion=printed.expansion_phase if printed_code else algorithms.expansion_phase)
        edge_count = self.edge_count - len(gone_edges) + len(new_edges)
        return (ManagedFixpoint(final_roots, new_fwd, new_inv, applied.state, self.variant, edge_count),
                output_delta(self.state.live, applied))

