"""Load and validate the catalog of spec items (``spec/*.toml``)."""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

KINDS = (
    "definition", "theorem", "lemma", "proposition", "corollary", "remark",
    "example", "algorithm", "decision", "claim",
)
#: Kinds whose items must be backed by executable checks.
THEOREM_LIKE = frozenset({"theorem", "lemma", "proposition", "corollary", "claim", "decision"})
ID_PATTERN = re.compile(r"^(SKIP|STREAM|FIX|DD)-[A-Z]+(-[A-Za-z0-9.]+)+$")


class CatalogError(ValueError):
    """The catalog is malformed (a missing field, a duplicate or ill-formed ID)."""


@dataclass(frozen=True)
class Mechanized:
    repo: str
    file: str
    theorem: str


@dataclass(frozen=True)
class Item:
    id: str
    kind: str
    number: str
    title: str
    section: str
    statement: str
    source: str
    reference: tuple[str, ...] = ()
    hypotheses: tuple[str, ...] = ()
    parts: tuple[str, ...] = ()
    expect: str = "holds"
    notes: str = ""
    single_evidence: str = ""
    mechanized: tuple[Mechanized, ...] = field(default=())

    @property
    def theorem_like(self) -> bool:
        return self.kind in THEOREM_LIKE


def spec_dir() -> Path:
    """The catalog directory: ``$INCSPEC_SPEC_DIR`` or ``spec/`` next to this package."""
    env = os.environ.get("INCSPEC_SPEC_DIR")
    return Path(env) if env else Path(__file__).resolve().parent.parent / "spec"


def _item(raw: dict[str, Any], source: str) -> Item:
    missing = [k for k in ("id", "kind", "title", "section", "statement") if k not in raw]
    if missing:
        raise CatalogError(f"{source}: item {raw.get('id', '?')} lacks {missing}")
    if not ID_PATTERN.match(raw["id"]):
        raise CatalogError(f"{source}: ill-formed ID {raw['id']!r}")
    if raw["kind"] not in KINDS:
        raise CatalogError(f"{source}: {raw['id']}: unknown kind {raw['kind']!r}")
    if raw.get("expect", "holds") not in ("holds", "refuted"):
        raise CatalogError(f"{source}: {raw['id']}: expect must be 'holds' or 'refuted'")
    ref = raw.get("reference", ())
    return Item(
        id=raw["id"], kind=raw["kind"], number=str(raw.get("number", "")),
        title=raw["title"], section=str(raw["section"]), statement=raw["statement"].strip(),
        source=source,
        reference=tuple([ref] if isinstance(ref, str) else ref),
        hypotheses=tuple(raw.get("hypotheses", ())),
        parts=tuple(raw.get("parts", ())),
        expect=raw.get("expect", "holds"),
        notes=raw.get("notes", "").strip(),
        single_evidence=raw.get("single_evidence", "").strip(),
        mechanized=tuple(Mechanized(**m) for m in raw.get("mechanized", ())),
    )


def load_catalog(directory: Path | None = None) -> dict[str, Item]:
    """All items of all ``*.toml`` files under ``directory``, by ID, in file order."""
    directory = directory or spec_dir()
    items: dict[str, Item] = {}
    for path in sorted(directory.glob("*.toml")):
        with path.open("rb") as f:
            data = tomllib.load(f)
        for raw in data.get("item", []):
            item = _item(raw, path.name)
            if item.id in items:
                raise CatalogError(f"{path.name}: duplicate ID {item.id}")
            items[item.id] = item
    return items
