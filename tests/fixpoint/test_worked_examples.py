"""§4 worked examples reproduced exactly, ranks included (expected values are
the paper's text), and §3.2.3's claims about cycles."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.fixpoint import worked_example as W
from reference.fixpoint.algorithms import Config, State, Work, cascade, contract, lost_support
from reference.fixpoint.correctness import check_rank_invariant
from reference.fixpoint.formal_definitions import bfs_rank
from reference.fixpoint.general_pattern import (
    Edge,
    Elem,
    graph_operator,
    live_set,
    lookup,
    predecessors,
    successors,
)
from reference.fixpoint.managed import ManagedFixpoint
from tests.fixpoint.strategies import graphs


def made(roots: tuple[str, ...], edges: tuple[Edge, ...]) -> ManagedFixpoint:
    m, _ = ManagedFixpoint.make(roots, edges)
    return m


@pytest.mark.spec("FIX-EX-4.1", evidence="example")
@pytest.mark.spec("FIX-EX-1", evidence="example")
def test_4_1_setup() -> None:
    m = made(W.SETUP_ROOTS, W.SETUP_EDGES)
    assert m.current == {"R", "A", "B", "C", "D"}
    assert dict(m.ranks) == {"R": 0, "A": 1, "B": 2, "C": 3, "D": 2}
    assert live_set(W.SETUP_ROOTS, W.SETUP_EDGES) == {"R", "A", "B", "C", "D"}


@pytest.mark.spec("FIX-EX-4.2", evidence="example")
@pytest.mark.spec("FIX-THM-1", evidence="example")
@pytest.mark.spec("FIX-DEC-EXPAND-SEED", evidence="example")
def test_4_2_expansion_adding_an_edge() -> None:
    m, update = made(W.SETUP_ROOTS, W.SETUP_EDGES).apply(W.EXPANSION_CHANGE)
    assert m.current == {"R", "A", "B", "C", "D", "E", "F"}
    assert m.ranks["E"] == 1 and m.ranks["F"] == 2  # steps 2 and 4 of §4.2
    assert update.added == {"E", "F"} and update.removed == frozenset()
    # settled exactly E then F; scanned the two added pairs (seeding) and E -> F
    assert update.work.expansion == Work(elements_visited=2, edges_scanned=3)


@pytest.mark.spec("FIX-EX-4.3", evidence="example")
@pytest.mark.spec("FIX-THM-2", evidence="example")
def test_4_3_contraction_removing_an_edge() -> None:
    m, _ = made(W.SETUP_ROOTS, W.SETUP_EDGES).apply(W.EXPANSION_CHANGE)
    m2, update = m.apply(W.CONTRACTION_CHANGE)
    assert m2.current == {"R", "A", "B", "C", "E", "F"}
    assert update.removed == {"D"} and update.added == frozenset()
    # ranks of the survivors are unchanged; B keeps its wf-deriver A (1 < 2)
    assert {x: m2.ranks[x] for x in "RABCEF"} == {"R": 0, "A": 1, "B": 2, "C": 3, "E": 1, "F": 2}
    # steps 1-3: "worklist = {D}", D has no wf-deriver, "dying = {D}", nothing else queued
    after_4_2 = (*W.SETUP_EDGES, ("R", "E"), ("E", "F"))
    _, _, worklist, dying = _phase1(W.SETUP_ROOTS, after_4_2, (("A", "D"),))
    assert worklist == ("D",) and dying == {"D"}


def _phase1(roots: tuple[str, ...], edges: tuple[Edge, ...],
            removed: tuple[Edge, ...]) -> tuple[State, Config, tuple[Elem, ...], frozenset[Elem]]:
    """Run phase 1 alone on the paper's graph: (state, config', worklist, dying)."""
    m = made(roots, edges)
    after = tuple(e for e in edges if e not in removed)
    config = Config(frozenset(roots), lookup(successors(after)), lookup(predecessors(after)))
    worklist, _ = lost_support(m.state, (), removed)
    dying, _, _ = cascade(m.state, config, worklist)
    return m.state, config, worklist, dying


@pytest.mark.spec("FIX-EX-4.4", evidence="example")
@pytest.mark.spec("FIX-CLAIM-3.2.3", evidence="example", part="with-rank-check")
def test_4_4_contraction_with_cycles() -> None:
    m = made(W.CYCLE_ROOTS, W.CYCLE_EDGES)
    assert dict(m.ranks) == {"R": 0, "A": 1, "B": 2}
    state, _, worklist, dying = _phase1(W.CYCLE_ROOTS, W.CYCLE_EDGES, (("R", "A"),))
    assert worklist == ("A",) and dying == {"A", "B"}
    m2, update = m.apply(W.CYCLE_CHANGE)
    assert m2.current == {"R"} and update.removed == {"A", "B"}


@pytest.mark.spec("FIX-CLAIM-3.2.3", evidence="example", part="without-rank-check")
def test_4_4_without_rank_check_the_cycle_survives() -> None:
    """"Without rank checking, A and B would keep each other alive": the same
    worklist cascade in which any live deriver counts (plain derivation counting)."""
    state, config, worklist, _ = _phase1(W.CYCLE_ROOTS, W.CYCLE_EDGES, (("R", "A"),))
    live = set(state.current)
    worklist_: list[Elem] = list(worklist)
    dying: set[Elem] = set()
    assert config.step_inv is not None
    while worklist_:
        x = worklist_.pop()
        if x in dying or x in config.base:
            continue
        if not any(y in live and y not in dying for y in config.step_inv(x)):
            dying.add(x)
            worklist_.extend(config.step_fwd(x))
    assert dying == frozenset()  # A is "supported" by B and B by A: the cycle survives
    assert live_set(W.CYCLE_ROOTS, (("A", "B"), ("B", "A"))) == {"R"}  # though unreachable


@pytest.mark.spec("FIX-CLAIM-3.2.3-EQUAL", evidence="example")
def test_cycle_members_need_not_have_equal_ranks() -> None:
    ranks = bfs_rank(graph_operator(W.CYCLE_ROOTS, W.CYCLE_EDGES))
    assert ranks["A"] == 1 and ranks["B"] == 2  # A and B are on a cycle with different ranks


@pytest.mark.spec("FIX-CLAIM-3.2.3-EQUAL", evidence="exhaustive")
def test_cycle_ranks_over_every_graph_on_three_nodes() -> None:
    """Every edge set over {R, A, B} with root R (2^9 graphs): live 2-cycles whose
    members have unequal ranks occur (the claim fails systematically, not only on
    §4.4), and what does hold is that 2-cycle members differ by at most one
    (an edge x -> y gives rank(y) <= rank(x) + 1)."""
    nodes = ("R", "A", "B")
    all_edges = [(x, y) for x in nodes for y in nodes]
    unequal = 0
    for mask in range(1 << len(all_edges)):
        edges = tuple(e for i, e in enumerate(all_edges) if mask >> i & 1)
        ranks = bfs_rank(graph_operator(("R",), edges))
        for x, y in edges:
            if x < y and (y, x) in edges and x in ranks and y in ranks:
                assert abs(ranks[x] - ranks[y]) <= 1
                unequal += ranks[x] != ranks[y]
    assert unequal > 0


@pytest.mark.spec("FIX-EX-4.5", evidence="example")
@pytest.mark.spec("FIX-DEC-REDERIVE-RANK", evidence="example")
@pytest.mark.spec("FIX-THM-2", evidence="example")
def test_4_5_rederivation_with_stale_ranks() -> None:
    m = made(W.STALE_ROOTS, W.STALE_EDGES)
    assert dict(m.ranks) == {"R": 0, "B": 1, "C": 1}
    _, config, worklist, dying = _phase1(W.STALE_ROOTS, W.STALE_EDGES, (("R", "B"),))
    assert worklist == ("B",) and dying == {"B"}  # phase 1 with stale ranks: 1 ≮ 1
    m2, update = m.apply(W.STALE_CHANGE)
    assert m2.current == {"R", "B", "C"}
    assert dict(m2.ranks) == {"R": 0, "B": 2, "C": 1}  # "Expansion adds B back with rank[B] = 2"
    assert update.added == frozenset() and update.removed == frozenset()  # net: nothing changed
    assert update.work.rederivation.elements_visited == 1  # B examined in phase 2
    assert check_rank_invariant(m2.state, m2.config())


@pytest.mark.spec("FIX-THM-3-STALE", evidence="example")
def test_4_5_refutes_soundness_at_intermediate_states_with_stale_ranks() -> None:
    """Theorem 3's contraction half (lfp(F') ⊆ current at every intermediate
    state) fails with the stored ranks: the cascade's intermediate state lacks B."""
    m = made(W.STALE_ROOTS, W.STALE_EDGES)
    after = tuple(e for e in W.STALE_EDGES if e != ("R", "B"))
    config = Config(frozenset(W.STALE_ROOTS), lookup(successors(after)), lookup(predecessors(after)))
    new_lfp = live_set(W.STALE_ROOTS, after)
    assert new_lfp == {"R", "B", "C"}
    c = contract(m.state, config, ("B",), record=True)
    counterexample = [s for s in c.trace if not new_lfp <= s]
    assert counterexample == [frozenset({"R", "C"})]  # B deleted although B ∈ lfp(F')
    assert c.state.current == new_lfp  # the end result is still right (re-derivation)


@pytest.mark.spec("FIX-EX-4.6", evidence="example")
def test_4_6_summary() -> None:
    """Add: expansion assigns increasing ranks; remove: the rank check breaks a
    cycle and re-derivation handles stale ranks (the rows of the table)."""
    m, u = made(W.SETUP_ROOTS, W.SETUP_EDGES).apply(W.EXPANSION_CHANGE)
    assert m.ranks["R"] < m.ranks["E"] < m.ranks["F"] and u.work.cascade.elements_visited == 0
    m, u = made(W.CYCLE_ROOTS, W.CYCLE_EDGES).apply(W.CYCLE_CHANGE)
    assert u.removed == {"A", "B"}
    m, u = made(W.STALE_ROOTS, W.STALE_EDGES).apply(W.STALE_CHANGE)
    assert "B" in m.current and u.work.rederivation.elements_visited == 1


def counting_cascade_survivors(m: ManagedFixpoint, removed: Edge) -> frozenset[Elem]:
    """Contraction without the rank check: x survives if any live deriver remains."""
    edges = m.edges - {removed}
    preds = predecessors(edges)
    dying: set[Elem] = set()
    worklist: list[Elem] = [removed[1]]
    while worklist:
        x = worklist.pop()
        if x in dying or x in m.roots or x not in m.current:
            continue
        if not any(y in m.current and y not in dying for y in preds.get(x, ())):
            dying.add(x)
            worklist.extend(successors(edges).get(x, ()))
    return m.current - dying


@pytest.mark.spec("FIX-CLAIM-3.2.3", evidence="property", part="with-rank-check")
@pytest.mark.spec("FIX-CLAIM-3.2.3", evidence="property", part="without-rank-check")
@given(graphs(), st.integers(1, 5))
def test_unreachable_cycles_die_only_with_the_rank_check(g: tuple[frozenset[Elem], frozenset[Edge]],
                                                         length: int) -> None:
    """Any random graph plus a cycle k0 -> ... -> k{n-1} -> k0 (self loop when n = 1)
    entered only through root -> k0: cutting that edge kills the cycle under the
    rank check, and plain counting keeps it alive."""
    roots, edges = g
    cycle = [f"k{i}" for i in range(length)]
    ring = {(cycle[i], cycle[(i + 1) % length]) for i in range(length)}
    entry: Edge = ("root", "k0")
    m, _ = ManagedFixpoint.make(roots | {"root"}, edges | ring | {entry})
    assert set(cycle) <= m.current
    m2, update = m.remove_edge(*entry)
    assert not set(cycle) & m2.current and set(cycle) <= update.removed
    assert set(cycle) <= counting_cascade_survivors(m, entry)
