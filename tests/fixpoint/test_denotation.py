"""The denotation (§2, §3.4): lfp by Kleene iteration against the definition
⋂{x | F(x) ⊆ x}, ranks (Def. 4 and the BFS origin), wf-derivation, semi-naive
iteration and the well-founded cascade on the paper's graphs, and §1's claim
that expansion grows and contraction shrinks the fixpoint."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given

from reference.fixpoint import worked_example as W
from reference.fixpoint.formal_definitions import (
    bfs_rank,
    rank,
    semi_naive,
    wf_cascade,
    wf_derives,
)
from reference.fixpoint.general_pattern import Edge, Elem, graph_operator, is_prefixpoint, lfp
from reference.fixpoint.managed import Change
from tests.fixpoint.strategies import (
    all_graphs,
    apply_change,
    bfs_distances,
    changes,
    graphs,
    reachable,
    single_edits,
)

Graph = tuple[frozenset[Elem], frozenset[Edge]]


@pytest.mark.spec("FIX-DEF-1", evidence="exhaustive")
def test_kleene_lfp_is_the_intersection_of_prefixpoints() -> None:
    """Every graph on 3 nodes: ⋂{X ⊆ {0,1,2} | F(X) ⊆ X} = ⋃ F^n(∅)."""
    subsets = [frozenset(c) for k in range(4) for c in combinations(range(3), k)]
    for roots, edges in all_graphs(3):
        op = graph_operator(roots, edges)
        prefix = [X for X in subsets if is_prefixpoint(op, X)]
        meet = frozenset(range(3)).intersection(*prefix)
        assert lfp(op) == meet


@pytest.mark.spec("FIX-DEF-1", evidence="property")
@pytest.mark.spec("FIX-EX-1", evidence="property")
@given(graphs())
def test_lfp_is_reachability(g: Graph) -> None:
    assert lfp(graph_operator(*g)) == reachable(*g)


@pytest.mark.spec("FIX-DEF-4", evidence="example")
@pytest.mark.spec("FIX-DEC-RANK-ORIGIN", evidence="example")
def test_def4_rank_is_first_appearance_and_bfs_rank_is_one_less() -> None:
    op = graph_operator(W.SETUP_ROOTS, W.SETUP_EDGES)
    assert rank(op) == {"R": 1, "A": 2, "B": 3, "C": 4, "D": 3}  # F^1(∅) = base = {R}
    assert bfs_rank(op) == {"R": 0, "A": 1, "B": 2, "C": 3, "D": 2}  # §4.1's ranks


@pytest.mark.spec("FIX-DEC-RANK-ORIGIN", evidence="property")
@given(graphs())
def test_bfs_rank_is_bfs_distance(g: Graph) -> None:
    assert bfs_rank(graph_operator(*g)) == bfs_distances(*g)


@pytest.mark.spec("FIX-DEF-5", evidence="example")
def test_def5_wf_derivation_on_4_4() -> None:
    op = graph_operator(W.CYCLE_ROOTS, W.CYCLE_EDGES)
    r = bfs_rank(op)
    assert wf_derives(op, r, "R", "A") and wf_derives(op, r, "A", "B")
    assert not wf_derives(op, r, "B", "A")  # B -> A is an edge but 2 ≮ 1
    assert not wf_derives(op, r, "R", "B")  # lower rank but no edge


@pytest.mark.spec("FIX-DEF-6", evidence="example")
def test_def6_semi_naive_on_4_1() -> None:
    op = graph_operator(W.SETUP_ROOTS, W.SETUP_EDGES)
    chain = semi_naive(op, frozenset({"R"}))
    assert [sorted(D, key=repr) for _, D in chain] == [["R"], ["A"], ["B", "D"], ["C"], []]
    assert chain[-1][0] == {"R", "A", "B", "C", "D"}


@pytest.mark.spec("FIX-DEF-7", evidence="example")
def test_def7_cascade_on_4_4() -> None:
    """Remove R -> A; the cascade with the old ranks: K_1 drops A, K_2 drops B."""
    old = graph_operator(W.CYCLE_ROOTS, W.CYCLE_EDGES)
    new = graph_operator(W.CYCLE_ROOTS, (("A", "B"), ("B", "A")))
    chain = wf_cascade(new, bfs_rank(old), frozenset({"R", "A", "B"}))
    assert chain == (frozenset({"R", "A", "B"}), frozenset({"R", "B"}), frozenset({"R"}))


def _is_expansion(change: Change) -> bool:
    return not change.remove_roots and not change.remove_edges


def _is_contraction(change: Change) -> bool:
    return not change.add_roots and not change.add_edges


@pytest.mark.spec("FIX-CLAIM-1-LFP-MONO", evidence="property", part="expansion")
@pytest.mark.spec("FIX-CLAIM-1-LFP-MONO", evidence="property", part="contraction")
@given(graphs(), changes())
def test_expansion_grows_contraction_shrinks(g: Graph, change: Change) -> None:
    old = lfp(graph_operator(*g))
    new = lfp(graph_operator(*apply_change(*g, change)))
    if _is_expansion(change):
        assert old <= new
    if _is_contraction(change):
        assert new <= old


@pytest.mark.spec("FIX-CLAIM-1-LFP-MONO", evidence="exhaustive", part="expansion")
@pytest.mark.spec("FIX-CLAIM-1-LFP-MONO", evidence="exhaustive", part="contraction")
def test_expansion_grows_contraction_shrinks_exhaustive() -> None:
    for roots, edges in all_graphs(3):
        old = lfp(graph_operator(roots, edges))
        for change in single_edits(3, roots, edges):
            new = lfp(graph_operator(*apply_change(roots, edges, change)))
            assert old <= new if _is_expansion(change) else new <= old
