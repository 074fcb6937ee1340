"""The suite: one readable page per case (its steps and expectations as a table)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from site_builder.markdown import badge, cell, code, literal, table
from site_builder.paths import RepoLinks, case_anchor, case_page, engine_page, paper_page, relative
from site_builder.sources import CaseFile, Sources, failing

AREA_PAPERS = {"reduce": "Skip's reactive reduce", "stream": "DBSP streams", "fixpoint": "incremental fixpoint",
               "zset": "differential dataflow (Z-sets)"}


def step_rows(steps: Sequence[Mapping[str, Any]]) -> list[list[str]]:
    rows = []
    for i, step in enumerate(steps):
        args = {k: v for k, v in step.items() if k not in ("op", "expect", "cost")}
        expect = step.get("expect", {})
        error = expect.get("error") if isinstance(expect, Mapping) else None
        shown = f"error **{error}**" if isinstance(error, str) else code(expect) if expect else "(none)"
        rows.append([str(i), f"`{step['op']}`", "<br>".join(f"{k}: {code(v)}" for k, v in args.items()),
                     shown, code(step["cost"]) if step.get("cost") else ""])
    return rows


def cite_links(case: CaseFile, page: str, found: Sources) -> str:
    sources = {e.item.id: e.item.source for e in found.entries}
    return ", ".join(f"[{c}]({relative(page, paper_page(sources[c]))}#{c})" if c in sources else c
                     for c in case.cites)


def engine_rows(case: CaseFile, page: str, found: Sources) -> list[list[str]]:
    rows = []
    for engine in found.engines:
        result = found.result(engine, case.id)
        if result is None:
            continue
        where = f"{relative(page, engine_page(engine['name']))}#{case_anchor(case.area, case.slug)}"
        status = f"[{result['status']}]({where})" if failing(result) else result["status"]
        rows.append([engine["name"], status, result.get("cost") or "", cell(literal(result.get("message", "")[:200]))])
    return rows


def case_text(case: CaseFile, found: Sources, repo: RepoLinks) -> str:
    raw, page = case.raw, case_page(case.area, case.slug)
    lines = [f"# {case.area} · {case.slug}", "",
             f"{badge(raw.get('level', ''), 'level')} {badge(raw.get('source', ''), 'source')}", "",
             literal(raw.get("description", "")), "",
             *table(["", ""], [["ID", f"`{case.id}`"], ["area", case.area],
                               ["level", raw.get("level", "")], ["source", raw.get("source", "")],
                               ["features", ", ".join(raw.get("features", [])) or "-"],
                               ["setup", code(raw["setup"]) if raw.get("setup") else "-"],
                               ["cites", cite_links(case, page, found) or "-"],
                               ["file", f'<a class="repo" href="{repo.link(page, case.path)}">{case.path}</a>']]),
             "## Steps", "",
             *table(["step", "operation", "arguments", "expected observation", "cost bounds"], step_rows(raw["steps"]))]
    for n, alternative in enumerate(raw.get("alternatives", []), 1):
        rows = [[str(i), code(e)] for i, e in enumerate(alternative)]
        lines += [f"## Alternative {n}", "", "Another accepted sequence of observations:", "",
                  *table(["step", "expected observation"], rows)]
    rows = engine_rows(case, page, found)
    if rows:
        lines += ["## Released engines", "",
                  f"From the [engine matrix]({relative(page, 'engines/index.md')}#{case_anchor(case.area, case.slug)}); "
                  "a failing result links to its cause and reproduction.", "",
                  *table(["engine", "status", "cost", "message"], rows)]
    return "\n".join(lines)


def pages(found: Sources, root: Path, repo: RepoLinks) -> dict[str, str]:
    out = {case_page(c.area, c.slug): case_text(c, found, repo) for c in found.cases}
    lines = ["# The suite", "", "Every case of the conformance suite, by area: its operations, what each must "
             "produce, and the catalog items it cites.", ""]
    for area in sorted({c.area for c in found.cases}):
        mine = [c for c in found.cases if c.area == area]
        lines += [f"## {area}", "", f"{len(mine)} cases ({AREA_PAPERS.get(area, area)}).", ""]
        lines += table(["case", "level", "source", "description"],
                       [[f"[{c.slug}]({relative('suite/index.md', case_page(c.area, c.slug))})",
                         c.raw.get("level", ""), c.raw.get("source", ""), cell(literal(c.raw.get("description", "")))]
                        for c in mine])
    out["suite/index.md"] = "\n".join(lines)
    return out
