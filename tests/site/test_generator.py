"""The site generator without a browser: its Markdown pages (every catalog item anchored by
its ID, every case's steps as a table), a link checker that finds nothing broken in them and
can fail, and the engine results data agreeing with the results page drawn from the same run."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engines import results_page
from proofs_map.catalog import load_catalog
from site_builder import linkcheck
from site_builder.build import Options, write_markdown
from site_builder.markdown import literal
from site_builder.paths import ROOT, RepoLinks
from site_builder.sources import Sources


@pytest.fixture(scope="module")
def full(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Sources]:
    docs = tmp_path_factory.mktemp("full") / "docs"
    docs.mkdir()
    return docs, write_markdown(Options(out=docs.parent / "site"), docs)


@pytest.fixture(scope="module")
def small_docs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Sources]:
    docs = tmp_path_factory.mktemp("small") / "docs"
    docs.mkdir()
    return docs, write_markdown(Options(out=docs.parent / "site", small=True), docs)


def test_every_catalog_item_gets_an_anchor_on_its_papers_page(full: tuple[Path, Sources]) -> None:
    docs, _ = full
    catalog = load_catalog()
    missing = [i.id for i in catalog.values()
               if f"{{ #{i.id} }}" not in (docs / "spec" / f"{Path(i.source).stem}.md").read_text(encoding="utf-8")]
    assert missing == []


def test_every_case_has_a_page_listing_its_steps(full: tuple[Path, Sources]) -> None:
    docs, found = full
    assert len(found.cases) == len(list((ROOT / "conformance" / "cases").rglob("*.json")))
    for case in found.cases:
        page = (docs / "suite" / case.area / f"{case.slug}.md").read_text(encoding="utf-8")
        rows = re.findall(r"^\| (\d+) \| `([^`]+)` \|", page, re.MULTILINE)
        assert [(int(n), op) for n, op in rows[:len(case.raw["steps"])]] == \
            [(i, s["op"]) for i, s in enumerate(case.raw["steps"])], case.id


def test_no_broken_link_in_the_full_or_the_small_site(full: tuple[Path, Sources],
                                                      small_docs: tuple[Path, Sources]) -> None:
    assert linkcheck.broken(full[0], ROOT) == []
    assert linkcheck.broken(small_docs[0], ROOT) == []


def test_the_small_site_holds_skip_thm_2_a_case_of_it_and_a_failing_cell(small_docs: tuple[Path, Sources]) -> None:
    docs, found = small_docs
    assert "{ #SKIP-THM-2 }" in (docs / "spec" / "skip.md").read_text(encoding="utf-8")
    citing = found.cases_citing("SKIP-THM-2")
    assert citing
    pages = [(docs / "suite" / c.area / f"{c.slug}.md").read_text(encoding="utf-8") for c in citing]
    assert any(re.search(r"\[xfail\]\(\.\./\.\./engines/[\w-]+\.md#reduce-", p) for p in pages)
    assert len(found.cases) < 20 and len(found.entries) < 20


def test_the_link_checker_can_fail(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "spec").mkdir(parents=True)
    (docs / "spec" / "a.md").write_text("## A { #A-1 }\n\n## Plain heading\n", encoding="utf-8")
    (docs / "index.md").write_text(
        "[ok](spec/a.md#A-1) [ok](spec/a.md#plain-heading) [gone](spec/b.md) [anchor](spec/a.md#A-2)\n"
        '<a href="spec/a.html#nope">x</a> [repo](../README.md) [no file](../NOPE.md) \\[not\\](a link)\n'
        "`[code](x.md)`\n", encoding="utf-8")
    assert linkcheck.broken(docs, ROOT) == [
        "index.md: spec/b.md: no such page", "index.md: spec/a.md#A-2: no anchor #A-2",
        "index.md: ../NOPE.md: no such file in the repository", "index.md: spec/a.html#nope: no anchor #nope"]


def test_statements_are_shown_literally_and_repository_links_are_relative_or_based() -> None:
    assert literal("D[[Γ]](α) and a_b * c `x_[y]`") == "D\\[\\[Γ\\]\\](α) and a\\_b \\* c `x_[y]`"
    assert RepoLinks().link("spec/skip.md", "reference/x.py", 3) == "../../reference/x.py#L3"
    assert RepoLinks("https://example.org/r/blob/main").link("a/b.md", "x.py") == "https://example.org/r/blob/main/x.py"


def test_the_engine_results_data_agrees_with_the_results_page() -> None:
    """``engines/results.json`` and ``docs/ENGINES.md`` come from one run: each engine's counts
    per area are the page's table rows."""
    data = json.loads((ROOT / "engines" / "results.json").read_text(encoding="utf-8"))
    page = (ROOT / "docs" / "ENGINES.md").read_text(encoding="utf-8")
    assert page == results_page.page(data, results_page.skeletons())  # from the data, and the skeletons' engine.json
    sections = {s.splitlines()[0].strip(): s for s in re.split(r"^## ", page, flags=re.MULTILINE)[1:]}
    del sections["Engines not run here"]  # the skeletons, never run: no results
    assert [e["name"] for e in data["engines"]] == list(sections)
    for engine in data["engines"]:
        for area, row in engine["summary"].items():
            counts = " | ".join(str(row[c]) for c in row)
            assert f"| {area} | {counts} |" in sections[engine["name"]], (engine["name"], area)
        statuses = {r["status"] for r in engine["results"]}
        assert statuses <= {"pass", "fail", "errored", "skipped", "unsupported", "xfail", "xpass"}
