"""CrossHair on the int specialisations of :mod:`reference.fixpoint.symbolic`:
claims quantified over rank functions, on the paper's §4.1-4.2, §4.4 and §4.5
graphs, with the ranks as unbounded int arguments.

The laws that hold must get no counterexample and, since only the order of
three to five ranks matters, CrossHair exhausts their paths ("confirmed"): on
these fixed graphs that covers every rank function, but it is a statement about
three graphs, not the theorem. Each broken twin must be refuted with the expected
counterexample, so every symbolic check is shown able to fail.

Bound: ``--per_condition_timeout=10`` CPU seconds per law; the module takes
about 3 s of CPU in all.
"""

from __future__ import annotations

import pytest

from reference.fixpoint import symbolic
from tests.crosshair_laws import confirmed, crosshair_outcomes, replayed_counterexample

pytestmark = pytest.mark.symbolic

PER_CONDITION_TIMEOUT = 10


@pytest.fixture(scope="module")
def outcomes() -> dict[str, str]:
    """Law name -> "refuted: <message>" | "confirmed" | "not confirmed"; "confirmed"
    here means every ordering of the ranks was explored."""
    return crosshair_outcomes(symbolic, PER_CONDITION_TIMEOUT)


@pytest.mark.spec("FIX-THM-CASCADE-REDERIVE", evidence="symbolic")
def test_cascade_then_rederive_for_every_rank_function(outcomes: dict[str, str]) -> None:
    confirmed(outcomes, "cascade_rederive_any_ranks_cycle")
    confirmed(outcomes, "cascade_rederive_any_ranks_stale")
    # without re-derivation the cascade loses B (or C and B) unless rank R < rank C < rank B
    r, b, c = replayed_counterexample(symbolic, outcomes, "cascade_alone_any_ranks_stale")
    assert not r < c < b
    assert not symbolic.cascade_alone_any_ranks_stale(0, 1, 1)  # §4.5's own stale ranks


@pytest.mark.spec("FIX-THM-1", evidence="symbolic")
@pytest.mark.spec("FIX-DEC-EXPAND-SEED", evidence="symbolic")
def test_expansion_from_every_admissible_rank_function(outcomes: dict[str, str]) -> None:
    """§4.2 from every rank function satisfying the invariant on §4.1's graph: the
    seeded expansion reaches lfp(F') with E at 1 and F at 2 and keeps the invariant;
    the printed frontier (new base only) never reaches E."""
    confirmed(outcomes, "expansion_under_invariant_setup")
    replayed_counterexample(symbolic, outcomes, "printed_expansion_under_invariant_setup")
    assert not symbolic.printed_expansion_under_invariant_setup(0, 1, 2, 3, 2)  # §4.1's ranks


@pytest.mark.spec("FIX-DEC-GAP", evidence="symbolic", part="agree-under-invariant")
@pytest.mark.spec("FIX-DEC-GAP", evidence="symbolic", part="disagree-without")
@pytest.mark.spec("FIX-DEC-RANK-INVARIANT", evidence="symbolic")
@pytest.mark.spec("FIX-THM-2", evidence="symbolic")
def test_worklist_contraction_needs_the_rank_invariant(outcomes: dict[str, str]) -> None:
    """From every rank function satisfying the invariant, the worklist contraction is
    right and keeps the invariant; from one that breaks it (B below A on §4.4's
    cycle), the unreachable cycle survives."""
    confirmed(outcomes, "worklist_contract_under_invariant_cycle")
    confirmed(outcomes, "worklist_contract_under_invariant_stale")
    r, a, b = replayed_counterexample(symbolic, outcomes, "worklist_contract_any_ranks_cycle")
    assert b < a  # B "supports" A


@pytest.mark.spec("FIX-DEC-REDERIVE-RANK", evidence="symbolic")
def test_printed_rederivation_breaks_the_invariant(outcomes: dict[str, str]) -> None:
    """The corrected re-derivation keeps the invariant for every admissible rank
    function on §4.5; the printed one (ranks restarted at 0) breaks it, e.g. from
    the paper's own ranks R 0, B 1, C 1."""
    confirmed(outcomes, "worklist_contract_under_invariant_stale")
    r, b, c = replayed_counterexample(symbolic, outcomes, "printed_contract_under_invariant_stale")
    assert r == 0 < c and b >= c  # admissible ranks under which the cascade kills B
    assert not symbolic.printed_contract_under_invariant_stale(0, 1, 1)
