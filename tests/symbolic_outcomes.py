"""Run CrossHair once over a module of first-order laws and read each law's
outcome (shared by the symbolic checks of every paper).

Every law of the module carries ``post: __return__``. The outcome of a law is
"refuted: <message>" (CrossHair found a counterexample), "confirmed" (it
exhausted the paths without one) or "not confirmed" (it ran out of time
without one). Neither of the last two is a proof.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

LINE = re.compile(r"^(?P<file>.*?):(?P<line>\d+): (?P<level>error|info): (?P<message>.*)$")


def _function_at(source: Path) -> dict[int, str]:
    """Line number -> the name of the top-level function spanning it."""
    spans: dict[int, str] = {}
    for node in ast.parse(source.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef):
            for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                spans[line] = node.name
    return spans


def crosshair_outcomes(module: ModuleType, per_condition_timeout: str) -> dict[str, str]:
    """Law name -> outcome, for every law CrossHair reported on in ``module``
    (``per_condition_timeout``: CPU seconds per law)."""
    source = Path(module.__file__ or "")
    run = subprocess.run(
        [sys.executable, "-m", "crosshair", "check", "--report_all",
         f"--per_condition_timeout={per_condition_timeout}", module.__name__],
        capture_output=True, text=True, timeout=300,
        cwd=source.parents[len(module.__name__.split(".")) - 1],
    )
    assert run.returncode in (0, 1), run.stderr
    spans = _function_at(source)
    found: dict[str, str] = {}
    for raw in run.stdout.splitlines():
        match = LINE.match(raw)
        if not match:
            continue
        name = spans[int(match["line"])]
        message = match["message"]
        if match["level"] == "error":
            found[name] = f"refuted: {message}"
        else:
            found[name] = "confirmed" if message.startswith("Confirmed") else "not confirmed"
    return found


def counterexample(outcomes: dict[str, str], law: str) -> tuple[int, ...]:
    """The int arguments of the call CrossHair reports refuting ``law`` (which
    call it finds first may vary between runs)."""
    assert outcomes[law].startswith("refuted: "), outcomes[law]
    call = re.search(rf"calling {law}\((-?\d+(?:, -?\d+)*)\)", outcomes[law])
    assert call is not None, outcomes[law]
    return tuple(int(x) for x in call[1].split(", "))


def not_refuted(outcomes: dict[str, str], law: str) -> None:
    assert outcomes[law] in ("confirmed", "not confirmed"), outcomes[law]
