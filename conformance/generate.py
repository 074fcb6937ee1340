"""``incspec generate-cases``: emit the generated case files from ``reference/``.

Generated cases live in ``conformance/cases/<area>/generated/`` and are
committed; this command rewrites them identically (the generators are seeded
and the expectations come from the oracle), so ``--check`` fails when the
committed files drift from the spec. ``--stamp`` re-computes the content-hash
part of the IDs of hand-written case files after an edit, and lays them out as
every case file is written (:func:`conformance.cases_model.case_file_text`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from conformance.cases_model import Case, case_file_text
from conformance.generators import GENERATORS
from conformance.loader import cases_root

GENERATED_DIR = "generated"


def generated_cases(areas: Iterable[str]) -> dict[str, list[Case]]:
    return {area: list(GENERATORS[area]()) for area in areas}


def target_files(root: Path, by_area: dict[str, list[Case]]) -> dict[Path, str]:
    files: dict[Path, str] = {}
    for area, cases in by_area.items():
        for case in cases:
            path = root / area / GENERATED_DIR / f"{case.slug}.json"
            if path in files:
                raise ValueError(f"two generated cases share the slug {case.slug!r}")
            files[path] = case_file_text(case.to_json())
    return files


def stamp(root: Path) -> list[Path]:
    """Stamp the IDs of hand-written case files that have none or a stale content hash
    (the ID is ``area.file-name.hash``; it goes first in the file), and lay out every
    hand-written file as :func:`~conformance.cases_model.case_file_text` writes it."""
    changed = []
    for path in sorted(root.rglob("*.json")):
        if GENERATED_DIR in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        raw: dict[str, Any] = json.loads(text)
        case = Case.from_json({"id": "", **raw})  # a new hand-written case may have no ID yet
        new_id = f"{case.area}.{path.stem}.{case.expected_hash()}"
        if raw.get("id") != new_id:
            raw = {"id": new_id, **{k: v for k, v in raw.items() if k != "id"}}
        if case_file_text(raw) != text:
            path.write_text(case_file_text(raw), encoding="utf-8")
            changed.append(path)
    return changed


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="incspec generate-cases", description=__doc__)
    p.add_argument("--area", action="append", choices=sorted(GENERATORS), default=[])
    p.add_argument("--root", type=Path, default=None, help="the cases folder (default: the package's)")
    p.add_argument("--check", action="store_true", help="fail if committed files differ from a regeneration")
    p.add_argument("--stamp", action="store_true", help="re-stamp IDs of hand-written cases and lay them out")
    args = p.parse_args(argv)
    root = args.root or cases_root()
    if args.stamp:
        for path in stamp(root):
            print(f"stamped {path}")
        return 0
    areas = args.area or sorted(GENERATORS)
    files = target_files(root, generated_cases(areas))
    existing = {p for a in areas for p in (root / a / GENERATED_DIR).glob("*.json")}
    if args.check:
        stale = sorted(str(p) for p, text in files.items()
                       if not p.is_file() or p.read_text(encoding="utf-8") != text)
        extra = sorted(str(p) for p in existing - files.keys())
        for line in stale:
            print(f"differs from a regeneration: {line}", file=sys.stderr)
        for line in extra:
            print(f"not produced by any generator: {line}", file=sys.stderr)
        return 1 if stale or extra else 0
    for path in existing - files.keys():
        path.unlink()
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    print(f"wrote {len(files)} generated cases under {root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
