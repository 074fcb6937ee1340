"""Find the checks in the code: every ``@pytest.mark.spec(...)`` decorator.

Read statically with :mod:`ast`, so the map is derived from the code without
running it (and without importing Spark or CrossHair).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

EVIDENCE_KINDS = ("example", "property", "exhaustive", "symbolic")


@dataclass(frozen=True)
class Check:
    """One check citing one spec ID."""

    spec_id: str
    evidence: str
    part: str
    location: str  # "tests/path.py::test_name"


class MarkerError(ValueError):
    """A ``spec`` marker is malformed (no evidence kind, an unknown one, non-literal args)."""


def _spec_marker(node: ast.expr) -> ast.Call | None:
    # matches pytest.mark.spec(...) and mark.spec(...)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr == "spec":
            base = node.func.value
            if (isinstance(base, ast.Attribute) and base.attr == "mark") or (
                isinstance(base, ast.Name) and base.id == "mark"
            ):
                return node
    return None


def _literal(node: ast.expr, where: str) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    raise MarkerError(f"{where}: spec marker arguments must be string literals")


def _checks_of(call: ast.Call, location: str) -> list[Check]:
    kwargs = {kw.arg: _literal(kw.value, location) for kw in call.keywords if kw.arg}
    evidence = kwargs.get("evidence", "")
    if evidence not in EVIDENCE_KINDS:
        raise MarkerError(f"{location}: evidence must be one of {EVIDENCE_KINDS}, got {evidence!r}")
    ids = [_literal(a, location) for a in call.args]
    if not ids:
        raise MarkerError(f"{location}: spec marker names no ID")
    return [Check(i, evidence, kwargs.get("part", ""), location) for i in ids]


def _decorated(tree: ast.Module) -> list[tuple[str, list[ast.expr]]]:
    """(qualified name, decorators) for test functions and classes, including
    ``pytestmark = pytest.mark.spec(...)`` at module level."""
    found: list[tuple[str, list[ast.expr]]] = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
        ):
            marks = node.value.elts if isinstance(node.value, (ast.List, ast.Tuple)) else [node.value]
            found.append(("<module>", list(marks)))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.append((node.name, node.decorator_list))
        if isinstance(node, ast.ClassDef):
            found.append((node.name, node.decorator_list))
            for sub in node.body:
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    found.append((f"{node.name}::{sub.name}", sub.decorator_list))
    return found


def collect_checks(root: Path, folders: tuple[str, ...] = ("tests",)) -> list[Check]:
    """Every check under ``root/<folder>`` for each folder, sorted by location."""
    checks: list[Check] = []
    for folder in folders:
        for path in sorted((root / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            rel = path.relative_to(root).as_posix()
            for name, decorators in _decorated(tree):
                for dec in decorators:
                    call = _spec_marker(dec)
                    if call is not None:
                        checks.extend(_checks_of(call, f"{rel}::{name}"))
    return checks
