"""Load the case files shipped in ``conformance/cases/`` (or another folder), validated.

Every file is checked against ``case.schema.json`` and its ID against its
content hash, so a hand edit that changes what a case checks without
re-stamping its ID (``incspec generate-cases --stamp``) is caught.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from conformance.cases_model import Case
from conformance.schema import SchemaError, validate_case


class CaseFileError(ValueError):
    """A case file is not valid JSON, does not match the schema, or has a stale ID."""


def cases_root() -> Path:
    """The folder of the shipped case files (inside the installed package)."""
    return Path(str(resources.files("conformance").joinpath("cases")))


def case_files(root: Path | None = None) -> list[Path]:
    base = root or cases_root()
    return sorted(base.rglob("*.json"))


#: The cases read so far, by their file's text. Checking a file against the schema and its ID
#: against its content costs about 5 ms; a test session loads the shipped cases a dozen times
#: (11 test modules at collection, then tests and the conform command), in each of its
#: processes: 2,057 checks, about half of collecting the suite. What a case file says depends
#: on its text alone (the schema and the vocabulary are the package's, fixed in a process),
#: and a :class:`Case` is immutable, so one reading serves every later file of the same text.
#: A file that fails is not kept: it is checked again, and its error names its own path.
_READ: dict[str, Case] = {}


def read_case(path: Path) -> Case:
    text = path.read_text(encoding="utf-8")
    known = _READ.get(text)
    if known is not None:
        return known
    case = _checked_case(path, text)
    _READ[text] = case
    return case


def _checked_case(path: Path, text: str) -> Case:
    try:
        raw: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CaseFileError(f"{path}: not JSON: {exc}") from exc
    restamp = f"stamp it with: incspec generate-cases --stamp --root {path.parent}"
    try:
        validate_case(raw, str(path))
    except SchemaError as exc:
        hint = f"; {restamp}" if isinstance(raw, dict) and "id" not in raw else ""
        raise CaseFileError(f"{exc}{hint}") from exc
    case = Case.from_json(raw)
    expected = f"{case.area}.{case.slug}.{case.expected_hash()}"
    if case.id != expected:
        raise CaseFileError(f"{path}: ID {case.id} does not match its content (expected {expected}); "
                            f"re-{restamp}")
    return case


def load_cases(root: Path | None = None, paths: Iterable[Path] | None = None) -> list[Case]:
    """Every case under ``root`` (default: the shipped cases), sorted by ID; IDs must be unique."""
    cases = [read_case(p) for p in (paths if paths is not None else case_files(root))]
    seen: dict[str, int] = {}
    for c in cases:
        seen[c.id] = seen.get(c.id, 0) + 1
    duplicates = sorted(i for i, n in seen.items() if n > 1)
    if duplicates:
        raise CaseFileError(f"duplicate case IDs: {duplicates}")
    return sorted(cases, key=lambda c: c.id)


@dataclass(frozen=True)
class Filter:
    """Which cases to run: areas, ID globs, required features, levels (empty = all)."""

    areas: Sequence[str] = ()
    ids: Sequence[str] = ()
    features: Sequence[str] = ()
    levels: Sequence[str] = ()

    def accepts(self, case: Case) -> bool:
        return (
            (not self.areas or case.area in self.areas)
            and (not self.ids or any(fnmatch.fnmatchcase(case.id, p) or case.id.startswith(p)
                                     for p in self.ids))
            and (not self.features or any(f in case.features for f in self.features))
            and (not self.levels or case.level in self.levels)
        )


def select(cases: Iterable[Case], flt: Filter) -> list[Case]:
    return [c for c in cases if flt.accepts(c)]
