"""CrossHair on the int specialisations of :mod:`reference.differential.symbolic`.

One ``crosshair check`` subprocess analyses the module; each law must get no
counterexample ("Confirmed over all paths" or, out of time, "Not confirmed":
neither is a proof) and its broken twin must get one, which is replayed to check
that it really fails. Bound: 4 s per condition (about 1 s of CPU in all).
"""

from __future__ import annotations

import pytest

from reference.differential import symbolic
from tests.crosshair_laws import crosshair_outcomes, holds_and_twin_fails

pytestmark = pytest.mark.symbolic
PER_CONDITION_TIMEOUT = 4


@pytest.fixture(scope="module")
def outcomes() -> dict[str, str]:
    """Law name -> "refuted: <message>" | "confirmed" | "not confirmed"."""
    return crosshair_outcomes(symbolic, PER_CONDITION_TIMEOUT)


@pytest.mark.spec("DD-CLAIM-MU-N", evidence="symbolic")
def test_mobius_n_symbolic(outcomes: dict[str, str]) -> None:
    """0 <= s, t <= 6."""
    holds_and_twin_fails(symbolic, outcomes, "mobius_n_law")


@pytest.mark.spec("DD-THM-MOBIUS-INVERSION", evidence="symbolic")
def test_inversion_n_symbolic(outcomes: dict[str, str]) -> None:
    """Streams on 0..2 with values in -100..100."""
    holds_and_twin_fails(symbolic, outcomes, "inversion_n_law")


@pytest.mark.spec("DD-CLAIM-BILINEAR-N", evidence="symbolic")
def test_bilinear_n_symbolic(outcomes: dict[str, str]) -> None:
    """f = mul on Z at n = 1, values in -50..50."""
    holds_and_twin_fails(symbolic, outcomes, "bilinear_n_law")
