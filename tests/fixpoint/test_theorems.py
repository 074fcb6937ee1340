"""Theorems 1-3 and the Lean lemmas, as properties over random graphs and edit
sequences against the naive lfp, and exhaustively over every graph on 3 nodes
(512 edge sets x 8 root sets = 4096 graphs, each with each of its 12 single
edits: 49,152 updates)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.fixpoint.algorithms import (
    Config,
    State,
    cascade,
    contract,
    expand,
    expansion_frontier,
    freeze,
    lost_support,
)
from reference.fixpoint.correctness import check_rank_invariant
from reference.fixpoint.formal_definitions import (
    bfs_rank,
    cascade_and_rederive,
    has_wf_deriver,
    rank,
    semi_naive,
    wf_cascade,
    wf_cascade_fix,
)
from reference.fixpoint.general_pattern import (
    Edge,
    Elem,
    F,
    graph_operator,
    lfp,
    live_set,
    lookup,
    predecessors,
    successors,
)
from reference.fixpoint.managed import Change, ManagedFixpoint
from tests.fixpoint.strategies import (
    all_graphs,
    apply_change,
    contractions,
    expansions,
    graphs,
    node,
    reachable,
    single_edits,
)

Graph = tuple[frozenset[Elem], frozenset[Edge]]


def config_of(roots: frozenset[Elem], edges: frozenset[Edge]) -> Config:
    return Config(roots, lookup(successors(edges)), lookup(predecessors(edges)))


def is_expansion(change: Change) -> bool:
    return not change.remove_roots and not change.remove_edges


def seeded_expansion(g: Graph, change: Change) -> tuple[ManagedFixpoint, Graph, dict[Elem, int]]:
    """The managed fixpoint of ``g``, the graph after ``change``, and the seeds (with their
    ranks) of the expansion by the roots and edges ``change`` adds to ``g``."""
    roots, edges = g
    m, _ = ManagedFixpoint.make(roots, edges)
    seeds, _ = expansion_frontier(m.state, tuple(set(change.add_roots) - roots),
                                  tuple(set(change.add_edges) - edges))
    return m, apply_change(roots, edges, change), seeds


def check_update(roots: frozenset[Elem], edges: frozenset[Edge], change: Change) -> None:
    """One managed update against the independent oracle: result, delta, invariant."""
    m, _ = ManagedFixpoint.make(roots, edges)
    m2, update = m.apply(change)
    roots2, edges2 = apply_change(roots, edges, change)
    truth = reachable(roots2, edges2)
    assert m2.current == truth, (roots, edges, change)
    assert update.added == truth - m.current and update.removed == m.current - truth
    assert check_rank_invariant(m2.state, config_of(roots2, edges2)), (roots, edges, change)


# --- Theorem 1 ----------------------------------------------------------------


@pytest.mark.spec("FIX-THM-1", evidence="property")
@pytest.mark.spec("FIX-DEC-EXPAND-SEED", evidence="property")
@given(graphs(), expansions())
def test_thm1_expansion_reaches_new_lfp(g: Graph, change: Change) -> None:
    check_update(*g, change)


@pytest.mark.spec("FIX-THM-1", evidence="exhaustive")
@pytest.mark.spec("FIX-THM-2", evidence="exhaustive")
@pytest.mark.spec("FIX-DEC-RANK-INVARIANT", evidence="exhaustive")
def test_thm1_thm2_every_single_edit_on_three_nodes() -> None:
    count = 0
    for roots, edges in all_graphs(3):
        m, _ = ManagedFixpoint.make(roots, edges)
        for change in single_edits(3, roots, edges):
            m2, update = m.apply(change)
            roots2, edges2 = apply_change(roots, edges, change)
            truth = reachable(roots2, edges2)
            assert m2.current == truth, (roots, edges, change)
            assert update.added == truth - m.current and update.removed == m.current - truth
            assert check_rank_invariant(m2.state, config_of(roots2, edges2))
            count += 1
    assert count == 4096 * 12


@pytest.mark.spec("FIX-DEC-EXPAND-SEED", evidence="property")
@given(graphs(), expansions())
def test_seeded_frontier_is_F_new_of_current_minus_current(g: Graph, change: Change) -> None:
    """As sets, the seeds are F'(lfp) \\ lfp (Lean ``expansionDelta``)."""
    m, (roots2, edges2), seeds = seeded_expansion(g, change)
    assert frozenset(seeds) == F(graph_operator(roots2, edges2), m.current) - m.current


# --- Theorem 2 ----------------------------------------------------------------


@pytest.mark.spec("FIX-THM-2", evidence="property")
@given(graphs(), st.data())
def test_thm2_contraction_reaches_new_lfp(g: Graph, data: st.DataObject) -> None:
    check_update(*g, data.draw(contractions(g[1], g[0])))


# --- Theorem 3 ----------------------------------------------------------------


@pytest.mark.spec("FIX-THM-3", evidence="property", part="expansion")
@given(graphs(), expansions())
def test_thm3_expansion_never_overshoots(g: Graph, change: Change) -> None:
    """Every intermediate state of expansion (after each settled element) ⊆ lfp(F')."""
    m, (roots2, edges2), seeds = seeded_expansion(g, change)
    e = expand(m.state, config_of(roots2, edges2), seeds, record=True)
    truth = reachable(roots2, edges2)
    assert all(s <= truth for s in e.trace)
    assert e.state.current == truth


def exact_new_ranks_state(old: frozenset[Elem], roots2: frozenset[Elem], edges2: frozenset[Edge]) -> State:
    """The old fixpoint ranked with the *new* operator's exact BFS ranks
    (elements outside lfp(F') have no finite rank)."""
    r = bfs_rank(graph_operator(roots2, edges2))
    return freeze(old, {x: r[x] for x in old if x in r})


@pytest.mark.spec("FIX-THM-3", evidence="property", part="contraction")
@given(graphs(), st.data())
def test_thm3_contraction_with_exact_new_ranks_never_undershoots(g: Graph, data: st.DataObject) -> None:
    roots, edges = g
    change = data.draw(contractions(edges, roots))
    roots2, edges2 = apply_change(roots, edges, change)
    old, truth = reachable(roots, edges), reachable(roots2, edges2)
    state = exact_new_ranks_state(old, roots2, edges2)
    worklist, _ = lost_support(state, set(change.remove_roots), set(change.remove_edges))
    c = contract(state, config_of(roots2, edges2), worklist, record=True)
    assert all(truth <= s for s in c.trace)
    assert c.state.current == truth
    # Def. 7's synchronous cascade too (Lean lfp'_subset_wfCascadeN)
    chain = wf_cascade(graph_operator(roots2, edges2), state.rank, old)
    assert all(truth <= K for K in chain)


@pytest.mark.spec("FIX-THM-3", evidence="exhaustive", part="expansion")
@pytest.mark.spec("FIX-THM-3", evidence="exhaustive", part="contraction")
@pytest.mark.spec("FIX-LEM-CASCADE-KEEPS-LFP", evidence="exhaustive")
@pytest.mark.spec("FIX-LEM-SEMINAIVE", evidence="exhaustive", part="within")
def test_thm3_both_halves_on_three_nodes() -> None:
    """Expansion: every semi-naive C_n from the old fixpoint ⊆ lfp(F') (F ⊑ F').
    Contraction: every K_n of Def. 7 with F''s exact ranks ⊇ lfp(F') (F' ⊑ F).
    For every pair of graphs on 3 nodes related by one single edit."""
    count = 0
    for roots, edges in all_graphs(3):
        old = live_set(roots, edges)
        for change in single_edits(3, roots, edges):
            roots2, edges2 = apply_change(roots, edges, change)
            op2 = graph_operator(roots2, edges2)
            truth = lfp(op2)
            if is_expansion(change):
                init = old | (roots2 - old)
                assert all(C <= truth for C, _ in semi_naive(op2, init))
            else:
                chain = wf_cascade(op2, bfs_rank(op2), old)
                assert all(truth <= K for K in chain) and chain[-1] == truth
            count += 1
    assert count == 4096 * 12


@pytest.mark.spec("FIX-THM-3-STALE", evidence="property")
@given(graphs(), st.data())
def test_thm3_stale_ranks_break_intermediate_soundness_somewhere(g: Graph, data: st.DataObject) -> None:
    """Not a universal claim: over random contractions, whenever the stale-rank
    cascade deletes an element of lfp(F'), re-derivation restores it, so the
    final result is right (FIX-THM-CASCADE-REDERIVE) while the intermediate
    claim fails; the §4.5 graph is the exhibited counterexample (example test)."""
    roots, edges = g
    change = data.draw(contractions(edges, roots))
    m, _ = ManagedFixpoint.make(roots, edges)
    roots2, edges2 = apply_change(roots, edges, change)
    truth = reachable(roots2, edges2)
    worklist, _ = lost_support(m.state, set(change.remove_roots), set(change.remove_edges))
    c = contract(m.state, config_of(roots2, edges2), worklist, record=True)
    undershoot = [s for s in c.trace if not truth <= s]
    assert c.state.current == truth
    assert bool(undershoot) == bool(c.dying & truth)  # intermediate failure iff over-deletion


# --- Lean lemmas ----------------------------------------------------------------


@pytest.mark.spec("FIX-THM-CASCADE-REDERIVE", evidence="property")
@given(graphs(), st.data(), st.dictionaries(node, st.integers(0, 4)))
def test_cascade_then_rederive_is_correct_for_any_ranks(g: Graph, data: st.DataObject,
                                                        any_rank: dict[Elem, int]) -> None:
    """cascade_rederive_correct' with an arbitrary rank function (absent = ∞)."""
    roots, edges = g
    change = data.draw(contractions(edges, roots))
    roots2, edges2 = apply_change(roots, edges, change)
    old = live_set(roots, edges)
    assert cascade_and_rederive(graph_operator(roots2, edges2), old, any_rank) == reachable(roots2, edges2)


@pytest.mark.spec("FIX-THM-CASCADE-REDERIVE", evidence="exhaustive")
def test_cascade_then_rederive_any_ranks_exhaustive() -> None:
    """Every graph on 3 nodes, every single-edge removal, every rank map in {0,1,2}^3."""
    from itertools import product

    count = 0
    for roots, edges in all_graphs(3):
        old = live_set(roots, edges)
        for e in sorted(edges):
            op2 = graph_operator(roots, edges - {e})
            truth = lfp(op2)
            for ranks in product(range(3), repeat=3):
                assert cascade_and_rederive(op2, old, dict(enumerate(ranks))) == truth
                count += 1
    assert count > 10_000


@pytest.mark.spec("FIX-LEM-SEMINAIVE", evidence="property", part="within")
@pytest.mark.spec("FIX-LEM-SEMINAIVE", evidence="property", part="reaches")
@given(graphs(), st.frozensets(node, max_size=4))
def test_semi_naive_within_and_reaching_lfp(g: Graph, extra: frozenset[int]) -> None:
    op = graph_operator(*g)
    truth = lfp(op)
    init = op.base | (extra & truth)  # base ⊆ I ⊆ lfp
    chain = semi_naive(op, init)
    assert all(C <= truth for C, _ in chain)
    assert chain[-1][0] == truth


@pytest.mark.spec("FIX-LEM-SEMINAIVE", evidence="exhaustive", part="reaches")
def test_semi_naive_reaches_lfp_exhaustive() -> None:
    for roots, edges in all_graphs(3):
        op = graph_operator(roots, edges)
        assert semi_naive(op, op.base)[-1][0] == lfp(op)


@pytest.mark.spec("FIX-LEM-CASCADE-KEEPS-LFP", evidence="property")
@given(graphs(), st.data())
def test_cascade_keeps_new_lfp_with_new_ranks(g: Graph, data: st.DataObject) -> None:
    roots, edges = g
    change = data.draw(contractions(edges, roots))
    roots2, edges2 = apply_change(roots, edges, change)
    op2 = graph_operator(roots2, edges2)
    truth = lfp(op2)
    chain = wf_cascade(op2, bfs_rank(op2), live_set(roots, edges))
    assert all(truth <= K for K in chain)
    assert chain[-1] == truth  # and wf_contraction_correctness: the fixpoint is lfp'


@pytest.mark.spec("FIX-CLAIM-FINITENESS", evidence="property")
@given(graphs(), st.data(), st.dictionaries(node, st.integers(0, 4)))
def test_cascade_stabilises_within_size_steps(g: Graph, data: st.DataObject,
                                              any_rank: dict[Elem, int]) -> None:
    roots, edges = g
    change = data.draw(contractions(edges, roots))
    roots2, edges2 = apply_change(roots, edges, change)
    init = live_set(roots, edges)
    chain = wf_cascade(graph_operator(roots2, edges2), any_rank, init)
    assert len(chain) - 1 <= len(init)  # strict decreases, at most |I| of them
    assert all(b < a for a, b in zip(chain, chain[1:], strict=False))


@pytest.mark.spec("FIX-CLAIM-FINITENESS", evidence="exhaustive")
def test_cascade_stabilises_exhaustive() -> None:
    for roots, edges in all_graphs(3):
        init = live_set(roots, edges)
        for e in sorted(edges):
            op2 = graph_operator(roots, edges - {e})
            for ranks in ({}, bfs_rank(graph_operator(roots, edges)), bfs_rank(op2)):
                chain = wf_cascade(op2, ranks, init)
                assert len(chain) - 1 <= len(init)


@pytest.mark.spec("FIX-DEC-GAP", evidence="property", part="agree-under-invariant")
@given(graphs(), st.data())
def test_worklist_cascade_equals_def7_under_invariant(g: Graph, data: st.DataObject) -> None:
    """With the invariant holding before (any state the managed API produced),
    the worklist's survivors are exactly Def. 7's fixpoint with the stored ranks."""
    roots, edges = g
    m, _ = ManagedFixpoint.make(roots, edges)
    for ch in data.draw(st.lists(expansions(), max_size=2)):
        m, _ = m.apply(ch)  # ranks no longer exact, invariant still holds
    roots1, edges1 = m.roots, m.edges
    change = data.draw(contractions(edges1, roots1))
    roots2, edges2 = apply_change(roots1, edges1, change)
    worklist, _ = lost_support(m.state, set(change.remove_roots), set(change.remove_edges))
    dying, _, _ = cascade(m.state, config_of(roots2, edges2), worklist)
    assert m.current - dying == wf_cascade_fix(graph_operator(roots2, edges2), m.ranks, m.current)


@pytest.mark.spec("FIX-THM-3-STALE", evidence="property")
@pytest.mark.spec("FIX-THM-2", evidence="property")
@pytest.mark.spec("FIX-DEC-REDERIVE-RANK", evidence="property")
@given(graphs(), st.frozensets(node, max_size=3), st.frozensets(node, max_size=3))
def test_stale_ranks_over_delete_inside_any_graph(g: Graph, out_of_b: frozenset[int],
                                                  into_c: frozenset[int]) -> None:
    """Random contractions over-delete in only about 2.5% of cases (measured over
    200 examples), so the stale-rank case is built in: §4.5's gadget r -> b,
    r -> c, c -> b (r a root) inside a random graph, with b deriving random nodes
    and random nodes deriving c. Removing r -> b, the cascade deletes b, an element
    of lfp(F'), at an intermediate state (Theorem 3's contraction half fails with
    the stored ranks), and the update still ends at lfp(F') with b re-derived at
    1 + the least rank of its live derivers, the invariant kept."""
    roots, edges = g
    gadget = {("r", "b"), ("r", "c"), ("c", "b")}
    edges1 = edges | gadget | {("b", x) for x in out_of_b} | {(x, "c") for x in into_c}
    roots1 = roots | {"r"}
    m, _ = ManagedFixpoint.make(roots1, edges1)
    assert m.ranks["b"] == 1 and m.ranks["c"] == 1  # as in §4.5: both one step from r
    edges2 = edges1 - {("r", "b")}
    truth = reachable(roots1, edges2)
    assert "b" in truth  # via r -> c -> b
    worklist, _ = lost_support(m.state, (), (("r", "b"),))
    c = contract(m.state, config_of(roots1, edges2), worklist, record=True)
    assert "b" in c.dying  # stale ranks: c (rank 1) is not below b (rank 1)
    assert any("b" not in s for s in c.trace)  # an intermediate state misses b ∈ lfp(F')
    assert c.state.current == truth and "b" in c.rederived
    assert c.state.rank["b"] == 1 + c.state.rank["c"] == 2
    assert check_rank_invariant(c.state, config_of(roots1, edges2))


def check_conclusion(roots: frozenset[Elem], edges: frozenset[Edge],
                     roots2: frozenset[Elem], edges2: frozenset[Edge]) -> None:
    """§9 on one contraction: every x ∈ lfp(F) \\ lfp(F') has no rank under F', no
    wf-deriver in lfp(F), and is gone from the end of Def. 7's cascade."""
    old, op2 = live_set(roots, edges), graph_operator(roots2, edges2)
    ranks2 = rank(op2)
    gone = old - reachable(roots2, edges2)
    final = wf_cascade(op2, ranks2, old)[-1]
    for x in gone:
        assert x not in ranks2
        assert not has_wf_deriver(op2, ranks2, old, x)
        assert x not in final


@pytest.mark.spec("FIX-CLAIM-9", evidence="property")
@given(graphs(), st.data())
def test_conclusion_unranked_elements_are_removed(g: Graph, data: st.DataObject) -> None:
    roots, edges = g
    change = data.draw(contractions(edges, roots))
    check_conclusion(roots, edges, *apply_change(roots, edges, change))


@pytest.mark.spec("FIX-CLAIM-9", evidence="exhaustive")
def test_conclusion_on_three_nodes() -> None:
    """Every graph on 3 nodes and every single removal of a root or an edge."""
    removals = 0
    for roots, edges in all_graphs(3):
        for change in single_edits(3, roots, edges):
            if not is_expansion(change):
                check_conclusion(roots, edges, *apply_change(roots, edges, change))
                removals += 1
    assert removals == 4096 * 12 // 2  # each root and edge is present in half of the graphs
