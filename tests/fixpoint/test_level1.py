"""§3.1: the simple and full Level 1 APIs (user-supplied stepFwd), the system-built
stepInv, the user obligations as checkers (§3.1.4) and the automatic properties."""

from __future__ import annotations

from functools import partial
from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.fixpoint.correctness import check_rank_invariant
from reference.fixpoint.general_pattern import (
    Edge,
    Elem,
    F,
    Operator,
    graph_operator,
    lfp,
    lookup,
    predecessors,
    step,
    successors,
)
from reference.fixpoint.level1 import FullFixpoint, SimpleFixpoint, StepDelta, derived_inverse
from reference.fixpoint.managed import Change
from reference.fixpoint.required_properties import (
    check_additive,
    check_delta_accuracy,
    check_element_wise,
    check_inverse,
    check_monotone,
    check_step_fwd_stable,
    exact_step_delta,
)
from tests.fixpoint.strategies import NODES, all_graphs, apply_change, changes, graphs, reachable

Graph = tuple[frozenset[Elem], frozenset[Edge]]
DOMAIN = range(NODES)


def delta_of(old: Graph, new: Graph) -> StepDelta:
    """The exact StepDelta between two graphs (what an accurate user provides)."""
    return StepDelta(tuple(new[0] - old[0]), tuple(old[0] - new[0]),
                     tuple(new[1] - old[1]), tuple(old[1] - new[1]))


@pytest.mark.spec("FIX-REM-1", evidence="property")
@pytest.mark.spec("FIX-DEC-RANK-INVARIANT", evidence="property")
@given(graphs(), st.lists(changes(), max_size=4))
def test_full_api_with_derived_step_inv_matches_lfp(g: Graph, batches: list[object]) -> None:
    """Full API, stepInv built from stepFwd and maintained (§3.1.2 note)."""
    roots, edges = g
    fx, _ = FullFixpoint.make(roots, lookup(successors(edges)))
    for change in batches:
        new = apply_change(roots, edges, change)  # type: ignore[arg-type]
        before = fx.current
        fx, update = fx.apply_delta(lookup(successors(new[1])), delta_of((roots, edges), new))
        roots, edges = new
        truth = reachable(roots, edges)
        assert fx.current == truth
        assert update.added == truth - before and update.removed == before - truth
        assert check_rank_invariant(fx.state, fx.config)
        # the maintained index is exactly {x ∈ current | y ∈ stepFwd(x)}
        assert dict(fx.derived or {}) == derived_inverse(fx.current, lookup(successors(edges)))


@pytest.mark.spec("FIX-REM-1", evidence="property")
@given(graphs(), st.lists(changes(), max_size=4))
def test_full_api_with_user_step_inv_matches_lfp(g: Graph, batches: list[Change]) -> None:
    """Full API, stepInv provided by the user (predecessors)."""
    roots, edges = g
    fx, _ = FullFixpoint.make(roots, lookup(successors(edges)), lookup(predecessors(edges)))
    assert fx.derived is None
    for change in batches:
        new = apply_change(roots, edges, change)
        fx, _ = fx.apply_delta(lookup(successors(new[1])), delta_of((roots, edges), new),
                               lookup(predecessors(new[1])))
        roots, edges = new
        assert fx.current == reachable(roots, edges)
        assert check_rank_invariant(fx.state, fx.config)


@pytest.mark.spec("FIX-REM-1", evidence="example")
def test_simple_api_expands_and_refuses_removals() -> None:
    sx, _ = SimpleFixpoint.make({"R"}, lookup(successors([("R", "A")])))
    sx, update = sx.apply_delta(lookup(successors([("R", "A"), ("A", "B")])),
                                StepDelta(added_to_step=(("A", "B"),)))
    assert sx.current == {"R", "A", "B"} and update.added == {"B"}
    with pytest.raises(ValueError, match="expansion only"):
        sx.apply_delta(lookup(successors([("R", "A")])), StepDelta(removed_from_step=(("A", "B"),)))


@pytest.mark.spec("FIX-DEF-3.1.4.1", evidence="example")
def test_stability_violation_is_detected_and_breaks_the_result() -> None:
    """A stepFwd reading mutable external state that changes during the call."""
    calls = {"n": 0}

    def flaky(x: object) -> frozenset[object]:
        calls["n"] += 1
        return frozenset({"B"}) if x == "A" and calls["n"] % 2 == 1 else frozenset()

    verdict = check_step_fwd_stable(lambda x: {"A"} if x == "R" else flaky(x), ["R", "A"])
    assert not verdict and verdict.counterexample is not None
    assert verdict.counterexample["element"] == "A"
    assert check_step_fwd_stable(lookup(successors([("R", "A")])), ["R", "A"])


@pytest.mark.spec("FIX-DEF-3.1.4.2", evidence="property")
@given(graphs(), changes())
def test_wrong_deltas_are_detected(g: Graph, change: object) -> None:
    roots, edges = g
    new = apply_change(roots, edges, change)  # type: ignore[arg-type]
    old_fwd, new_fwd = lookup(successors(edges)), lookup(successors(new[1]))
    right = delta_of(g, new)
    assert check_delta_accuracy(old_fwd, new_fwd, DOMAIN, right)
    added, removed = exact_step_delta(old_fwd, new_fwd, DOMAIN)
    assert set(right.added_to_step) == added and set(right.removed_from_step) == removed
    if right.added_to_step:  # drop one added pair: reported as missing
        wrong = StepDelta(added_to_step=right.added_to_step[1:], removed_from_step=right.removed_from_step)
        verdict = check_delta_accuracy(old_fwd, new_fwd, DOMAIN, wrong)
        assert not verdict and verdict.counterexample is not None
        assert verdict.counterexample["addedToStep_missing"] == {right.added_to_step[0]}
    spurious = StepDelta(added_to_step=right.added_to_step,
                         removed_from_step=(*right.removed_from_step, (NODES + 1, 0)))
    verdict = check_delta_accuracy(old_fwd, new_fwd, range(NODES + 2), spurious)
    assert not verdict and verdict.counterexample is not None
    assert verdict.counterexample["removedFromStep_spurious"] == {(NODES + 1, 0)}


@pytest.mark.spec("FIX-DEF-3.1.4.2", evidence="example")
def test_inaccurate_delta_gives_a_wrong_fixpoint() -> None:
    """The obligation matters: omit the added pair R -> E and E is never reached."""
    edges = [("R", "A")]
    fx, _ = FullFixpoint.make({"R"}, lookup(successors(edges)))
    new_fwd = lookup(successors([*edges, ("R", "E")]))
    lying = StepDelta()
    assert not check_delta_accuracy(lookup(successors(edges)), new_fwd, ["R", "A", "E"], lying)
    fx2, _ = fx.apply_delta(new_fwd, lying)
    assert fx2.current == {"R", "A"} and lfp(Operator(frozenset({"R"}), new_fwd)) == {"R", "A", "E"}


@pytest.mark.spec("FIX-CLAIM-3.1.4-AUTO-1", evidence="property")
@pytest.mark.spec("FIX-CLAIM-3.1.4-AUTO-4", evidence="property")
@pytest.mark.spec("FIX-CLAIM-3.1.4-AUTO-3", evidence="property")
@given(graphs(), st.frozensets(st.integers(0, NODES - 1)), st.frozensets(st.integers(0, NODES - 1)))
def test_automatic_properties(g: Graph, A: frozenset[int], B: frozenset[int]) -> None:
    op = graph_operator(*g)
    assert check_monotone(lambda S: F(op, S), A, B)
    assert check_additive(lambda S: step(op, S), A, B)
    assert check_element_wise(lambda S: step(op, S), A)


@pytest.mark.spec("FIX-CLAIM-3.1.4-AUTO-1", evidence="example")
@pytest.mark.spec("FIX-CLAIM-3.1.4-AUTO-3", evidence="example")
@pytest.mark.spec("FIX-CLAIM-3.1.4-AUTO-4", evidence="example")
def test_automatic_properties_need_the_step_fwd_form() -> None:
    """The properties hold by construction: a step that is not ⋃_{x∈S} stepFwd(x)
    fails them. Counting ({|S|}) is neither additive nor element-wise; negation
    (F(S) = {0, 1, 2} minus S) is not monotone."""
    def count(S: frozenset[Elem]) -> frozenset[Elem]:
        return frozenset({len(S)})

    def negate(S: frozenset[Elem]) -> frozenset[Elem]:
        return frozenset({0, 1, 2}) - S

    A, B = frozenset({0}), frozenset({0, 1})
    assert not check_additive(count, A, frozenset({1}))  # {2} ≠ {1}
    assert not check_element_wise(count, B)  # 2 ∉ step({0}) ∪ step({1}) = {1}
    assert not check_monotone(negate, A, B)  # {1, 2} ⊄ {2}
    op = graph_operator({0}, {(0, 1), (1, 2)})  # the stepFwd form passes on the same sets
    assert check_additive(lambda S: step(op, S), A, frozenset({1}))
    assert check_element_wise(lambda S: step(op, S), B)
    assert check_monotone(lambda S: F(op, S), A, B)


@pytest.mark.spec("FIX-CLAIM-3.1.4-AUTO-2", evidence="property")
@given(graphs())
def test_system_built_step_inv_is_the_inverse(g: Graph) -> None:
    roots, edges = g
    fwd = lookup(successors(edges))
    current = lfp(graph_operator(roots, edges))
    inv = lookup(derived_inverse(current, fwd))
    # y ∈ stepInv(x) ⇔ x ∈ stepFwd(y), for live y (the derivers the algorithms read)
    assert all((y in inv(x)) == (x in fwd(y)) for x in DOMAIN for y in current)
    assert check_inverse(fwd, lookup(derived_inverse(DOMAIN, fwd)), DOMAIN)


@pytest.mark.spec("FIX-CLAIM-3.1.4-AUTO-1", evidence="exhaustive")
@pytest.mark.spec("FIX-CLAIM-3.1.4-AUTO-2", evidence="exhaustive")
@pytest.mark.spec("FIX-CLAIM-3.1.4-AUTO-3", evidence="exhaustive")
@pytest.mark.spec("FIX-CLAIM-3.1.4-AUTO-4", evidence="exhaustive")
def test_automatic_properties_exhaustive() -> None:
    """Every graph on 3 nodes, every pair of subsets A, B of the nodes."""
    subsets = [frozenset(c) for k in range(4) for c in combinations(range(3), k)]
    for roots, edges in all_graphs(3):
        op = graph_operator(roots, edges)
        fwd = op.step_fwd
        assert check_inverse(fwd, lookup(derived_inverse(range(3), fwd)), range(3))
        step_of, F_of = partial(step, op), partial(F, op)
        for A in subsets:
            assert check_element_wise(step_of, A)
            for B in subsets:
                assert check_monotone(F_of, A, B) and check_additive(step_of, A, B)
