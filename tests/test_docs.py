"""The documents a newcomer walks: a short README that reaches each reader's page in one
click, relative links that resolve (files, and headings for anchors), and a package
description that renders on its own on a package index (no relative links)."""

from __future__ import annotations

import re
import subprocess
import tomllib
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README_LIMIT = 200
#: the page for each reader, one click from the README
READERS_PAGES = ("docs/implementers.md", "docs/check-reducer.md", "docs/spark.md", "docs/papers.md",
                 "docs/performance.md", "docs/ARCHITECTURE.md", "docs/ENGINES.md", "CHANGELOG.md")

FENCE = re.compile(r"^ {0,3}(```|~~~).*?^ {0,3}\1[^\n]*$", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"(`+).+?\1", re.DOTALL)
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$", re.MULTILINE)
HTML_LINK = re.compile(r"<(?:a|img)\b[^>]*?\b(?:href|src)=\"([^\"]*)\"", re.IGNORECASE)
HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$", re.MULTILINE)
EXPLICIT_ANCHOR = re.compile(r"<a\b[^>]*?\b(?:name|id)=\"([^\"]+)\"", re.IGNORECASE)
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def markdown_files() -> list[str]:
    """Every Markdown file of the repository, committed or new (ignored files left out)."""
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "--", "*.md"],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return sorted({f for f in listed.splitlines() if (ROOT / f).is_file()})


def prose(text: str) -> str:
    """``text`` without fenced code blocks and inline code, where a bracket is no link."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def links(text: str) -> list[str]:
    """The targets of the links and images of a Markdown text (inline, reference, HTML)."""
    body = prose(text)
    return [*INLINE_LINK.findall(body), *REFERENCE_DEFINITION.findall(body), *HTML_LINK.findall(body)]


def slug(heading: str) -> str:
    """A heading's anchor as GitHub writes it: inline markup and punctuation dropped,
    lower case, spaces as hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text only
    text = re.sub(r"<[^>]+>", "", text).replace("`", "")
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


@cache
def anchors(path: Path) -> frozenset[str]:
    """The anchors of a Markdown file: its headings' slugs (a repeated one numbered
    ``-1``, ``-2``, ... as GitHub does) and explicit ``<a name=...>`` anchors."""
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    seen: dict[str, int] = {}
    found = set(EXPLICIT_ANCHOR.findall(text))
    for heading in HEADING.findall(text):
        base = slug(heading)
        n = seen.get(base, 0)
        found.add(base if n == 0 else f"{base}-{n}")
        seen[base] = n + 1
    return frozenset(found)


def broken_links(doc: str) -> list[str]:
    """The relative links of ``doc`` naming no file, or no heading of the file they name."""
    source = ROOT / doc
    broken = []
    for target in links(source.read_text(encoding="utf-8")):
        if not target or SCHEME.match(target) or target.startswith("//"):
            continue
        path_part, _, anchor = target.partition("#")
        resolved = (source.parent / path_part).resolve() if path_part else source
        if not resolved.exists():
            broken.append(f"{target}: no such file")
        elif anchor and resolved.suffix == ".md" and anchor.lower() not in anchors(resolved):
            broken.append(f"{target}: no heading #{anchor} in {resolved.relative_to(ROOT)}")
    return broken


def package_description() -> Path:
    """The file ``pyproject.toml`` publishes as the package's description."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    readme = project["readme"]
    return ROOT / (readme if isinstance(readme, str) else readme["file"])


def test_the_readme_is_short_and_reaches_each_readers_page_in_one_click() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= README_LIMIT
    linked = {(ROOT / t.partition("#")[0]).resolve() for t in links(readme) if not SCHEME.match(t)}
    missing = [page for page in READERS_PAGES if (ROOT / page).resolve() not in linked]
    assert not missing, f"README.md links to none of {missing}"


@pytest.mark.parametrize("doc", markdown_files())
def test_every_relative_link_resolves(doc: str) -> None:
    assert broken_links(doc) == []


def test_the_package_description_has_no_relative_links() -> None:
    """On a package index the description stands alone: a relative link or image (or a
    bare ``#anchor``) would lead nowhere there."""
    description = package_description()
    assert description.is_file(), description
    relative = [t for t in links(description.read_text(encoding="utf-8")) if not SCHEME.match(t)]
    assert relative == []


def test_the_checks_can_fail(tmp_path: Path) -> None:
    """The link reader sees inline links, images, reference definitions and HTML, not code;
    the slugs are GitHub's."""
    text = ("[a](docs/x.md#part) ![p](../p.png) `[not](code.md)`\n\n```\n[nor](block.md)\n```\n"
            "[ref]: other.md\n<img src=\"i.png\">\n[web](https://example.org)\n")
    assert sorted(links(text)) == sorted(["docs/x.md#part", "../p.png", "other.md", "i.png", "https://example.org"])
    assert slug("Checking a custom reducer: `incspec check-reducer`") == \
        "checking-a-custom-reducer-incspec-check-reducer"
    assert slug("The Spark implementation (`spark_impl/`)") == "the-spark-implementation-spark_impl"
    page = tmp_path / "page.md"
    page.write_text("# Title\n\n## Part\n\n## Part\n", encoding="utf-8")
    assert anchors(page) == {"title", "part", "part-1"}
