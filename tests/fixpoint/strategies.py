"""Generators shared by the fixpoint checks: small graphs, edits, batches,
and exhaustive enumeration of every graph on a few nodes."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import product

from hypothesis import strategies as st

from reference.fixpoint.general_pattern import Edge, Elem
from reference.fixpoint.managed import Change

NODES = 7
node = st.integers(0, NODES - 1)
edge = st.tuples(node, node)
roots_st = st.frozensets(node, max_size=3)
edges_st = st.frozensets(edge, max_size=16)


@st.composite
def graphs(draw: st.DrawFn) -> tuple[frozenset[int], frozenset[Edge]]:
    return draw(roots_st), draw(edges_st)


@st.composite
def changes(draw: st.DrawFn, max_items: int = 3) -> Change:
    """A batch: any mix of root/edge additions and removals (absent removals included)."""
    def items(s: st.SearchStrategy[object]) -> tuple[object, ...]:
        return tuple(draw(st.lists(s, max_size=max_items)))
    return Change(add_roots=items(node), remove_roots=items(node),
                  add_edges=items(edge), remove_edges=items(edge))  # type: ignore[arg-type]


@st.composite
def expansions(draw: st.DrawFn) -> Change:
    return Change(add_roots=tuple(draw(st.lists(node, max_size=2))),
                  add_edges=tuple(draw(st.lists(edge, min_size=1, max_size=4))))


@st.composite
def contractions(draw: st.DrawFn, edges: frozenset[Edge], roots: frozenset[Elem]) -> Change:
    """Removals of present edges and roots only (a pure contraction F' ⊑ F)."""
    es = sorted(edges, key=repr)
    rs = sorted(roots, key=repr)
    gone_e = draw(st.lists(st.sampled_from(es), max_size=4)) if es else []
    gone_r = draw(st.lists(st.sampled_from(rs), max_size=1)) if rs else []
    return Change(remove_roots=tuple(gone_r), remove_edges=tuple(gone_e))


def apply_change(roots: frozenset[Elem], edges: frozenset[Edge], change: Change
                 ) -> tuple[frozenset[Elem], frozenset[Edge]]:
    """FIX-DEC-BATCH's meaning of a batch, written independently of the reference."""
    new_roots = (roots - set(change.remove_roots)) | set(change.add_roots)
    new_edges = (edges - set(change.remove_edges)) | set(change.add_edges)
    return frozenset(new_roots), frozenset(new_edges)


def reachable(roots: frozenset[Elem], edges: frozenset[Edge]) -> frozenset[Elem]:
    """Reachability by a plain graph search: an oracle independent of the reference."""
    seen: set[Elem] = set(roots)
    stack: list[Elem] = list(roots)
    while stack:
        u = stack.pop()
        for a, b in edges:
            if a == u and b not in seen:
                seen.add(b)
                stack.append(b)
    return frozenset(seen)


def bfs_distances(roots: frozenset[Elem], edges: frozenset[Edge]) -> dict[Elem, int]:
    """Exact BFS distance from the roots (an oracle for ranks after make)."""
    dist: dict[Elem, int] = {r: 0 for r in roots}
    layer: list[Elem] = list(roots)
    while layer:
        nxt: list[Elem] = []
        for u in layer:
            for a, b in sorted(edges, key=repr):
                if a == u and b not in dist:
                    dist[b] = dist[u] + 1
                    nxt.append(b)
        layer = nxt
    return dist


def all_graphs(n: int) -> Iterator[tuple[frozenset[int], frozenset[Edge]]]:
    """Every (roots, edges) on nodes 0..n-1 (2^n * 2^(n*n) graphs)."""
    pairs = [(a, b) for a in range(n) for b in range(n)]
    for rbits in product((0, 1), repeat=n):
        roots = frozenset(i for i, bit in enumerate(rbits) if bit)
        for ebits in product((0, 1), repeat=len(pairs)):
            yield roots, frozenset(p for p, bit in zip(pairs, ebits, strict=True) if bit)


def single_edits(n: int, roots: frozenset[Elem], edges: frozenset[Edge]) -> Iterator[Change]:
    """Every single addition or removal of one root or one edge on nodes 0..n-1."""
    for x in range(n):
        yield Change(remove_roots=(x,)) if x in roots else Change(add_roots=(x,))
    for a in range(n):
        for b in range(n):
            e = (a, b)
            yield Change(remove_edges=(e,)) if e in edges else Change(add_edges=(e,))
