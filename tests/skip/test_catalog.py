"""The Skip entries of the catalog point at objects that exist."""

from __future__ import annotations

import importlib
from typing import Any

from proofs_map.catalog import load_catalog


def resolve(dotted: str) -> Any:
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


def test_every_skip_reference_resolves() -> None:
    items = [i for i in load_catalog().values() if i.id.startswith("SKIP-")]
    assert len(items) >= 37
    for item in items:
        assert item.reference, item.id
        for dotted in item.reference:
            assert resolve(dotted) is not None, (item.id, dotted)
