"""The managed API (the conformance oracle): random edit sequences against an
independent reachability oracle with the rank invariant checked after every
operation, batch semantics, ranks after make, and adversarial cases."""

from __future__ import annotations

from collections.abc import Iterable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.fixpoint.correctness import check_rank_invariant
from reference.fixpoint.general_pattern import Edge, Elem
from reference.fixpoint.managed import Change, ManagedFixpoint
from tests.fixpoint.strategies import apply_change, bfs_distances, changes, graphs, reachable
from tests.fixpoint.test_theorems import config_of

Graph = tuple[frozenset[Elem], frozenset[Edge]]


def run(roots: Iterable[Elem], edges: Iterable[Edge], batches: list[Change]) -> ManagedFixpoint:
    """Apply batches one by one, checking result, output delta and invariant each time."""
    r, e = frozenset(roots), frozenset(edges)
    m, update = ManagedFixpoint.make(r, e)
    assert update.added == reachable(r, e) and update.removed == frozenset()
    for change in batches:
        before = m.current
        m, update = m.apply(change)
        r, e = apply_change(r, e, change)
        truth = reachable(r, e)
        assert (m.roots, m.edges) == (r, e)
        assert m.current == truth, change
        assert update.added == truth - before and update.removed == before - truth
        verdict = check_rank_invariant(m.state, config_of(r, e))
        assert verdict, verdict.describe()
    return m


@pytest.mark.spec("FIX-CLAIM-MANAGED", evidence="property")
@pytest.mark.spec("FIX-DEC-BATCH", evidence="property")
@pytest.mark.spec("FIX-DEC-RANK-INVARIANT", evidence="property")
@pytest.mark.spec("FIX-THM-2", evidence="property")
@given(graphs(), st.lists(changes(), max_size=6))
def test_random_edit_sequences_match_recomputation(g: Graph, batches: list[Change]) -> None:
    run(*g, batches)


@pytest.mark.spec("FIX-DEC-RANKS-OBSERVABLE", evidence="property")
@given(graphs())
def test_ranks_after_make_are_exact_bfs_distances(g: Graph) -> None:
    m, _ = ManagedFixpoint.make(*g)
    assert dict(m.ranks) == bfs_distances(*g)


@pytest.mark.spec("FIX-DEC-RANKS-OBSERVABLE", evidence="example")
def test_ranks_after_updates_keep_the_invariant_not_exactness() -> None:
    """A shortcut edge does not lower the rank of a live element: ranks are no
    longer BFS distances, but the invariant holds (the decision's content)."""
    m = run({"R"}, [("R", "A"), ("A", "B"), ("B", "C")], [Change(add_edges=(("R", "C"),))])
    assert m.ranks["C"] == 3 and bfs_distances(frozenset({"R"}), m.edges)["C"] == 1


@pytest.mark.spec("FIX-DEC-BATCH", evidence="example")
@pytest.mark.spec("FIX-CLAIM-MANAGED", evidence="example")
def test_root_removed_and_readded_in_one_batch_is_untouched() -> None:
    m, _ = ManagedFixpoint.make({"R"}, [("R", "A"), ("A", "B")])
    m2, update = m.apply(Change(add_roots=("R",), remove_roots=("R",)))
    assert m2.current == {"R", "A", "B"} and m2.roots == {"R"}
    assert update.added == frozenset() and update.removed == frozenset()
    assert update.work.total.elements_visited == 0  # the net change is empty: nothing examined
    # the same for an edge, and removals of absent items are no-ops
    m3, update = m.apply(Change(remove_edges=(("A", "B"), ("X", "Y")), add_edges=(("A", "B"),),
                                remove_roots=("Z",)))
    assert m3.current == m.current and m3.edges == m.edges and not update.added | update.removed


@pytest.mark.spec("FIX-DEC-BATCH", evidence="example")
def test_batch_mixing_removal_and_addition_reports_net_delta() -> None:
    """Remove the only path to B and add another in one batch: B stays, C leaves, D joins."""
    m, _ = ManagedFixpoint.make({"R"}, [("R", "A"), ("A", "B"), ("B", "C")])
    m2, update = m.apply(Change(remove_edges=(("A", "B"), ("B", "C")), add_edges=(("R", "B"), ("B", "D"))))
    assert m2.current == {"R", "A", "B", "D"}
    assert update.added == {"D"} and update.removed == {"C"}


ADVERSARIAL: dict[str, tuple[set[str], list[tuple[str, str]], list[Change]]] = {
    "unreachable cycle removed": (
        {"R"}, [("R", "A"), ("A", "B"), ("B", "C"), ("C", "A")],
        [Change(remove_edges=(("R", "A"),))]),
    "alternative support": (
        {"R"}, [("R", "A"), ("R", "B"), ("A", "C"), ("B", "C"), ("C", "D")],
        [Change(remove_edges=(("A", "C"),)), Change(remove_edges=(("B", "C"),))]),
    "diamond": (
        {"R"}, [("R", "A"), ("R", "B"), ("A", "D"), ("B", "D"), ("D", "E")],
        [Change(remove_edges=(("R", "A"),)), Change(add_edges=(("R", "A"),)),
         Change(remove_edges=(("R", "B"), ("R", "A")))]),
    "self loops": (
        {"R"}, [("R", "A"), ("A", "A"), ("R", "R")],
        [Change(remove_edges=(("R", "A"),)), Change(add_edges=(("A", "R"),)),
         Change(add_edges=(("R", "A"),)), Change(remove_roots=("R",))]),
    "stale ranks, shortest path removed": (
        {"R"}, [("R", "B"), ("R", "C"), ("C", "B"), ("B", "D"), ("D", "E")],
        [Change(remove_edges=(("R", "B"),)), Change(add_edges=(("E", "C"),)),
         Change(remove_edges=(("R", "C"),))]),
    "root removed but still reachable": (
        {"R", "S"}, [("S", "R"), ("R", "A"), ("A", "B")],
        [Change(remove_roots=("R",)), Change(remove_edges=(("S", "R"),))]),
    "root removed and re-added in one batch": (
        {"R"}, [("R", "A"), ("A", "R")],
        [Change(remove_roots=("R",), add_roots=("R",)), Change(remove_roots=("R",))]),
    "long chain cut and rejoined": (
        {"n0"}, [(f"n{i}", f"n{i + 1}") for i in range(200)],
        [Change(remove_edges=(("n0", "n1"),)), Change(add_edges=(("n0", "n100"),)),
         Change(add_edges=(("n0", "n1"),)), Change(remove_edges=(("n0", "n100"),))]),
}


@pytest.mark.spec("FIX-THM-1", evidence="example")
@pytest.mark.spec("FIX-THM-2", evidence="example")
@pytest.mark.spec("FIX-DEC-RANK-INVARIANT", evidence="example")
@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_adversarial_cases(name: str) -> None:
    roots, edges, batches = ADVERSARIAL[name]
    run(roots, edges, batches)


@pytest.mark.spec("FIX-DEC-REDERIVE-RANK", evidence="property")
@given(graphs(), st.lists(changes(), max_size=5))
def test_added_elements_get_one_plus_min_rank_of_live_derivers(g: Graph, batches: list[Change]) -> None:
    """After a pure expansion or a pure contraction, every non-root element the
    update added or re-derived has rank exactly 1 + min rank of its live
    derivers. (In a mixed batch the expansion phase does not revisit elements
    the contraction phase re-derived, so only the invariant's inequality is
    promised there; the invariant is checked after every update elsewhere.)"""
    m, _ = ManagedFixpoint.make(*g)
    for change in batches:
        before = m
        m, update = m.apply(change)
        pure = not (change.add_roots or change.add_edges) or not (change.remove_roots or change.remove_edges)
        if not pure:
            continue
        preds: dict[Elem, set[Elem]] = {}
        for u, v in m.edges:
            preds.setdefault(v, set()).add(u)
        for x in m.current - m.roots:
            settled_now = x not in before.current or before.ranks[x] != m.ranks[x]
            if settled_now:
                live = [m.ranks[y] for y in preds.get(x, ()) if y in m.current]
                assert m.ranks[x] == 1 + min(live), (x, change)
