"""Resolve the dotted ``reference`` paths of catalog entries (shared by the
per-paper catalog meta-checks)."""

from __future__ import annotations

import importlib
from typing import Any


def resolve(dotted: str) -> Any:
    """The object named by ``dotted`` (a module, then attributes); ImportError or
    AttributeError when it does not exist."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for name in parts[i:]:
            obj = getattr(obj, name)
        return obj
    raise ImportError(dotted)
