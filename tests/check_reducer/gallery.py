"""The gallery's hand-written expected verdicts (examples/reducers/expected.toml)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
GALLERY = ROOT / "examples" / "reducers"
ALL_EXAMPLES: list[dict[str, Any]] = tomllib.loads((GALLERY / "expected.toml").read_text())["example"]
#: checked without CrossHair in test_gallery.py
PLAIN = [e for e in ALL_EXAMPLES if not e.get("symbolic")]
#: checked with CrossHair in test_symbolic.py (the other engines miss them)
SYMBOLIC = [e for e in ALL_EXAMPLES if e.get("symbolic")]
