"""Run ``crosshair check`` on a module of int-specialised laws and read the outcome per law.

A laws module lists in ``HOLDS`` the laws (top-level functions with ``post: __return__``)
that must get no counterexample and in ``FAILS`` their broken twins (``<law>_broken``)
that must get one. "Confirmed over all paths" means CrossHair exhausted the paths
within its bounds; "Not confirmed" means it ran out of time without a counterexample;
neither is a proof. Each refutation of a twin is replayed in Python, so every
symbolic check is shown able to fail on a broken input.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

LINE = re.compile(r"^(?P<file>.*?):(?P<line>\d+): (?P<level>error|info): (?P<message>.*)$")
CALL = re.compile(r"calling (?P<name>\w+)\((?P<args>[-\d, ]*)\)")


def _function_at(source: Path) -> dict[int, str]:
    """Line number -> name of the top-level function spanning it."""
    spans: dict[int, str] = {}
    for node in ast.parse(source.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef):
            for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                spans[line] = node.name
    return spans


def crosshair_outcomes(laws: ModuleType, per_condition_timeout: int) -> dict[str, str]:
    """Law name -> ``"refuted: <message>"`` | ``"confirmed"`` | ``"not confirmed"``,
    for every law and twin of ``laws`` (one ``crosshair check`` subprocess)."""
    source = Path(str(laws.__file__))
    result = subprocess.run(
        [sys.executable, "-m", "crosshair", "check", "--report_all",
         f"--per_condition_timeout={per_condition_timeout}", laws.__name__],
        capture_output=True, text=True, timeout=300, cwd=source.parents[2],
    )
    assert result.returncode in (0, 1), result.stderr
    spans = _function_at(source)
    found: dict[str, str] = {}
    for raw in result.stdout.splitlines():
        match = LINE.match(raw)
        if match and Path(match["file"]).name == source.name:
            name, message = spans[int(match["line"])], match["message"]
            if match["level"] == "error":
                found[name] = f"refuted: {message}"
            else:
                found[name] = "confirmed" if message.startswith("Confirmed") else "not confirmed"
    assert set(found) == set(laws.HOLDS) | set(laws.FAILS), result.stdout
    return found


def holds_and_twin_fails(laws: ModuleType, outcomes: dict[str, str], law: str) -> None:
    """``law`` got no counterexample; ``law_broken`` got one, and replaying the reported
    call shows the twin false and the law true there."""
    assert outcomes[law] in ("confirmed", "not confirmed"), outcomes[law]
    twin = outcomes[f"{law}_broken"]
    assert twin.startswith("refuted: "), twin
    call = CALL.search(twin)
    assert call is not None and call["name"] == f"{law}_broken"
    args = [int(a) for a in call["args"].split(",")]
    assert not getattr(laws, f"{law}_broken")(*args)  # the reported call really fails
    assert getattr(laws, law)(*args)  # and the law holds there
