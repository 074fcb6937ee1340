"""The layout the README and docs/ARCHITECTURE.md draw is the tree: every top-level
folder of the repository is listed, and every folder listed exists."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def tracked_folders() -> set[str]:
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return {f.split("/")[0] for f in files.splitlines() if "/" in f and not f.startswith(".")}


def drawn_folders(doc: str) -> set[str]:
    """The top-level folders in the document's first fenced block after a line starting 'Layout'
    or '## Layout': names ending in '/' at the start of a line (or in its comma-separated list)."""
    text = (ROOT / doc).read_text(encoding="utf-8")
    start = re.search(r"^(## )?Layout.*$", text, re.MULTILINE)
    assert start, doc
    block = text[start.end():].split("```", 2)[1]
    found: set[str] = set()
    for line in block.splitlines():
        head = re.match(r"^((?:[a-z_]+/(?:, )?)+)", line)
        if head:
            found |= {name.rstrip("/") for name in head.group(1).split(", ") if name}
    return found


@pytest.mark.parametrize("doc", ["README.md", "docs/ARCHITECTURE.md"])
def test_the_layout_drawn_is_the_tree(doc: str) -> None:
    assert drawn_folders(doc) == tracked_folders()
