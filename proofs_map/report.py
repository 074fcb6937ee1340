"""Compute, per catalog item, its evidence, assurance level and status."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from proofs_map.catalog import Item
from proofs_map.evidence import EVIDENCE_KINDS, Check

#: Weakest to strongest (docs/ARCHITECTURE.md, "Checks and the proofs map").
LEVELS = (*EVIDENCE_KINDS, "mechanized")
MIN_KINDS = 2


@dataclass(frozen=True)
class Entry:
    item: Item
    checks: tuple[Check, ...]
    cases: int  # conformance cases citing the item

    @property
    def evidence(self) -> list[str]:
        kinds = {c.evidence for c in self.checks}
        if self.item.mechanized:
            kinds.add("mechanized")
        return [k for k in LEVELS if k in kinds]

    @property
    def executable_kinds(self) -> list[str]:
        return [k for k in self.evidence if k != "mechanized"]

    @property
    def level(self) -> str:
        return self.evidence[-1] if self.evidence else "none"

    @property
    def problems(self) -> list[str]:
        """Why the item fails ``--check`` (empty when it passes)."""
        item, found = self.item, list[str]()
        if not item.theorem_like:
            return found
        if not self.checks:
            return [f"{item.id}: {item.kind} without any executable check"]
        covered = {c.part for c in self.checks}
        for part in item.parts:
            if part not in covered:
                found.append(f"{item.id}: no check for part {part!r}")
        if len(self.executable_kinds) < MIN_KINDS and not item.single_evidence:
            found.append(
                f"{item.id}: only {self.executable_kinds} evidence; needs {MIN_KINDS} kinds "
                "or a `single_evidence` reason in the catalog"
            )
        return found

    @property
    def status(self) -> str:
        if not self.item.theorem_like:
            return "checked" if self.checks else "defined"
        if self.problems:
            return "missing-evidence"
        return "violated-by-design" if self.item.expect == "refuted" else "evidenced"

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.item.id,
            "kind": self.item.kind,
            "title": self.item.title,
            "section": self.item.section,
            "expect": self.item.expect,
            "evidence": self.evidence,
            "level": self.level,
            "status": self.status,
            "checks": [
                {"location": c.location, "evidence": c.evidence, "part": c.part}
                for c in self.checks
            ],
            "mechanized": [m.__dict__ for m in self.item.mechanized],
            "conformance_cases": self.cases,
            "problems": self.problems,
        }


def _cited_ids(node: Any) -> Iterable[str]:
    if isinstance(node, dict):
        cites = node.get("cites")
        if isinstance(cites, list):
            yield from (c for c in cites if isinstance(c, str))
        for v in node.values():
            yield from _cited_ids(v)
    elif isinstance(node, list):
        for v in node:
            yield from _cited_ids(v)


def case_citations(root: Path) -> dict[str, int]:
    """How many conformance case files cite each ID (``cites`` lists in case JSON)."""
    counts: dict[str, int] = {}
    cases = root / "conformance" / "cases"
    for path in sorted(cases.rglob("*.json")) if cases.is_dir() else []:
        for spec_id in set(_cited_ids(json.loads(path.read_text(encoding="utf-8")))):
            counts[spec_id] = counts.get(spec_id, 0) + 1
    return counts


#: The test folder of each paper: a check there cites only that paper's catalog.
PAPER_FOLDERS = {"skip": "skip.toml", "stream": "stream.toml", "fixpoint": "fixpoint.toml",
                 "differential": "differential.toml"}


def area_errors(items: dict[str, Item], checks: list[Check]) -> list[str]:
    """Checks citing items of another paper's area: under ``tests/<paper>/`` an ID of
    another catalog; elsewhere one check (test) citing the catalogs of two papers. A
    check is evidence for what it checks, and one check rarely checks two papers."""
    sources: dict[str, set[str]] = {}
    for c in checks:
        if c.spec_id in items:
            sources.setdefault(c.location, set()).add(items[c.spec_id].source)
    errors = []
    for location, cited in sorted(sources.items()):
        parts = location.split("::")[0].split("/")
        own = PAPER_FOLDERS.get(parts[1]) if len(parts) > 2 and parts[0] == "tests" else None
        if own is not None and cited - {own}:
            errors.append(f"{location}: cites items of another paper's area ({', '.join(sorted(cited - {own}))})")
        elif own is None and len(cited) > 1:
            errors.append(f"{location}: cites items of {len(cited)} papers' areas ({', '.join(sorted(cited))})")
    return errors


def build_map(
    items: dict[str, Item], checks: list[Check], citations: dict[str, int]
) -> tuple[list[Entry], list[str]]:
    """Entries in catalog order, and the errors: checks or cases citing unknown IDs."""
    errors = [f"{c.location}: cites unknown ID {c.spec_id}" for c in checks if c.spec_id not in items]
    errors += [f"conformance cases cite unknown ID {i}" for i in sorted(citations) if i not in items]
    errors += area_errors(items, checks)
    by_id: dict[str, list[Check]] = {}
    for c in checks:
        by_id.setdefault(c.spec_id, []).append(c)
    entries = [
        Entry(item, tuple(by_id.get(item.id, ())), citations.get(item.id, 0))
        for item in items.values()
    ]
    return entries, errors


def render_markdown(entries: list[Entry]) -> str:
    lines = ["# Proofs map", ""]
    by_source: dict[str, list[Entry]] = {}
    for e in entries:
        by_source.setdefault(e.item.source, []).append(e)
    for source, group in by_source.items():
        lines += [f"## {source}", "", "| ID | kind | title | evidence | level | status | checks | cases |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- |"]
        for e in group:
            lines.append(
                f"| {e.item.id} | {e.item.kind} | {e.item.title} | {', '.join(e.evidence) or '-'} "
                f"| {e.level} | {e.status} | {len(e.checks)} | {e.cases} |"
            )
        lines.append("")
    refuted = [e for e in entries if e.status == "violated-by-design"]
    if refuted:
        lines += ["## Violated by design", ""]
        lines += [f"- **{e.item.id}** ({e.item.title}): {e.item.statement.splitlines()[0]}" for e in refuted]
        lines.append("")
    lines += [
        "Evidence levels, weakest to strongest: " + " < ".join(LEVELS) + ". "
        "`symbolic` means CrossHair found no counterexample within its bounds: not a proof.",
    ]
    return "\n".join(lines) + "\n"
