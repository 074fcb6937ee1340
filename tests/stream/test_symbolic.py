"""CrossHair on the int specialisations of :mod:`reference.streams.symbolic`.

One ``crosshair check`` subprocess analyses the module (every law has
``post: __return__``); each test reads the outcome of its laws. A law must get
no counterexample ("Confirmed over all paths": CrossHair exhausted the paths;
"Not confirmed": it ran out of time without a counterexample; neither is a
proof). Its broken twin must get one, so every symbolic check is shown able to
fail, and the reported call is replayed to check it really fails.

Bound: ``PER_CONDITION_TIMEOUT`` = 3 CPU seconds per law (the module takes
about 1 s of CPU in all).
"""

from __future__ import annotations

import pytest

from reference.streams import symbolic
from tests.crosshair_laws import crosshair_outcomes, holds_and_twin_fails

pytestmark = pytest.mark.symbolic
PER_CONDITION_TIMEOUT = 3


@pytest.fixture(scope="module")
def outcomes() -> dict[str, str]:
    """Law name -> "refuted: <message>" | "confirmed" | "not confirmed"."""
    return crosshair_outcomes(symbolic, PER_CONDITION_TIMEOUT)


@pytest.mark.spec("STREAM-EX-3.15", evidence="symbolic")
def test_prefix_sum_condition_1(outcomes: dict[str, str]) -> None:
    """Lists p, a of two unbounded ints."""
    holds_and_twin_fails(symbolic, outcomes, "prefix_sum_condition_1")


@pytest.mark.spec("STREAM-THM-3.18", evidence="symbolic")
def test_compact_decomposition(outcomes: dict[str, str]) -> None:
    """Inputs of three unbounded ints."""
    holds_and_twin_fails(symbolic, outcomes, "decomposition_law")


@pytest.mark.spec("STREAM-THM-3.38", evidence="symbolic", part="I;D=id")
@pytest.mark.spec("STREAM-THM-3.38", evidence="symbolic", part="D;I=id")
def test_integral_derivative(outcomes: dict[str, str]) -> None:
    """Lists of three unbounded ints, G = (Z, +)."""
    holds_and_twin_fails(symbolic, outcomes, "integral_derivative_law")


@pytest.mark.spec("STREAM-CLAIM-3.57-NONTERM", evidence="symbolic", part="1=>2")
@pytest.mark.spec("STREAM-CLAIM-3.57-NONTERM", evidence="symbolic", part="2=>1")
def test_fixed_point_iff_zero(outcomes: dict[str, str]) -> None:
    """m >= 0 unbounded, rounds i <= 6."""
    holds_and_twin_fails(symbolic, outcomes, "fixed_point_iff_zero")


@pytest.mark.spec("STREAM-PROP-3.43", evidence="symbolic")
def test_merge_homomorphism(outcomes: dict[str, str]) -> None:
    """Pairs of unbounded ints, M = (Z, +)."""
    holds_and_twin_fails(symbolic, outcomes, "merge_homomorphism")


@pytest.mark.spec("STREAM-EX-4.1", evidence="symbolic")
def test_full_adder(outcomes: dict[str, str]) -> None:
    """Three-bit a and b, carry bit c (all 2^7 inputs lie within the bounds)."""
    holds_and_twin_fails(symbolic, outcomes, "full_adder_law")


@pytest.mark.spec("STREAM-LEM-3.23", evidence="symbolic", part="(1)")
@pytest.mark.spec("STREAM-LEM-3.23", evidence="symbolic", part="(2)")
@pytest.mark.spec("STREAM-LEM-3.23", evidence="symbolic", part="(3)")
@pytest.mark.spec("STREAM-LEM-3.23", evidence="symbolic", part="(4)")
def test_incremental_outputs(outcomes: dict[str, str]) -> None:
    """p of one, a of two, b of one unbounded ints (the compact prefix-sum processor)."""
    holds_and_twin_fails(symbolic, outcomes, "incremental_outputs_law")


@pytest.mark.spec("STREAM-PROP-3.30", evidence="symbolic")
@pytest.mark.spec("STREAM-COR-3.33", evidence="symbolic")
def test_fusion(outcomes: dict[str, str]) -> None:
    """Inputs of three unbounded ints."""
    holds_and_twin_fails(symbolic, outcomes, "fusion_law")
