"""Run ``crosshair check`` once over a module of int-specialised laws, read each law's
outcome and replay the counterexamples it reports (shared by the symbolic tests of
every paper).

A laws module lists in ``HOLDS`` the laws (top-level functions with ``post: __return__``)
that must get no counterexample and in ``FAILS`` the ones that must get one (broken
twins, often named ``<law>_broken``). The outcome of a law is "refuted: <message>"
(CrossHair found a counterexample), "confirmed" (it exhausted the paths within its
bounds without one) or "not confirmed after N iterations" (it ran out of time without
one, having explored N paths, read from CrossHair's verbose log). Neither of the last
two is a proof, and a law not confirmed after 0 iterations was not checked at all:
:func:`not_refuted` fails on it (a loaded machine must not pass a symbolic check that
explored nothing). Every reported counterexample is replayed in Python, so each
symbolic check is shown able to fail on a broken input.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

LINE = re.compile(r"^(?P<file>.*?):(?P<line>\d+): (?P<level>error|info): (?P<message>.*)$")
BEGIN = re.compile(r"Begin analyze calltree\s+(?P<name>\w+)")
ITERATIONS = re.compile(r"calltree search with \w+ and \d+ messages\. Number of iterations:\s+(?P<n>\d+)")


def iterations_by_law(log: str) -> dict[str, int]:
    """Law name -> paths CrossHair explored for it (its verbose log: one law at a time)."""
    current, found = None, {}
    for line in log.splitlines():
        if (begin := BEGIN.search(line)) is not None:
            current = begin["name"]
        elif (done := ITERATIONS.search(line)) is not None and current is not None:
            found[current] = int(done["n"])
    return found


def _function_at(source: Path) -> dict[int, str]:
    """Line number -> name of the top-level function spanning it."""
    spans: dict[int, str] = {}
    for node in ast.parse(source.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef):
            for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                spans[line] = node.name
    return spans


def crosshair_outcomes(laws: ModuleType, per_condition_timeout: int) -> dict[str, str]:
    """Law name -> ``"refuted: <message>"`` | ``"confirmed"`` | ``"not confirmed after N
    iterations"``, for
    exactly the laws of ``laws.HOLDS`` and ``laws.FAILS`` (one ``crosshair check``
    subprocess; ``per_condition_timeout``: CPU seconds per law). Skips the calling test
    when CrossHair is not installed."""
    pytest.importorskip("crosshair")
    source = Path(str(laws.__file__))
    run = subprocess.run(
        [sys.executable, "-m", "crosshair", "check", "--report_all", "-v",
         f"--per_condition_timeout={per_condition_timeout}", laws.__name__],
        capture_output=True, text=True, timeout=300,
        cwd=source.parents[len(laws.__name__.split(".")) - 1],  # where the module imports from
    )
    assert run.returncode in (0, 1), run.stderr
    spans = _function_at(source)
    explored = iterations_by_law(run.stdout + "\n" + run.stderr)
    found: dict[str, str] = {}
    for raw in run.stdout.splitlines():
        match = LINE.match(raw)
        if match and Path(match["file"]).name == source.name:
            name, message = spans[int(match["line"])], match["message"]
            if match["level"] == "error":
                found[name] = f"refuted: {message}"
            else:
                found[name] = ("confirmed" if message.startswith("Confirmed")
                               else f"not confirmed after {explored.get(name, 0)} iterations")
    assert set(found) == set(laws.HOLDS) | set(laws.FAILS), run.stdout
    return found


def not_refuted(outcomes: dict[str, str], law: str) -> None:
    """CrossHair found no counterexample to ``law`` (which is not a proof), having explored
    at least one path: "not confirmed after 0 iterations" is no check at all and fails."""
    outcome = outcomes[law]
    explored = re.fullmatch(r"not confirmed after (\d+) iterations", outcome)
    assert outcome == "confirmed" or (explored is not None and int(explored[1]) > 0), outcome


def confirmed(outcomes: dict[str, str], law: str) -> None:
    """No counterexample to ``law``, and every path within the bounds explored."""
    assert outcomes[law] == "confirmed", outcomes[law]


def counterexample(outcomes: dict[str, str], law: str) -> tuple[int, ...]:
    """The int arguments of the call CrossHair reports refuting ``law`` (which call it
    finds first may vary between runs)."""
    assert outcomes[law].startswith("refuted: "), outcomes[law]
    call = re.search(rf"calling {re.escape(law)}\((-?\d+(?:, -?\d+)*)\)", outcomes[law])
    assert call is not None, outcomes[law]
    return tuple(int(x) for x in call[1].split(", "))


def replayed_counterexample(laws: ModuleType, outcomes: dict[str, str], law: str) -> tuple[int, ...]:
    """The counterexample CrossHair reports for ``law``, once replayed in Python:
    ``law`` really returns false there."""
    args = counterexample(outcomes, law)
    assert not getattr(laws, law)(*args), (law, args)
    return args


def holds_and_twin_fails(laws: ModuleType, outcomes: dict[str, str], law: str) -> None:
    """``law`` got no counterexample; ``<law>_broken`` got one, and replaying the
    reported call shows the twin false and the law true there."""
    not_refuted(outcomes, law)
    args = replayed_counterexample(laws, outcomes, f"{law}_broken")
    assert getattr(laws, law)(*args), (law, args)  # and the law holds there
