"""No twin of the suite's driver, wire helpers or case-model helpers elsewhere in the tree.

A function whose body is, up to the names of its variables and arguments, the body of
one of those helpers is a copy that will drift (as a second driver once did). The
comparison renames every local name and argument in order of appearance, and skips
bodies too small to be a copy of anything (a one-line ``return``).
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ORIGINALS = ("conformance/driver.py", "conformance/wire.py", "conformance/cases_model.py",
             "conformance/vocabulary/__init__.py")
PACKAGES = ("reference", "reference_impl", "conformance", "spark_impl", "check_reducer", "proofs_map",
            "incspec", "tests", "benchmarks", "engines", "site_builder")
MIN_NODES = 30


class _Rename(ast.NodeTransformer):
    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def _alias(self, name: str) -> str:
        return self.names.setdefault(name, f"v{len(self.names)}")

    def visit_Name(self, node: ast.Name) -> ast.Name:
        return ast.Name(id=self._alias(node.id), ctx=node.ctx)

    def visit_arg(self, node: ast.arg) -> ast.arg:
        return ast.arg(arg=self._alias(node.arg))


def shape(fn: ast.FunctionDef) -> str | None:
    """The body of ``fn`` with names renamed and its docstring dropped; None if too small."""
    body = fn.body[1:] if ast.get_docstring(fn) is not None else fn.body
    renamed = _Rename()
    for a in fn.args.args:
        renamed._alias(a.arg)
    module = renamed.visit(ast.Module(body=copy.deepcopy(body), type_ignores=[]))
    if sum(1 for _ in ast.walk(module)) < MIN_NODES:
        return None
    return ast.dump(module, annotate_fields=False)


def functions(path: Path) -> Iterator[tuple[str, str]]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef):
            s = shape(node)
            if s is not None:
                yield node.name, s


def test_the_shape_sees_a_renamed_copy() -> None:
    original = ast.parse("def pairs(m):\n    return [[thaw(k), thaw(v)] for k, v in sorted(m.items(), key=lambda kv: c(kv[0]))]")
    copy = ast.parse("def _pairs(mapping):\n    '''doc'''\n    return [[t(a), t(b)] for a, b in sorted(mapping.items(), key=lambda x: c(x[0]))]")
    other = ast.parse("def f(m):\n    return [[thaw(k), thaw(v)] for k, v in sorted(m.items(), key=lambda kv: c(kv[1]))]")
    fn = [t.body[0] for t in (original, copy, other)]
    assert all(isinstance(f, ast.FunctionDef) for f in fn)
    shapes = [shape(f) for f in fn if isinstance(f, ast.FunctionDef)]
    assert shapes[0] is not None and shapes[0] == shapes[1] != shapes[2]


def test_no_twin_of_the_driver_wire_or_case_model() -> None:
    originals = {s: f"{path}:{name}" for path in ORIGINALS for name, s in functions(ROOT / path)}
    twins = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            where = str(path.relative_to(ROOT))
            if where in ORIGINALS:
                continue
            twins += [f"{where}:{name} copies {originals[s]}" for name, s in functions(path) if s in originals]
    assert twins == []
