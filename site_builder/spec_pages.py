"""The spec: one page per paper (catalog file), one section per item, anchored by its ID."""

from __future__ import annotations

from pathlib import Path

from proofs_map.report import Entry
from site_builder.code_refs import locate
from site_builder.markdown import badge, cell, escape, literal, quote, table
from site_builder.paths import RepoLinks, case_page, paper_page, relative
from site_builder.sources import Sources

#: the title of each catalog file's page
PAPERS = {"skip.toml": "Skip's reactive reduce", "stream.toml": "DBSP: streams and Z-sets",
          "fixpoint.toml": "Incremental fixpoint computation", "differential.toml": "Differential dataflow"}


def paper_title(source: str) -> str:
    return PAPERS.get(source, Path(source).stem)


def badges(entry: Entry) -> str:
    kinds = entry.evidence or ["none"]
    return " ".join([*(badge(k, k) for k in kinds), badge(entry.status, "status")])


def _references(entry: Entry, page: str, root: Path, repo: RepoLinks) -> list[str]:
    lines = []
    for dotted in entry.item.reference:
        where = locate(dotted, root)
        if where is None:
            lines.append(f"- `{dotted}`")
            continue
        path, line = where
        at = f"{path}:{line}" if line else path
        lines.append(f'- `{dotted}`: <a class="repo" href="{escape(repo.link(page, path, line))}">{escape(at)}</a>')
    return lines


def item_section(entry: Entry, found: Sources, page: str, root: Path, repo: RepoLinks) -> list[str]:
    item = entry.item
    lines = [f"## {item.id}: {literal(item.title)} {{ #{item.id} }}", "",
             f"{badges(entry)}", "",
             f"**{item.kind}**" + (f" {item.number}" if item.number else "") + f", section {item.section}"
             + (", refuted by design" if item.expect == "refuted" else ""), "", *quote(literal(item.statement))]
    if item.hypotheses:
        lines += ["Hypotheses:", "", *(f"- {literal(h)}" for h in item.hypotheses), ""]
    if item.notes:
        lines += ["**Rationale**" if item.kind == "decision" else "**Notes**", "", literal(item.notes), ""]
    if item.single_evidence:
        lines += [f"One kind of evidence suffices: {literal(item.single_evidence)}", ""]
    refs = _references(entry, page, root, repo)
    if refs:
        lines += ["**Reference code**", "", *refs, ""]
    if item.mechanized:
        lines += ["**Mechanized**", "", *(f"- {m.repo}: `{m.file}`, `{m.theorem}`" for m in item.mechanized), ""]
    rows = [[f"`{c.location}`", c.evidence, c.part or ""] for c in entry.checks]
    lines += ["**Checks citing it**", "", *(table(["test", "evidence", "part"], rows) or ["None.", ""])]
    cases = found.cases_citing(item.id)
    links = [f"[{c.id}]({relative(page, case_page(c.area, c.slug))})" for c in cases]
    lines += ["**Cases citing it**", "", *([", ".join(links)] if links else ["None in this build."]), ""]
    return lines


def paper(source: str, entries: list[Entry], found: Sources, root: Path, repo: RepoLinks) -> str:
    page = paper_page(source)
    lines = [f"# {paper_title(source)}", "",
             f"The items of the catalog `spec/{source}`: each section's anchor is the item's ID.", ""]
    lines += table(["ID", "kind", "title", "evidence"],
                   [[f"[{e.item.id}](#{e.item.id})", e.item.kind, cell(literal(e.item.title)), ", ".join(e.evidence) or "-"]
                    for e in entries])
    for entry in entries:
        lines += item_section(entry, found, page, root, repo)
    return "\n".join(lines)


def pages(found: Sources, root: Path, repo: RepoLinks) -> dict[str, str]:
    by_source: dict[str, list[Entry]] = {}
    for e in found.entries:
        by_source.setdefault(e.item.source, []).append(e)
    out = {paper_page(s): paper(s, es, found, root, repo) for s, es in by_source.items()}
    rows = [[f"[{paper_title(s)}]({relative('spec/index.md', paper_page(s))})", f"`spec/{s}`", str(len(es))]
            for s, es in by_source.items()]
    out["spec/index.md"] = "\n".join(["# The spec", "", "One page per paper; every item is anchored by its ID "
                                      "(`spec/skip.html#SKIP-THM-2`).", "",
                                      *table(["paper", "catalog", "items"], rows)])
    return out
