"""The pseudo-code of §3.2 exactly as printed (FIX-DEC-PRINTED-VARIANT) and the
edit sequences on which it computes a wrong fixpoint (FIX-CLAIM-PRINTED-CORRECT,
refuted), immediately and at a later contraction."""

from __future__ import annotations

import pytest
from hypothesis import find, given, settings
from hypothesis import strategies as st

from reference.fixpoint import worked_example as W
from reference.fixpoint.algorithms import cascade, lost_support
from reference.fixpoint.correctness import check_rank_invariant
from reference.fixpoint.formal_definitions import wf_cascade_fix
from reference.fixpoint.general_pattern import Edge, Elem, graph_operator
from reference.fixpoint.managed import Change, ManagedFixpoint, Variant
from tests.fixpoint.strategies import apply_change, changes, contractions, graphs, reachable
from tests.fixpoint.test_theorems import config_of

Graph = tuple[frozenset[Elem], frozenset[Edge]]


@pytest.mark.spec("FIX-CLAIM-PRINTED-CORRECT", evidence="example", part="immediate")
@pytest.mark.spec("FIX-DEC-EXPAND-SEED", evidence="example")
def test_printed_expand_misses_new_edge_out_of_live_element() -> None:
    """§4.2 itself: the printed frontier base' \\ current is empty, so E and F never join."""
    m, _ = ManagedFixpoint.make(W.SETUP_ROOTS, W.SETUP_EDGES, variant="printed")
    m2, update = m.apply(W.EXPANSION_CHANGE)
    assert m2.current == {"R", "A", "B", "C", "D"}  # wrong
    assert reachable(m2.roots, m2.edges) == {"R", "A", "B", "C", "D", "E", "F"}
    assert update.added == frozenset()


@pytest.mark.spec("FIX-CLAIM-PRINTED-CORRECT", evidence="example", part="later")
@pytest.mark.spec("FIX-DEC-REDERIVE-RANK", evidence="example")
def test_printed_rederivation_rank_zero_keeps_unreachable_cycle_alive() -> None:
    printed, _ = ManagedFixpoint.make(W.STALE_ROOTS, W.STALE_EDGES, variant="printed")
    spec, _ = ManagedFixpoint.make(W.STALE_ROOTS, W.STALE_EDGES)
    history = []
    for change in W.PRINTED_LATER_EDITS:
        printed, _ = printed.apply(change)
        spec, _ = spec.apply(change)
        history.append((sorted(printed.current, key=repr), dict(printed.ranks),
                        sorted(spec.current, key=repr)))
    # edit 1 (§4.5): both right, but the printed code re-derives B at rank 0
    assert history[0] == (["B", "C", "R"], {"R": 0, "C": 1, "B": 0}, ["B", "C", "R"])
    # edit 3: remove R -> C. Truth {R}; printed keeps the unreachable cycle B <-> C
    assert history[2][0] == ["B", "C", "R"] and history[2][2] == ["R"]
    assert reachable(spec.roots, spec.edges) == {"R"}


@pytest.mark.spec("FIX-DEC-RANK-INVARIANT", evidence="example")
def test_printed_rederivation_breaks_the_rank_invariant() -> None:
    """After §4.5 the printed state has B (not a root) at rank 0: clause I3 fails."""
    printed, _ = ManagedFixpoint.make(W.STALE_ROOTS, W.STALE_EDGES, variant="printed")
    printed, _ = printed.apply(W.STALE_CHANGE)
    verdict = check_rank_invariant(printed.state, printed.config())
    assert not verdict and verdict.counterexample is not None
    assert verdict.counterexample["clause"] == "I3" and verdict.counterexample["element"] == "B"


@pytest.mark.spec("FIX-DEC-GAP", evidence="example", part="disagree-without")
def test_worklist_and_def7_disagree_when_invariant_is_broken() -> None:
    printed, _ = ManagedFixpoint.make(W.STALE_ROOTS, W.STALE_EDGES, variant="printed")
    for change in W.PRINTED_LATER_EDITS[:2]:
        printed, _ = printed.apply(change)
    removed = (("R", "C"),)
    roots2, edges2 = apply_change(printed.roots, printed.edges, Change(remove_edges=removed))
    worklist, _ = lost_support(printed.state, (), removed)
    dying, _, _ = cascade(printed.state, config_of(roots2, edges2), worklist)
    assert printed.current - dying == {"R", "B", "C"}
    assert wf_cascade_fix(graph_operator(roots2, edges2), printed.ranks, printed.current) == {"R"}


def printed_goes_wrong(case: tuple[Graph, list[Change]]) -> bool:
    (roots, edges), batches = case
    m, _ = ManagedFixpoint.make(roots, edges, variant="printed")
    for change in batches:
        m, _ = m.apply(change)
        roots, edges = apply_change(roots, edges, change)
        if m.current != reachable(roots, edges):
            return True
    return False


@pytest.mark.spec("FIX-CLAIM-PRINTED-CORRECT", evidence="property", part="immediate")
def test_search_finds_an_immediate_printed_counterexample() -> None:
    """Hypothesis searches random graphs and single batches for a wrong printed
    result (and shrinks it)."""
    case = find(st.tuples(graphs(), st.lists(changes(), min_size=1, max_size=1)),
                printed_goes_wrong, settings=settings(database=None, derandomize=True))
    assert printed_goes_wrong(case)
    (roots, edges), (change,) = case
    assert change.add_edges  # the shrunk witness adds an edge out of a live element


@pytest.mark.spec("FIX-CLAIM-PRINTED-CORRECT", evidence="property", part="later")
@given(graphs(), st.lists(changes(), max_size=3))
def test_later_counterexample_survives_any_disjoint_context(g: Graph, noise: list[Change]) -> None:
    """The §4.5-then-cycle sequence breaks the printed code inside any random
    graph on other nodes, with random edits of that graph applied first: on the
    pattern's nodes {R, B, C} the first two edits leave the printed result right
    and the third makes it wrong (the random part may be wrong already: the
    immediate bug), while the corrected variant stays right everywhere."""
    pattern = {"R", "B", "C"}
    roots, edges = g
    sequence = [*noise, *W.PRINTED_LATER_EDITS]
    variants: tuple[Variant, ...] = ("printed", "corrected")
    for variant in variants:
        m, _ = ManagedFixpoint.make(roots | set(W.STALE_ROOTS), edges | set(W.STALE_EDGES),
                                    variant=variant)
        wrong_at = []
        for i, change in enumerate(sequence):
            m, _ = m.apply(change)
            truth = reachable(m.roots, m.edges)
            seen = m.current & pattern if variant == "printed" else m.current
            if seen != (truth & pattern if variant == "printed" else truth):
                wrong_at.append(i)
        if variant == "printed":
            assert len(sequence) - 1 in wrong_at and len(sequence) - 2 not in wrong_at
            assert len(sequence) - 3 not in wrong_at
        else:
            assert wrong_at == []


@pytest.mark.spec("FIX-DEC-PRINTED-VARIANT", evidence="property")
@given(graphs(), st.data())
def test_printed_agrees_on_pure_contraction_from_exact_ranks(g: Graph, data: st.DataObject) -> None:
    roots, edges = g
    change = data.draw(contractions(edges, roots))
    printed, _ = ManagedFixpoint.make(roots, edges, variant="printed")
    printed, _ = printed.apply(change)
    assert printed.current == reachable(*apply_change(roots, edges, change))


@pytest.mark.spec("FIX-DEC-PRINTED-VARIANT", evidence="example")
def test_printed_agrees_on_paper_contractions() -> None:
    for roots, edges, change, expected in (
        (W.CYCLE_ROOTS, W.CYCLE_EDGES, W.CYCLE_CHANGE, {"R"}),
        (W.STALE_ROOTS, W.STALE_EDGES, W.STALE_CHANGE, {"R", "B", "C"}),
    ):
        m, _ = ManagedFixpoint.make(roots, edges, variant="printed")
        m, _ = m.apply(change)
        assert m.current == expected
