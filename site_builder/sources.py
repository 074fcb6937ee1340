"""What the site shows, read from the repository: catalog entries with their checks,
the case files, the released engines' results; and the small selection (``--small``)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proofs_map.catalog import load_catalog
from proofs_map.evidence import collect_checks
from proofs_map.report import Entry, build_map, case_citations

#: items the small site always holds (the browser test's path starts at SKIP-THM-2)
SMALL_ITEMS = ("SKIP-THM-2",)
SMALL_PER_GROUP = 3
FAILING = ("fail", "errored", "xfail", "xpass")


@dataclass(frozen=True)
class CaseFile:
    path: str  # relative to the repository root
    raw: dict[str, Any]

    @property
    def id(self) -> str:
        return str(self.raw["id"])

    @property
    def area(self) -> str:
        return str(self.raw["area"])

    @property
    def slug(self) -> str:
        return self.id.split(".")[1]

    @property
    def cites(self) -> list[str]:
        return [str(c) for c in self.raw.get("cites", [])]


@dataclass(frozen=True)
class Sources:
    entries: list[Entry]
    cases: list[CaseFile]
    engines: list[dict[str, Any]]  # engines/results.json's entries
    results_meta: dict[str, str] = field(default_factory=dict)  # generated, provenance

    def result(self, engine: dict[str, Any], case_id: str) -> dict[str, Any] | None:
        return next((r for r in engine.get("results", []) if r["id"] == case_id), None)

    def cases_citing(self, spec_id: str) -> list[CaseFile]:
        return [c for c in self.cases if spec_id in c.cites]


def failing(result: dict[str, Any] | None) -> bool:
    return result is not None and (result["status"] in FAILING or result.get("cost") == "fail")


def read_cases(root: Path) -> list[CaseFile]:
    cases = [CaseFile(p.relative_to(root).as_posix(), json.loads(p.read_text(encoding="utf-8")))
             for p in sorted((root / "conformance" / "cases").rglob("*.json"))]
    cases.sort(key=lambda c: c.id)
    slugs = [(c.area, c.slug) for c in cases]
    duplicates = sorted({s for s in slugs if slugs.count(s) > 1})
    if duplicates:
        raise ValueError(f"two cases share an area and a slug (their page): {duplicates}")
    return cases


def read(root: Path) -> Sources:
    entries, errors = build_map(load_catalog(root / "spec"), collect_checks(root), case_citations(root))
    if errors:
        raise ValueError("the proofs map has errors (python -m proofs_map --check): " + "; ".join(errors))
    path = root / "engines" / "results.json"
    data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {"engines": []}
    meta = {k: str(data.get(k, "")) for k in ("generated", "provenance")}
    return Sources(entries, read_cases(root), list(data["engines"]), meta)


def _case_with_failure(found: Sources, spec_id: str) -> CaseFile | None:
    """A case citing ``spec_id`` with a failing engine cell, preferring one whose first
    differing observation is recorded."""
    citing = found.cases_citing(spec_id)

    def score(case: CaseFile) -> int:
        results = [found.result(e, case.id) for e in found.engines]
        return max([2 if failing(r) and r is not None and "step" in r else 1 if failing(r) else 0
                    for r in results] or [0])

    best = max(citing, key=score, default=None)
    return best if best is not None and score(best) > 0 else (citing[0] if citing else None)


def small(found: Sources) -> Sources:
    """A few items per paper and cases per area, SKIP-THM-2 and a case of it that an engine fails."""
    entries: list[Entry] = []
    for entry in found.entries:
        same = [e for e in entries if e.item.source == entry.item.source]
        if len(same) < SMALL_PER_GROUP or entry.item.id in SMALL_ITEMS:
            entries.append(entry)
    cases: list[CaseFile] = []
    for case in found.cases:
        if sum(c.area == case.area for c in cases) < SMALL_PER_GROUP:
            cases.append(case)
    for spec_id in SMALL_ITEMS:
        extra = _case_with_failure(found, spec_id)
        if extra is not None and extra not in cases:
            cases.append(extra)
    ids = {c.id for c in cases}
    engines = [{**e, "results": [r for r in e.get("results", []) if r["id"] in ids]} for e in found.engines]
    return Sources(entries, sorted(cases, key=lambda c: c.id), engines, found.results_meta)
