"""``python -m proofs_map [--check] [--json] [--paper SKIP]``: print the proofs map."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from proofs_map.catalog import CatalogError, load_catalog, spec_dir
from proofs_map.evidence import MarkerError, collect_checks
from proofs_map.references import reference_problems
from proofs_map.report import build_map, case_citations, render_markdown


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="proofs_map", description=__doc__)
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when a theorem-like item lacks evidence, a check cites an unknown ID, "
                             "an ID's kind token is wrong or a reference path does not resolve")
    parser.add_argument("--json", action="store_true", help="print the map as a JSON array")
    parser.add_argument("--paper", help="only items whose ID starts with this prefix (e.g. SKIP)")
    parser.add_argument("--root", type=Path, default=spec_dir().parent, help="project root")
    args = parser.parse_args(argv)
    try:
        items = load_catalog(args.root / "spec")
        checks = collect_checks(args.root)
    except (CatalogError, MarkerError) as exc:
        print(f"proofs_map: {exc}", file=sys.stderr)
        return 2
    entries, errors = build_map(items, checks, case_citations(args.root))
    if args.paper:
        entries = [e for e in entries if e.item.id.startswith(args.paper.upper() + "-")]
    problems = errors + [p for e in entries for p in e.problems]
    if args.check:  # IDs carry their kind; every reference path resolves (all papers)
        problems += reference_problems([e.item for e in entries], args.root)
    if args.json:
        print(json.dumps([e.as_json() for e in entries], indent=2, ensure_ascii=False))
    elif not args.check:
        print(render_markdown(entries), end="")
    if args.check:
        for p in problems:
            print(f"proofs_map: {p}", file=sys.stderr)
        theorem_like = [e for e in entries if e.item.theorem_like]
        print(
            f"proofs_map: {len(entries)} items, {len(theorem_like)} theorem-like, "
            f"{len(checks)} check citations, {len(problems)} problem(s)",
            file=sys.stderr,
        )
        return 1 if problems else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
