"""Catalog meta-checks for every paper: each item's ID carries its kind, and each
dotted ``reference`` path names an object that exists.

IDs follow ``PAPER-KIND-NUMBER`` (``SKIP-THM-2``, ``DD-CLAIM-RULE-JOIN``): the kind
token must be the item's kind's. A ``reference`` entry is a dotted path (a module,
then attributes) into the project, usually into ``reference/``; it is imported
here, so a renamed function or a moved module is caught by ``proofs_map --check``.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from proofs_map.catalog import Item

#: kind -> the token its IDs carry
KIND_TOKEN = {"definition": "DEF", "theorem": "THM", "lemma": "LEM", "proposition": "PROP",
              "corollary": "COR", "claim": "CLAIM", "remark": "REM", "example": "EX",
              "algorithm": "ALG", "decision": "DEC"}


def resolve(dotted: str) -> Any:
    """The object named by ``dotted`` (the longest importable module prefix, then
    attributes); ImportError or AttributeError when it does not exist."""
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


def reference_problems(items: Iterable[Item], root: Path | None = None) -> list[str]:
    """A message per ID whose kind token is wrong and per ``reference`` that does not resolve."""
    if root is not None and str(root) not in sys.path:
        sys.path.insert(0, str(root))
    problems = []
    for item in items:
        token = item.id.split("-")[1]
        if token != KIND_TOKEN[item.kind]:
            problems.append(f"{item.id}: kind {item.kind!r} wants the ID token {KIND_TOKEN[item.kind]!r}, "
                            f"not {token!r}")
        for dotted in item.reference:
            try:
                resolve(dotted)
            except (ImportError, AttributeError) as exc:
                problems.append(f"{item.id}: reference {dotted!r} does not resolve ({exc})")
    return problems
