"""CrossHair on the int specialisations of :mod:`reference.differential.symbolic`.

One ``crosshair check`` subprocess analyses the module; each law must get no
counterexample ("Confirmed over all paths" or, out of time, "Not confirmed":
neither is a proof) and its broken twin must get one, which is replayed to check
that it really fails. Bound: 4 s per condition (about 1 s of CPU in all).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from reference.differential import symbolic

pytestmark = pytest.mark.symbolic

LINE = re.compile(r"^.*?:(?P<line>\d+): (?P<level>error|info): (?P<message>.*)$")
CALL = re.compile(r"calling (?P<name>\w+)\((?P<args>[-\d, ]*)\)")


@pytest.fixture(scope="module")
def outcomes() -> dict[str, str]:
    """Law name -> "refuted: <message>" | "confirmed" | "not confirmed"."""
    pytest.importorskip("crosshair")
    source = Path(symbolic.__file__)
    result = subprocess.run(
        [sys.executable, "-m", "crosshair", "check", "--report_all",
         "--per_condition_timeout=4", symbolic.__name__],
        capture_output=True, text=True, timeout=300, cwd=source.parents[2],
    )
    assert result.returncode in (0, 1), result.stderr
    lines = source.read_text(encoding="utf-8").splitlines()
    found: dict[str, str] = {}
    for raw in result.stdout.splitlines():
        match = LINE.match(raw)
        if not match:
            continue
        at = int(match["line"]) - 1
        name = next(lines[i].split("(")[0].removeprefix("def ") for i in range(at, -1, -1)
                    if lines[i].startswith("def "))
        if match["level"] == "error":
            found[name] = f"refuted: {match['message']}"
        else:
            found[name] = "confirmed" if match["message"].startswith("Confirmed") else "not confirmed"
    assert set(found) == set(symbolic.HOLDS) | set(symbolic.FAILS), result.stdout
    return found


def holds_and_twin_fails(outcomes: dict[str, str], law: str) -> None:
    assert outcomes[law] in ("confirmed", "not confirmed"), outcomes[law]
    twin = outcomes[f"{law}_broken"]
    assert twin.startswith("refuted: "), twin
    call = CALL.search(twin)
    assert call is not None and call["name"] == f"{law}_broken"
    args = [int(a) for a in call["args"].split(",")]
    assert not getattr(symbolic, f"{law}_broken")(*args)  # the reported call really fails
    assert getattr(symbolic, law)(*args)  # and the law holds there


@pytest.mark.spec("DD-CLAIM-MU-N", evidence="symbolic")
def test_mobius_n_symbolic(outcomes: dict[str, str]) -> None:
    """0 <= s, t <= 6."""
    holds_and_twin_fails(outcomes, "mobius_n_law")


@pytest.mark.spec("DD-THM-MOBIUS-INVERSION", evidence="symbolic")
def test_inversion_n_symbolic(outcomes: dict[str, str]) -> None:
    """Streams on 0..2 with values in -100..100."""
    holds_and_twin_fails(outcomes, "inversion_n_law")


@pytest.mark.spec("DD-CLAIM-BILINEAR-N", evidence="symbolic")
def test_bilinear_n_symbolic(outcomes: dict[str, str]) -> None:
    """f = mul on Z at n = 1, values in -50..50."""
    holds_and_twin_fails(outcomes, "bilinear_n_law")
