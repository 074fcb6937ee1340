"""Against the reference: the shipped implementation passes every case; every mutant is killed."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from conformance.adapters.in_process import InProcess
from conformance.cases_model import Case, thaw
from conformance.execute import execute
from conformance.implementations import resolve
from conformance.kill_score import run_mutant
from conformance.loader import load_cases
from reference_impl.mutants import Mutant, all_mutants
from reference_impl.mutants.fixpoint_mutants import BASE as FIXPOINT_BASE
from reference_impl.mutants.zset_mutants import BASE as ZSET_BASE

CASES = load_cases()
AREAS_WITH_CASES = sorted({c.area for c in CASES})


def test_the_reference_passes_every_case_in_every_area() -> None:
    hs, outcomes = execute(InProcess(resolve("reference")), CASES)
    assert sorted(hs.areas) == sorted(AREAS_WITH_CASES)
    failures = [(o.case.id, o.status, o.message) for o in outcomes if o.status != "pass"]
    assert failures == []
    assert all(o.cost in ("ok", "") for o in outcomes)
    assert {o.case.area for o in outcomes} == set(AREAS_WITH_CASES)


def test_there_are_at_least_twelve_mutants_with_distinct_names() -> None:
    mutants = all_mutants()
    assert len(mutants) >= 12
    assert len({m.name for m in mutants}) == len(mutants)


def _program(case: Case) -> str:
    return json.dumps(thaw(case.setup.get("program", {})))


def _processor_is(name: str) -> Callable[[Case], bool]:
    return lambda case: case.setup.get("processor") == name


def _key_leaves_the_view(case: Case) -> bool:
    return any(value is None for s in case.steps for _, value in s.expect.get("changes", ()))


#: Where each mutant's fault can show: every case that kills it must be one of these
#: (a kill elsewhere would be an incidental difference, not the fault).
def _removes(case: Case) -> bool:
    return any(s.args.get("remove_edges") or s.args.get("remove_roots") for s in case.steps)


def _adds_edges_after_make(case: Case) -> bool:
    return any(s.op == "apply" and s.args.get("add_edges") for s in case.steps)


def _a_value_repeats_under_a_key(case: Case) -> bool:
    """Some key may hold a value twice: a repeat within a load, or Δ⁺ on what was loaded or
    added (removals ignored, so this over-approximates, as a filter of possible kills must)."""
    held: dict[object, list[object]] = {}
    for s in case.steps:
        if s.op == "load":
            held = {}
        for key, values in (*s.args.get("collection", ()), *s.args.get("plus", ())):
            held.setdefault(key, []).extend(values)
        if any(len(set(vs)) < len(vs) for vs in held.values()):
            return True
    return False


WHERE_THE_FAULT_SHOWS: dict[str, Callable[[Case], bool]] = {
    "reduce-set-not-multiset": _a_value_repeats_under_a_key,
    "reduce-adds-before-removes": lambda c: "ill-formed-reducers" in c.features,
    "reduce-emptied-key-kept": _key_leaves_the_view,
    "reduce-decline-ignored": lambda c: "declining-remove" in c.features,
    "reduce-invalid-delta-accepted": lambda c: any(s.expect.get("error") == "invalid-delta" for s in c.steps),
    "fixpoint-no-rederivation": _removes,
    "fixpoint-ranks-restart-at-zero": _removes,
    "fixpoint-cycle-support": _removes,
    "fixpoint-cascade-examines-once": _removes,
    "fixpoint-seeds-only-new-roots": _adds_edges_after_make,
    "zset-join-without-delta-delta": lambda c: '"join"' in _program(c),
    "zset-distinct-as-linear": lambda c: '"distinct"' in _program(c),
    "zset-mismatched-partitions": lambda c: '"join"' in _program(c),
    "zset-iterate-bound-off-by-one": lambda c: any(s.expect.get("error") == "no-fixpoint" for s in c.steps),
    "stream-prefix-sum-per-batch": _processor_is("prefix_sum"),
    "stream-full-adder-carry-lost": _processor_is("full_adder"),
    "stream-distinct-per-batch": _processor_is("distinct"),
    "stream-join-mismatched-partitions": _processor_is("join_partitioned"),
    "stream-set-difference-same-stratum": _processor_is("set_difference_ticks"),
}


@pytest.mark.parametrize("mutant", all_mutants(), ids=lambda m: m.name)
def test_every_mutant_is_killed(mutant: Mutant) -> None:
    """Killed by a wrong answer (or, for a cost mutant, only by the cost column), never by a
    crash: no case of its area errors, so the kill is the fault and not an incidental exception."""
    kill = run_mutant(mutant, CASES)
    assert kill.killed, f"{mutant.name} survived {kill.cases_run} cases"
    outcomes = kill.outcomes
    assert len(outcomes) == kill.cases_run == len([c for c in CASES if c.area == mutant.area])
    assert [o.case.id for o in outcomes if o.status == "errored"] == []
    if mutant.cost_only:
        # a cost mutant computes the right values: only the cost column may catch it
        assert all(o.status == "pass" for o in outcomes)
        assert any(o.cost == "fail" for o in outcomes)
    else:
        assert any(o.status == "fail" for o in outcomes)
        assert [o.case.id for o in outcomes if o.cost == "fail"] == []
    where = WHERE_THE_FAULT_SHOWS.get(mutant.name)
    if where is not None:
        assert [o.case.id for o in outcomes if o.status == "fail" and not where(o.case)] == []


@pytest.mark.parametrize(("area", "base"), [("fixpoint", FIXPOINT_BASE), ("zset", ZSET_BASE)])
def test_the_unmutated_engines_pass(area: str, base: type) -> None:
    """The mutants are one fault away from an engine that passes every case of their area."""
    _, outcomes = execute(InProcess(base()), [c for c in CASES if c.area == area])
    assert [o.case.id for o in outcomes if o.status != "pass" or o.cost == "fail"] == []
