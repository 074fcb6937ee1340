"""CrossHair on the int specialisations of :mod:`reference.streams.symbolic`.

One ``crosshair check`` subprocess analyses the module (every law has
``post: __return__``); each test reads the outcome of its laws. A law must get
no counterexample ("Confirmed over all paths": CrossHair exhausted the paths;
"Not confirmed": it ran out of time without a counterexample; neither is a
proof). Its broken twin must get one, so every symbolic check is shown able to
fail, and the reported call is replayed to check it really fails.

Bound: ``--per_condition_timeout=3`` CPU seconds per law (the module takes
about 1 s of CPU in all).
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from reference.streams import symbolic

pytestmark = pytest.mark.symbolic

TIMEOUT_PER_CONDITION = "3"
LINE = re.compile(r"^(?P<file>.*?):(?P<line>\d+): (?P<level>error|info): (?P<message>.*)$")
CALL = re.compile(r"calling (?P<name>\w+)\((?P<args>[-\d, ]*)\)")


def _function_at(source: Path) -> dict[int, str]:
    spans: dict[int, str] = {}
    for node in ast.parse(source.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef):
            for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                spans[line] = node.name
    return spans


@pytest.fixture(scope="module")
def outcomes() -> dict[str, str]:
    """Law name -> "refuted: <message>" | "confirmed" | "not confirmed"."""
    pytest.importorskip("crosshair")
    source = Path(symbolic.__file__)
    result = subprocess.run(
        [sys.executable, "-m", "crosshair", "check", "--report_all",
         f"--per_condition_timeout={TIMEOUT_PER_CONDITION}", symbolic.__name__],
        capture_output=True, text=True, timeout=300, cwd=source.parents[2],
    )
    assert result.returncode in (0, 1), result.stderr
    spans = _function_at(source)
    found: dict[str, str] = {}
    for raw in result.stdout.splitlines():
        match = LINE.match(raw)
        if match:
            name, message = spans[int(match["line"])], match["message"]
            if match["level"] == "error":
                found[name] = f"refuted: {message}"
            else:
                found[name] = "confirmed" if message.startswith("Confirmed") else "not confirmed"
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


@pytest.mark.spec("STREAM-EX-3.15", evidence="symbolic")
def test_prefix_sum_condition_1(outcomes: dict[str, str]) -> None:
    holds_and_twin_fails(outcomes, "prefix_sum_condition_1")


@pytest.mark.spec("STREAM-THM-3.18", evidence="symbolic")
def test_compact_decomposition(outcomes: dict[str, str]) -> None:
    holds_and_twin_fails(outcomes, "decomposition_law")


@pytest.mark.spec("STREAM-THM-3.38", evidence="symbolic", part="I;D=id")
@pytest.mark.spec("STREAM-THM-3.38", evidence="symbolic", part="D;I=id")
def test_integral_derivative(outcomes: dict[str, str]) -> None:
    holds_and_twin_fails(outcomes, "integral_derivative_law")


@pytest.mark.spec("STREAM-EX-3.57-NONTERM", evidence="symbolic", part="1=>2")
@pytest.mark.spec("STREAM-EX-3.57-NONTERM", evidence="symbolic", part="2=>1")
def test_fixed_point_iff_zero(outcomes: dict[str, str]) -> None:
    holds_and_twin_fails(outcomes, "fixed_point_iff_zero")


@pytest.mark.spec("STREAM-PROP-3.43", evidence="symbolic")
def test_merge_homomorphism(outcomes: dict[str, str]) -> None:
    holds_and_twin_fails(outcomes, "merge_homomorphism")


@pytest.mark.spec("STREAM-EX-4.1", evidence="symbolic")
def test_full_adder(outcomes: dict[str, str]) -> None:
    holds_and_twin_fails(outcomes, "full_adder_law")


@pytest.mark.spec("STREAM-LEM-3.23", evidence="symbolic", part="(1)")
@pytest.mark.spec("STREAM-LEM-3.23", evidence="symbolic", part="(2)")
@pytest.mark.spec("STREAM-LEM-3.23", evidence="symbolic", part="(3)")
@pytest.mark.spec("STREAM-LEM-3.23", evidence="symbolic", part="(4)")
def test_incremental_outputs(outcomes: dict[str, str]) -> None:
    holds_and_twin_fails(outcomes, "incremental_outputs_law")


@pytest.mark.spec("STREAM-PROP-3.30", evidence="symbolic")
@pytest.mark.spec("STREAM-COR-3.33", evidence="symbolic")
def test_fusion(outcomes: dict[str, str]) -> None:
    holds_and_twin_fails(outcomes, "fusion_law")
