"""Write the site's Markdown pages into a build folder and run MkDocs on them."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from site_builder import engine_pages, guides, mkdocs_site, spec_pages, suite_pages
from site_builder.paths import ROOT, RepoLinks, engine_page, paper_page
from site_builder.sources import Sources, read, small


@dataclass(frozen=True)
class Options:
    out: Path
    small: bool = False
    repo_url: str = ""  # a base URL for links to the repository's files; empty: relative links
    root: Path = ROOT


def home(found: Sources, small_build: bool) -> str:
    papers = sorted({e.item.source for e in found.entries})
    lines = ["# incspec", "",
             "An executable reference specification of four papers on incremental computation, its "
             "conformance suite, and released engines run under it. Every page here is generated from "
             "the repository by `incspec site build`; none is edited by hand.", "",
             *(["This is the small build (`--small`): a few items and cases per area.", ""] if small_build else []),
             "- [The spec](spec/index.md): one page per paper, one section per catalog item "
             f"({len(found.entries)} items), e.g. [SKIP-THM-2](spec/skip.md#SKIP-THM-2)."
             if any(e.item.id == "SKIP-THM-2" for e in found.entries) else
             f"- [The spec](spec/index.md): {len(found.entries)} items.",
             *(f"    - [{spec_pages.paper_title(p)}]({paper_page(p)})" for p in papers),
             f"- [The suite](suite/index.md): {len(found.cases)} cases, each with its steps and expectations.",
             f"- [The engines](engines/index.md): a matrix of {len(found.engines)} released engines × the cases.",
             "- [Performance](performance.md): the benchmarks' figures, commands and machines.",
             "- Guides: [implementers](guides/implementers.md), [checking a reducer](guides/check-reducer.md), "
             "[the Spark implementation](guides/spark.md), [the papers](guides/papers.md), "
             "[architecture](guides/ARCHITECTURE.md), [the engines' results page](guides/ENGINES.md).", ""]
    return "\n".join(lines)


def nav(found: Sources) -> list[object]:
    papers = sorted({e.item.source for e in found.entries})
    return [{"Home": "index.md"},
            {"Spec": ["spec/index.md", *({spec_pages.paper_title(p): paper_page(p)} for p in papers)]},
            {"Suite": "suite/index.md"},
            {"Engines": ["engines/index.md", *({e["name"]: engine_page(e["name"])} for e in found.engines)]},
            {"Performance": "performance.md"},
            {"Guides": [{"Implementers": "guides/implementers.md"}, {"Checking a reducer": "guides/check-reducer.md"},
                        {"Spark": "guides/spark.md"}, {"Papers": "guides/papers.md"},
                        {"Architecture": "guides/ARCHITECTURE.md"}, {"Engines (results page)": "guides/ENGINES.md"}]}]


def write_markdown(options: Options, docs: Path) -> Sources:
    """Every page of the site as Markdown under ``docs`` (with the CSS and the images)."""
    found = read(options.root)
    found = small(found) if options.small else found
    repo = RepoLinks(options.repo_url)
    pages = {"index.md": home(found, options.small)}
    pages |= spec_pages.pages(found, options.root, repo)
    pages |= suite_pages.pages(found, options.root, repo)
    pages |= engine_pages.pages(found, options.root, repo)
    guide_pages, files = guides.pages(options.root, repo)
    pages |= guide_pages
    for name, text in pages.items():
        (docs / name).parent.mkdir(parents=True, exist_ok=True)
        (docs / name).write_text(text.rstrip() + "\n", encoding="utf-8")
    for name, source in files.items():
        (docs / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, docs / name)
    (docs / "assets").mkdir(exist_ok=True)
    (docs / "assets" / "site.css").write_text(mkdocs_site.CSS.lstrip(), encoding="utf-8")
    return found


def build(options: Options, work: Path) -> None:
    """Markdown into ``work/docs``, then MkDocs into ``options.out``."""
    docs = work / "docs"
    if docs.exists():
        shutil.rmtree(docs)
    docs.mkdir(parents=True)
    found = write_markdown(options, docs)
    config = work / "mkdocs.yml"
    config.write_text(mkdocs_site.yaml_text(mkdocs_site.config(nav(found), docs, options.out.resolve())),
                      encoding="utf-8")
    mkdocs_site.build(config)
