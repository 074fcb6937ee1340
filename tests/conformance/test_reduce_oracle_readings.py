"""The reduce oracle's two readings of an emptied key under Definition 10 (SKIP-DEC-EMPTIED-KEY)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance import reducers
from conformance.cases_model import thaw
from conformance.generators.reduce import trace
from conformance.loader import load_cases
from conformance.oracle import reduce as oracle

CASE = next(c for c in load_cases() if c.id.startswith("reduce.emptied-key-both-readings."))


@pytest.mark.spec("SKIP-DEC-EMPTIED-KEY", evidence="example")
def test_both_readings_of_the_emptied_key_are_accepted() -> None:
    """Restarting from ι gives 5 after the key returns, resuming from the drifted
    accumulator 1 (worked out in the case file); both are listed, and they differ."""
    steps = [s.to_json(with_expectations=False) for s in CASE.steps]
    restart, kept = oracle.operational(steps), oracle.operational(steps, keep_emptied=True)
    assert restart[-1] == {"view": [["k", 5]], "changes": [["k", 5]]}
    assert kept[-1] == {"view": [["k", 1]], "changes": [["k", 1]]}
    listed = [list(map(thaw, alt)) for alt in CASE.alternatives]
    assert restart in listed and kept in listed


@pytest.mark.spec("SKIP-DEC-EMPTIED-KEY", evidence="property")
@given(st.sampled_from([n for n, s in reducers.REDUCERS.items() if s.well_formed]), st.integers(0, 10**6))
def test_readings_agree_for_well_formed_reducers(name: str, seed: int) -> None:
    """For a well-formed reducer an emptied key's accumulator is ι again, so the two
    readings and the recompute give the same observations on random traces."""
    params = {"cap": 10} if name == "saturating_sum" else {}
    steps = trace(random.Random(seed), name, params)
    expected = oracle.denotational(steps)
    assert oracle.operational(steps) == expected
    assert oracle.operational(steps, keep_emptied=True) == expected
