"""§1-§2 and §3.1.2 of *Incremental Fixpoint Computation*: the monotone operator
``F(S) = base ∪ step(S)`` with ``step(S) = ⋃_{x∈S} stepFwd(x)``, and its least
fixpoint by Kleene iteration. Catalog: ``spec/fixpoint.toml``.

This module is the *denotation*: every incremental algorithm of the package is
checked against :func:`lfp` computed here from scratch.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass

#: §3.1.1: "A: element type (e.g. graph nodes)". Elements must be hashable.
Elem = Hashable
#: §3.1.2: stepFwd : A -> Set(A), "forward derivation".
StepFwd = Callable[[Elem], Iterable[Elem]]
#: A finite step relation, as pairs (x, y) meaning y ∈ stepFwd(x) (DCE: the edges).
Edge = tuple[Elem, Elem]


@dataclass(frozen=True)
class Operator:
    """FIX-DEF-3 (Decomposed operator): F(S) = B ∪ step(S), with
    step(S) = ⋃_{x∈S} stepFwd(x) (§3.1.2), hence monotone (FIX-DEF-1).

    ``step_fwd`` must be stable (FIX-DEF-3.1.4.1): it returns the same set for
    the same element for as long as the operator is in use.
    """

    base: frozenset[Elem]
    step_fwd: StepFwd

    def __repr__(self) -> str:
        return f"Operator(base={set(self.base)!r})"


def step(op: Operator, S: Iterable[Elem]) -> frozenset[Elem]:
    """§3.1.2: step(S) = ⋃_{x∈S} stepFwd(x)."""
    return frozenset(y for x in S for y in op.step_fwd(x))


def F(op: Operator, S: Iterable[Elem]) -> frozenset[Elem]:
    """§3.1.2 / FIX-DEF-3: F(S) = base ∪ step(S)."""
    return op.base | step(op, S)


def kleene_chain(op: Operator) -> tuple[frozenset[Elem], ...]:
    """The iterates F^0(∅) = ∅ ⊆ F^1(∅) ⊆ ... up to the first repetition.

    Finite when the reachable part of the step relation is finite (the case of
    this package: every operator here has finitely many elements)."""
    chain = [frozenset[Elem]()]
    while True:
        nxt = F(op, chain[-1])
        if nxt == chain[-1]:
            return tuple(chain)
        chain.append(nxt)


def lfp(op: Operator) -> frozenset[Elem]:
    """FIX-DEF-1: lfp(F) = ⋂{x | F(x) ⊆ x}, computed as ⋃_n F^n(∅) (Kleene).

    For a monotone F on finite sets the union of the Kleene chain is the least
    fixpoint (Tarski/Kleene; checked against the intersection-of-prefixpoints
    definition exhaustively on small carriers in the tests)."""
    return kleene_chain(op)[-1]


def is_prefixpoint(op: Operator, S: frozenset[Elem]) -> bool:
    """F(S) ⊆ S."""
    return F(op, S) <= S


# --- the DCE instance (§1, Example 1) ---------------------------------------


def successors(edges: Iterable[Edge]) -> dict[Elem, frozenset[Elem]]:
    """stepFwd(u) = {v | (u, v) ∈ edges} as a finite map (FIX-EX-1)."""
    out: dict[Elem, set[Elem]] = {}
    for u, v in edges:
        out.setdefault(u, set()).add(v)
    return {u: frozenset(vs) for u, vs in out.items()}


def predecessors(edges: Iterable[Edge]) -> dict[Elem, frozenset[Elem]]:
    """stepInv(v) = {u | (u, v) ∈ edges} (FIX-EX-1, "predecessors, optional")."""
    return successors((v, u) for u, v in edges)


def lookup(table: Mapping[Elem, frozenset[Elem]]) -> StepFwd:
    """A stepFwd (or stepInv) reading a finite map; absent keys map to ∅."""
    empty: frozenset[Elem] = frozenset()

    def at(x: Elem) -> frozenset[Elem]:
        return table.get(x, empty)

    return at


def graph_operator(roots: Iterable[Elem], edges: Iterable[Edge]) -> Operator:
    """FIX-EX-1 / §1: the DCE operator F_G(S) = G.roots ∪ {v | ∃u∈S. (u,v) ∈ G.edges}."""
    return Operator(frozenset(roots), lookup(successors(edges)))


def live_set(roots: Iterable[Elem], edges: Iterable[Edge]) -> frozenset[Elem]:
    """§1: liveSet(G) = lfp(F_G)."""
    return lfp(graph_operator(roots, edges))
