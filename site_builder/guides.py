"""The guides of ``docs/`` and the performance page, their links rewritten for the site:
a guide to a guide stays a page link, an image of ``benchmarks/results/`` is copied into
the site, any other file of the repository becomes a repository link."""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from site_builder.paths import RepoLinks

#: docs/<name> -> its page on the site
GUIDES = {"implementers.md": "guides/implementers.md", "check-reducer.md": "guides/check-reducer.md",
          "spark.md": "guides/spark.md", "papers.md": "guides/papers.md",
          "ARCHITECTURE.md": "guides/ARCHITECTURE.md", "ENGINES.md": "guides/ENGINES.md",
          "performance.md": "performance.md"}
IMAGES = "benchmarks/results/"
FENCE = re.compile(r"^ {0,3}(```|~~~).*?^ {0,3}\1[^\n]*$", re.MULTILINE | re.DOTALL)
LINK = re.compile(r"(!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\()\s*<?([^)\s>]*)>?((?:\s+\"[^\"]*\")?\s*\))")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def image_page(path: str) -> str:
    """Where an image of ``benchmarks/results/`` is copied on the site."""
    return "assets/benchmarks/" + path[len(IMAGES):]


def rewrite_target(target: str, page: str, repo: RepoLinks, images: set[str]) -> str:
    if not target or target.startswith("#") or SCHEME.match(target) or target.startswith("//"):
        return target
    path, _, anchor = target.partition("#")
    in_repo = posixpath.normpath(posixpath.join("docs", path))
    if in_repo.startswith("docs/") and in_repo[5:] in GUIDES:
        new = posixpath.relpath(GUIDES[in_repo[5:]], posixpath.dirname(page) or ".")
    elif in_repo.startswith(IMAGES):
        images.add(in_repo)
        new = posixpath.relpath(image_page(in_repo), posixpath.dirname(page) or ".")
    else:
        return repo.link(page, in_repo) + (f"#{anchor}" if anchor else "")
    return new + (f"#{anchor}" if anchor else "")


def rewrite(text: str, page: str, repo: RepoLinks, images: set[str]) -> str:
    """``text`` (a file of ``docs/``) with its links rewritten for ``page``; code left alone."""
    out, last = [], 0
    for fence in [*FENCE.finditer(text), None]:
        end = fence.start() if fence else len(text)
        prose = text[last:end]
        out.append(LINK.sub(lambda m: m.group(1) + rewrite_target(m.group(2), page, repo, images) + m.group(3),
                            prose))
        if fence:
            out.append(fence.group(0))
            last = fence.end()
    return "".join(out)


def pages(root: Path, repo: RepoLinks) -> tuple[dict[str, str], dict[str, Path]]:
    """The guide pages, and the files to copy (site path -> repository file)."""
    images: set[str] = set()
    out = {page: rewrite((root / "docs" / name).read_text(encoding="utf-8"), page, repo, images)
           for name, page in GUIDES.items()}
    return out, {image_page(p): root / p for p in sorted(images)}
