"""The gallery's hand-written expected verdicts (examples/reducers/expected.toml)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parents[2]
GALLERY = ROOT / "examples" / "reducers"
ALL_EXAMPLES: list[dict[str, Any]] = tomllib.loads((GALLERY / "expected.toml").read_text())["example"]
#: checked without CrossHair in test_gallery.py
PLAIN = [e for e in ALL_EXAMPLES if not e.get("symbolic")]
#: checked with CrossHair in test_symbolic.py (the other engines miss them)
SYMBOLIC = [e for e in ALL_EXAMPLES if e.get("symbolic")]

SCHEMA = json.loads((ROOT / "check_reducer" / "report.schema.json").read_text())


def valid(report: dict[str, Any]) -> dict[str, Any]:
    """``report`` after checking it against the --json format's schema."""
    jsonschema.validate(report, SCHEMA)
    return report
