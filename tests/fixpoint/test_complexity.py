"""FIX-CLAIM-COMPLEXITY: the work counters bound each update by the size of the
change and its neighbourhood, not by the graph. Pure expansions are counted
exactly; contractions are bounded by the dying elements (removed ∪ churn), their
successors, the initial worklist and the edges incident to them. The 10^5-node
measurement is ``examples/fixpoint_work_counters.py``."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.fixpoint.general_pattern import Edge
from reference.fixpoint.managed import Change, ManagedFixpoint
from tests.fixpoint.strategies import apply_change, contractions, expansions, graphs

Graph = tuple[frozenset[int], frozenset[Edge]]


def degree(edges: frozenset[Edge], xs: frozenset[object]) -> int:
    """Σ_{x ∈ xs} (in-degree + out-degree)."""
    return sum((u in xs) + (v in xs) for u, v in edges)


@pytest.mark.spec("FIX-CLAIM-COMPLEXITY", evidence="property")
@given(graphs(), expansions())
def test_expansion_work_is_exactly_new_elements_and_their_edges(g: Graph, change: Change) -> None:
    roots, edges = g
    m, _ = ManagedFixpoint.make(roots, edges)
    m2, update = m.apply(change)
    new_roots = frozenset(change.add_roots) - roots
    new_edges = frozenset(change.add_edges) - edges
    added = m2.current - m.current
    out_of_added = sum(1 for u, _ in m2.edges if u in added)
    assert update.work.expansion.elements_visited == len(new_roots) + len(added)
    assert update.work.expansion.edges_scanned == len(new_edges) + out_of_added
    assert update.work.cascade.elements_visited == update.work.rederivation.elements_visited == 0


@pytest.mark.spec("FIX-CLAIM-COMPLEXITY", evidence="property")
@given(graphs(), st.data())
def test_contraction_work_is_bounded_by_the_affected_neighbourhood(g: Graph, data: st.DataObject) -> None:
    roots, edges = g
    change = data.draw(contractions(edges, roots))
    m, _ = ManagedFixpoint.make(roots, edges)
    m2, update = m.apply(change)
    _, edges2 = apply_change(roots, edges, change)
    dying = update.removed | update.churn
    worklist = frozenset(change.remove_roots) | {v for _, v in change.remove_edges}
    succ = frozenset(v for u, v in edges2 if u in dying)
    affected = dying | succ | worklist
    w = update.work
    gone = len(set(change.remove_edges)) + len(set(change.remove_roots))
    assert w.cascade.elements_visited <= gone + len(worklist) + sum(1 for u, _ in edges2 if u in dying)
    assert w.cascade.edges_scanned <= gone + degree(edges, affected)
    assert w.rederivation.elements_visited == len(dying)
    assert w.rederivation.edges_scanned == sum(1 for _, v in edges2 if v in dying)
    assert w.expansion.elements_visited == len(update.churn)
    assert w.expansion.edges_scanned == sum(1 for u, _ in edges2 if u in update.churn)


def chain_with_leaf(n: int) -> tuple[ManagedFixpoint, int]:
    m, _ = ManagedFixpoint.make({0}, [(i, i + 1) for i in range(n - 1)])
    return m, n


@pytest.mark.spec("FIX-CLAIM-COMPLEXITY", evidence="example")
def test_single_edge_work_does_not_grow_with_the_graph() -> None:
    """The same local edits on chains of 1,000 and 20,000 nodes cost the same work."""
    observed = []
    for n in (1_000, 20_000):
        m, _ = chain_with_leaf(n)
        mid = n // 2
        _, add_leaf = m.add_edge(mid, "leaf")
        shortcut, add_short = m.apply(Change(add_edges=((mid - 2, mid),)))
        _, remove_short = shortcut.apply(Change(remove_edges=((mid - 2, mid),)))
        observed.append((add_leaf.work.as_mapping(), add_short.work.as_mapping(),
                         remove_short.work.as_mapping()))
        assert add_leaf.added == {"leaf"} and not remove_short.removed
    assert observed[0] == observed[1]
    add_leaf_work = observed[0][0]
    assert add_leaf_work["elements_visited"] == 1 and add_leaf_work["edges_scanned"] == 1
