"""§8 extension: stratified fixpoints with negation, maintained incrementally
stratum by stratum, against the stratified semantics recomputed from scratch."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.fixpoint import programs as P
from reference.fixpoint.dsl import Database, Edit, Expr, Lfp, S, const, minus, union
from reference.fixpoint.stratification import (
    NotStratified,
    StratifiedFixpoint,
    StratifiedProgram,
    Stratum,
    check_stratified,
    recompute_stratified,
)
from tests.fixpoint.test_dsl import databases, edits, extend, programs

upper_leaves: st.SearchStrategy[Expr] = st.sampled_from([S, S, const("C"), const("P")])


def extend_upper(children: st.SearchStrategy[Expr]) -> st.SearchStrategy[Expr]:
    return st.one_of(extend(children), st.builds(minus, children, st.just("P")))


#: P = a random program over the inputs; T = a random program that also reads P,
#: positively (const) and negatively (minus)
stratified = st.builds(
    lambda p, e: StratifiedProgram((Stratum("P", p), Stratum("T", Lfp(union(const("B"), e))))),
    programs, st.recursive(upper_leaves, extend_upper, max_leaves=6))


def run(program: StratifiedProgram, db: Database, eds: list[Edit]) -> list[dict[str, frozenset[object]]]:
    state, _ = StratifiedFixpoint.make(program, db)
    env = dict(db)
    seen = [dict(state.outputs)]
    assert seen[0] == recompute_stratified(program, env)
    for edit in eds:
        before = dict(state.outputs)
        state, updates = state.apply(edit)
        for name in set(edit.added) | set(edit.removed):
            env[name] = (env.get(name, frozenset()) - edit.removed.get(name, frozenset())) \
                | edit.added.get(name, frozenset())
        truth = recompute_stratified(program, env)
        assert dict(state.outputs) == truth
        for name, update in updates.items():
            assert update.added == truth[name] - before[name] and update.removed == before[name] - truth[name]
        seen.append(dict(state.outputs))
    return seen


@pytest.mark.spec("FIX-CLAIM-STRAT-INCREMENTAL", evidence="property")
@pytest.mark.spec("FIX-DEC-STRAT", evidence="property")
@given(stratified, databases, st.lists(edits(), max_size=4))
def test_stratified_maintenance_equals_recomputation(program: StratifiedProgram, db: Database,
                                                     eds: list[Edit]) -> None:
    run(program, db, eds)


@pytest.mark.spec("FIX-CLAIM-STRAT-INCREMENTAL", evidence="example")
@pytest.mark.spec("FIX-DEF-STRAT", evidence="example")
def test_garbage_over_live() -> None:
    """live = reach(R); garbage = what the freed object F reaches that is not live.
    Cutting R -> A makes A and B garbage; adding R -> B revives B."""
    db = {"roots": frozenset({"R"}), "freed": frozenset({"F"}),
          "edges": frozenset({("R", "A"), ("A", "B"), ("F", "A"), ("F", "G")})}
    seen = run(P.GARBAGE, db, [Edit(removed={"edges": frozenset({("R", "A")})}),
                               Edit(added={"edges": frozenset({("R", "B")})})])
    assert seen[0] == {"live": {"R", "A", "B"}, "garbage": {"F", "G"}}
    assert seen[1] == {"live": {"R"}, "garbage": {"F", "G", "A", "B"}}
    assert seen[2] == {"live": {"R", "B"}, "garbage": {"F", "G", "A"}}


@pytest.mark.spec("FIX-DEC-STRAT", evidence="example")
def test_unstratified_programs_are_rejected() -> None:
    reads_itself = StratifiedProgram((Stratum("P", Lfp(minus(const("B"), "P"))),))
    reads_later = StratifiedProgram((Stratum("P", Lfp(union(const("B"), const("Q")))),
                                     Stratum("Q", Lfp(const("B")))))
    for program in (reads_itself, reads_later):
        with pytest.raises(NotStratified):
            check_stratified(program)
    check_stratified(P.GARBAGE)
