"""Against the reference: the shipped implementation passes every case; every mutant is killed."""

from __future__ import annotations

import pytest

from conformance.execute import InProcess, execute
from conformance.implementations import resolve
from conformance.loader import load_cases
from conformance.mutants import Mutant, all_mutants
from conformance.mutants.fixpoint_mutants import BASE as FIXPOINT_BASE
from conformance.mutants.score import run_mutant
from conformance.mutants.zset_mutants import BASE as ZSET_BASE

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


@pytest.mark.parametrize("mutant", all_mutants(), ids=lambda m: m.name)
def test_every_mutant_is_killed(mutant: Mutant) -> None:
    kill = run_mutant(mutant, CASES)
    assert kill.killed, f"{mutant.name} survived {kill.cases_run} cases"
    if mutant.cost_only:
        # a cost mutant computes the right values: only the cost column may catch it
        _, outcomes = execute(InProcess(mutant.make()), [c for c in CASES if c.area == mutant.area])
        assert all(o.status == "pass" for o in outcomes)
        assert any(o.cost == "fail" for o in outcomes)


@pytest.mark.parametrize(("area", "base"), [("fixpoint", FIXPOINT_BASE), ("zset", ZSET_BASE)])
def test_the_unmutated_engines_pass(area: str, base: type) -> None:
    """The mutants are one fault away from an engine that passes every case of their area."""
    _, outcomes = execute(InProcess(base()), [c for c in CASES if c.area == area])
    assert [o.case.id for o in outcomes if o.status != "pass" or o.cost == "fail"] == []
