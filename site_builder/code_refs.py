"""Where a catalog item's ``reference`` (a dotted name) is defined: file and line, by ``inspect``."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path
from types import ModuleType
from typing import Any

from proofs_map.references import resolve


def _module_of(dotted: str) -> ModuleType | None:
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            return importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
    return None


def _source(obj: Any) -> tuple[str, int | None] | None:
    target = inspect.unwrap(obj) if callable(obj) else obj
    try:
        path = inspect.getsourcefile(target)
    except TypeError:
        return None
    if path is None:
        return None
    try:
        line: int | None = 1 if inspect.ismodule(target) else inspect.getsourcelines(target)[1]
    except (OSError, TypeError):
        line = None
    return path, line


def locate(dotted: str, root: Path) -> tuple[str, int | None] | None:
    """(path relative to ``root``, line or None) of the object ``dotted`` names; None when
    it does not resolve or lives outside the repository. A value without source of its
    own (a constant, an alias) is located in its module."""
    try:
        found = _source(resolve(dotted))
    except (ImportError, AttributeError):
        found = None
    if found is None:
        module = _module_of(dotted)
        found = _source(module) if module is not None else None
        found = (found[0], None) if found else None
    if found is None:
        return None
    path = Path(found[0]).resolve()
    try:
        return path.relative_to(root.resolve()).as_posix(), found[1]
    except ValueError:
        return None
