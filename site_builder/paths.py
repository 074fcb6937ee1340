"""Where pages live and how one page links to another or to a file of the repository."""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def relative(from_page: str, to_page: str) -> str:
    """The relative link from the page ``from_page`` to ``to_page`` (both under the site root)."""
    return posixpath.relpath(to_page, posixpath.dirname(from_page) or ".")


def html(page: str) -> str:
    """A page's address in the built site (pages are written without directory URLs)."""
    return re.sub(r"\.md(?=$|#)", ".html", page)


def case_page(area: str, slug: str) -> str:
    return f"suite/{area}/{slug}.md"


def case_anchor(area: str, slug: str) -> str:
    """A case's anchor on the engine pages and the matrix: stable under a behaviour change."""
    return f"{area}-{slug}"


def engine_page(name: str) -> str:
    return f"engines/{name}.md"


def paper_page(source: str) -> str:
    """The page of a catalog file (``skip.toml`` -> ``spec/skip.md``)."""
    return f"spec/{Path(source).stem}.md"


class RepoLinks:
    """Links to files of the repository: ``base`` + path (and ``#L<line>``), or, without a
    base, a relative link from the page, the site being built into ``site/`` at the root."""

    def __init__(self, base: str = "") -> None:
        self.base = base if not base or base.endswith("/") else base + "/"

    def link(self, from_page: str, path: str, line: int | None = None) -> str:
        anchor = f"#L{line}" if line else ""
        if self.base:
            return f"{self.base}{path}{anchor}"
        depth = from_page.count("/")
        return "../" * (depth + 1) + path + anchor
