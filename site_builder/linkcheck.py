"""A broken-link checker over the generated Markdown: every relative link names a page of
the site (and an anchor of it) or a file of the repository (a link leaving the site)."""

from __future__ import annotations

import posixpath
import re
from functools import cache
from pathlib import Path

from site_builder.slugs import github

FENCE = re.compile(r"^ {0,3}(```|~~~).*?^ {0,3}\1[^\n]*$", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"(`+).+?\1", re.DOTALL)
MD_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
HTML_LINK = re.compile(r"<(?:a|img)\b[^>]*?\b(?:href|src)=\"([^\"]*)\"", re.IGNORECASE)
HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)\s*$", re.MULTILINE)
ATTR_ID = re.compile(r"\{\s*#([^\s}]+)\s*\}\s*$")
HTML_ID = re.compile(r"\bid=\"([^\"]+)\"")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def links(text: str) -> list[str]:
    prose = re.sub(r"\\.", "", FENCE.sub("", text))  # an escaped bracket opens no link
    return [*MD_LINK.findall(INLINE_CODE.sub("", prose)), *HTML_LINK.findall(prose)]


@cache
def anchors(path: Path) -> frozenset[str]:
    """A page's anchors: heading ids (``{ #id }`` or the heading's slug) and HTML ids."""
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    found = set(HTML_ID.findall(text))
    for heading in HEADING.findall(text):
        explicit = ATTR_ID.search(heading)
        if explicit:
            found.add(explicit.group(1))
        else:
            plain = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
            found.add(github(re.sub(r"<[^>]+>", "", plain).replace("`", "")))
    return frozenset(found)


def broken(docs: Path, root: Path) -> list[str]:
    """Broken links of the Markdown pages under ``docs`` (the site root, built into ``root/site``)."""
    problems = []
    for page in sorted(docs.rglob("*.md")):
        name = page.relative_to(docs).as_posix()
        for target in links(page.read_text(encoding="utf-8")):
            if not target or SCHEME.match(target) or target.startswith("//"):
                continue
            path, _, anchor = target.partition("#")
            resolved = posixpath.normpath(posixpath.join(posixpath.dirname(name), path)) if path else name
            if resolved.startswith("../"):  # a file of the repository
                if not (root / resolved[3:]).exists():
                    problems.append(f"{name}: {target}: no such file in the repository")
                continue
            file = docs / re.sub(r"\.html$", ".md", resolved)
            if not file.exists():
                problems.append(f"{name}: {target}: no such page")
            elif anchor and file.suffix == ".md" and anchor not in anchors(file):
                problems.append(f"{name}: {target}: no anchor #{anchor}")
    return problems
