"""CrossHair on the int specialisations of :mod:`reference.skip.symbolic`.

One ``crosshair check`` subprocess analyses the whole module (every law has
``post: __return__``); each test then reads the outcome of its laws. A law of a
well-formed built-in must get no counterexample ("Confirmed over all paths"
means CrossHair exhausted the paths; "Not confirmed" that it ran out of time
without a counterexample: neither is a proof here). Its broken twin, the same
law for an ill-formed reducer, must get one, so every symbolic check is shown
able to fail.

Bound: ``--per_condition_timeout=3`` CPU seconds per law (the module takes about
7 s of CPU; the laws CrossHair confirms over all paths finish well before).
"""

from __future__ import annotations

import pytest

from reference.skip import symbolic
from tests.crosshair_laws import crosshair_outcomes, not_refuted, replayed_counterexample

pytestmark = pytest.mark.symbolic

PER_CONDITION_TIMEOUT = 3


@pytest.fixture(scope="module")
def outcomes() -> dict[str, str]:
    """Law name -> "refuted: <message>" | "confirmed" | "not confirmed"."""
    return crosshair_outcomes(symbolic, PER_CONDITION_TIMEOUT)


@pytest.mark.spec("SKIP-DEF-2", evidence="symbolic")
def test_sum_commutes_and_affine_does_not(outcomes: dict[str, str]) -> None:
    not_refuted(outcomes, "sum_add_commutes")
    a, v1, v2 = replayed_counterexample(symbolic, outcomes, "affine_add_commutes")
    assert v1 != v2


@pytest.mark.spec("SKIP-DEF-7-SKIPDOC", evidence="symbolic")
@pytest.mark.spec("SKIP-CLAIM-GLOBAL-IMPLIES-SKIPDOC", evidence="symbolic")
def test_skip_contract_of_builtins_and_its_failure_for_sum_monus_nat(
    outcomes: dict[str, str],
) -> None:
    for law in ("sum_skipdoc_law", "count_skipdoc_law", "xor_skipdoc_law", "min_skipdoc_law"):
        not_refuted(outcomes, law)
    not_refuted(outcomes, "sum_monus_nat_global_law")
    a, v = replayed_counterexample(symbolic, outcomes, "sum_monus_nat_skipdoc_law")  # may vary
    assert 0 <= a < v  # monus truncated at 0


@pytest.mark.spec("SKIP-CLAIM-DEF-7-IMPLIES-GLOBAL", evidence="symbolic")
def test_sum_monus_is_well_formed_on_reachable_values_only(outcomes: dict[str, str]) -> None:
    not_refuted(outcomes, "sum_monus_reachable_law")
    a, v = replayed_counterexample(symbolic, outcomes, "sum_monus_int_global_law")
    assert a < 0 <= v


@pytest.mark.spec("SKIP-THM-2", evidence="symbolic", part="1=>2")
@pytest.mark.spec("SKIP-DEC-PARTIAL", evidence="symbolic")
def test_update_matches_recompute_for_sum_and_min(outcomes: dict[str, str]) -> None:
    """Instances of Theorem 2 (1 => 2) for sum and its partial extension for Skip's Min:
    C(k) of three values, one removed (and one added for sum)."""
    not_refuted(outcomes, "sum_update_matches_recompute")
    not_refuted(outcomes, "min_update_matches_recompute")
    # the broken twins for min: CrossHair finds the removal of the minimum
    for law in ("min_never_declines_update_matches_recompute",
                "min_declines_below_update_matches_recompute"):
        m1, m2, d = replayed_counterexample(symbolic, outcomes, law)
        assert d < min(m1, m2)  # the removed value was the minimum


@pytest.mark.spec("SKIP-THM-2", evidence="symbolic", part="2=>1")
def test_ill_formed_sum_is_caught_by_crosshair(outcomes: dict[str, str]) -> None:
    """2 => 1 by contraposition on an instance: the ill-formed sum_bad_remove is not
    incrementally correct, and CrossHair finds where."""
    _, _, d, _ = replayed_counterexample(symbolic, outcomes, "sum_bad_remove_update_matches_recompute")
    assert d != 0
