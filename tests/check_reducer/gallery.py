"""The gallery's hand-written expected verdicts (examples/reducers/expected.toml), the
report's schema, and the replay of a witness by plain folds (never by the checker)."""

from __future__ import annotations

import copy
import importlib.util
import json
import math
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest

from check_reducer.search import time_limit  # a timer only: the replay computes by itself

ROOT = Path(__file__).resolve().parents[2]
GALLERY = ROOT / "examples" / "reducers"
ALL_EXAMPLES: list[dict[str, Any]] = tomllib.loads((GALLERY / "expected.toml").read_text())["example"]
#: checked without CrossHair in test_gallery.py
PLAIN = [e for e in ALL_EXAMPLES if not e.get("symbolic")]
#: checked with CrossHair in test_symbolic.py (the other engines miss them)
SYMBOLIC = [e for e in ALL_EXAMPLES if e.get("symbolic")]

SCHEMA = json.loads((ROOT / "check_reducer" / "report.schema.json").read_text())


def valid(report: dict[str, Any]) -> dict[str, Any]:
    """``report`` after checking it against the --json format's schema."""
    jsonschema.validate(report, SCHEMA)
    return report


def module(path: Path) -> ModuleType:
    """A gallery file, imported once (apart from the checker's own import of it)."""
    name = "_gallery_" + path.stem
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        sys.modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[name])
    return sys.modules[name]


def parts(obj: Any) -> tuple[Any, Callable[[Any, Any], Any], Callable[[Any, Any], Any]]:
    """(initial, add, remove) as the galleries write them: triples, classes (instantiated),
    objects with the three members."""
    if isinstance(obj, tuple):
        return obj[0], obj[1], obj[2]
    instance = obj() if isinstance(obj, type) else obj
    return instance.initial, instance.add, instance.remove


def read(text: str, namespace: dict[str, Any]) -> Any:
    """A value as the report prints it (its repr); a multiset {|x, y|} as a list."""
    if text.startswith("{|") and text.endswith("|}"):
        text = f"[{text[2:-2]}]"
    return eval(text, {"inf": math.inf, "nan": math.nan, **namespace})  # noqa: S307 (our reprs)


def canonical(values: list[Any]) -> list[Any]:
    """The fold order of the reference (SKIP-DEC-FOLD-ORDER): natural, else by repr."""
    try:
        return sorted(values)
    except TypeError:
        return sorted(values, key=repr)


def fold(f: Callable[[Any, Any], Any], acc: Any, values: list[Any]) -> Any:
    for v in canonical(values):
        acc = f(copy.deepcopy(acc), v)
        assert acc is not None, f"{f.__name__} declined on {v!r}: a witness never declines"
    return acc


def minus(whole: list[Any], part: list[Any]) -> list[Any]:
    rest = list(whole)
    for v in part:
        rest.remove(v)  # a valid delta removes only values C(k) holds (SKIP-DEF-8)
    return rest


def replay(report: dict[str, Any], path: Path, name: str) -> None:
    """The verdict's witness (exit status 1), reproduced without the checker: update
    differs from recomputation on the collection and delta printed, the call printed
    changes its argument, or it raises or hangs."""
    namespace = vars(module(path))
    initial, add, remove = parts(namespace[name])
    key = report["witness_line"]
    line = next(line for line in report["lines"] if line["key"] == key)
    if key == "def11" and report["theorem2_witness"]:
        w = report["theorem2_witness"]
        k = w["key"]
        C = read(w["C"].get(k, "{||}"), namespace)
        removed = read(w["delta_minus"].get(k, "{||}"), namespace)
        added = read(w["delta_plus"].get(k, "{||}"), namespace)
        after = minus(C, removed) + added
        assert after, "the key stays in the view (SKIP-DEC-EMPTIED-KEY)"
        recompute = fold(add, copy.deepcopy(initial), after)
        incremental = fold(add, fold(remove, fold(add, copy.deepcopy(initial), C), removed), added)
        assert recompute != incremental
        assert (repr(recompute), repr(incremental)) == (w["recomputed"], w["incremental"])
    elif line["status"] == "error":  # the call raises or hangs
        call = line["counterexample"]["call"]
        function = add if call["function"] == "add" else remove
        with pytest.raises(Exception):  # noqa: B017, PT011 (whatever the reducer raises)
            with time_limit(0.5):  # a hang ends here
                function(read(call["acc"], namespace), read(call["value"], namespace))
    elif key == "pure":  # the call changes its argument
        (before, was), (_, became) = line["counterexample"]["sides"].items()
        function = add if before.endswith("add(accum, v)") else remove
        acc = read(was, namespace)
        function(acc, read(line["counterexample"]["args"]["v"], namespace))
        assert acc != read(was, namespace) and acc == read(became, namespace)
    else:
        raise AssertionError(f"no replay for the witness of {key}")
