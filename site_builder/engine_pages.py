"""The engines: a matrix engine × case, filterable by area and level, and per engine a page
with a section per failing cell (its first differing observation, cause, reproduction)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from site_builder.markdown import code, escape, literal, table
from site_builder.paths import RepoLinks, case_anchor, case_page, engine_page, html, relative
from site_builder.sources import CaseFile, Sources, failing

FILTER_SCRIPT = """<script>
(function () {
  var area = document.getElementById("filter-area"), level = document.getElementById("filter-level");
  function apply() {
    document.querySelectorAll("#engine-matrix tbody tr").forEach(function (row) {
      var show = (!area.value || row.dataset.area === area.value) && (!level.value || row.dataset.level === level.value);
      row.style.display = show ? "" : "none";
    });
  }
  area.addEventListener("change", apply);
  level.addEventListener("change", apply);
})();
</script>"""


def folders(root: Path) -> dict[str, str]:
    """Engine run name -> its adapter's folder under ``engines/`` (from each ``engine.json``)."""
    found = {}
    for spec in sorted((root / "engines").glob("*/engine.json")):
        for name in json.loads(spec.read_text(encoding="utf-8")).get("runs", {}):
            found[name] = spec.parent.name
    return found


LANGUAGES = {".mjs": "javascript", ".js": "javascript", ".py": "python"}


def reproductions(root: Path, folder: str) -> list[Path]:
    """The minimal reproductions shipped with an engine's adapter (``engines/<folder>/repro.*``)."""
    return sorted(p for p in (root / "engines" / folder).glob("repro.*") if p.is_file())


def repro_page(folder: str) -> str:
    return f"engines/reproduction-{folder}.md"


def repro_text(folder: str, root: Path, repo: RepoLinks) -> str:
    page = repro_page(folder)
    lines = [f"# Reproductions: {folder}", "",
             f"The minimal reproductions shipped with the adapter in `engines/{folder}/`; how to run them and "
             f'what they show: <a class="repo" href="{escape(repo.link(page, f"engines/{folder}/README.md"))}">'
             f"engines/{folder}/README.md</a>.", ""]
    for path in reproductions(root, folder):
        rel = path.relative_to(root).as_posix()
        lines += [f"## {path.name}", "", f'<a class="repo" href="{escape(repo.link(page, rel))}">{escape(rel)}</a>', "",
                  f"```{LANGUAGES.get(path.suffix, '')}", path.read_text(encoding="utf-8").rstrip(), "```", ""]
    return "\n".join(lines)


def _cell_html(engine: dict[str, Any], result: dict[str, Any] | None, case: CaseFile) -> str:
    if result is None:
        return "<td></td>"
    status, cost = result["status"], result.get("cost") or ""
    text = escape(status) + (f"<br><small>cost {escape(cost)}</small>" if cost else "")
    css = f"cell-{status}" + (" cell-cost-fail" if cost == "fail" else "")
    if failing(result):
        href = f"{html(engine['name'] + '.md')}#{case_anchor(case.area, case.slug)}"
        text = f'<a href="{escape(href)}">{text}</a>'
    return f'<td class="{css}">{text}</td>'


def matrix(found: Sources) -> str:
    page = "engines/index.md"
    names = [e["name"] for e in found.engines]
    areas = sorted({c.area for c in found.cases})
    options = "".join(f'<option value="{a}">{a}</option>' for a in areas)
    lines = ["# Released engines × cases", "",
             f"Results data: `engines/results.json` ({escape(found.results_meta.get('generated', ''))}), written by "
             "`incspec engines results` with [the results page](../guides/ENGINES.md). Its outcomes: "
             f"{literal(found.results_meta.get('provenance', ''))}", "",
             "Each row is a case; a failing cell (fail, xfail, errored, xpass or a cost bound exceeded) links to "
             "its first differing observation, its cause and its reproduction.", "",
             *table(["engine", "version", "areas", "failing cells"],
                    [[f"[{e['name']}]({relative(page, engine_page(e['name']))})",
                      e.get("implementation", {}).get("version", ""),
                      ", ".join(e.get("implementation", {}).get("areas", [])),
                      str(sum(failing(r) for r in e.get("results", [])))] for e in found.engines]),
             '<div class="matrix-filter">',
             f'<label>area <select id="filter-area"><option value="">all</option>{options}</select></label>',
             '<label>level <select id="filter-level"><option value="">all</option>'
             '<option value="must">must</option><option value="should">should</option></select></label>',
             "</div>", "",
             '<table id="engine-matrix" class="engine-matrix"><thead><tr><th>case</th><th>area</th><th>level</th>'
             + "".join(f"<th>{escape(n)}</th>" for n in names) + "</tr></thead><tbody>"]
    for case in found.cases:
        level = case.raw.get("level", "")
        link = html(relative(page, case_page(case.area, case.slug)))
        cells = "".join(_cell_html(e, found.result(e, case.id), case) for e in found.engines)
        lines.append(f'<tr id="{case_anchor(case.area, case.slug)}" data-area="{case.area}" data-level="{level}">'
                     f'<td><a href="{escape(link)}">{escape(case.slug)}</a></td><td>{case.area}</td>'
                     f"<td>{level}</td>{cells}</tr>")
    lines += ["</tbody></table>", "", FILTER_SCRIPT, ""]
    return "\n".join(lines)


def _failure(engine: dict[str, Any], result: dict[str, Any], case: CaseFile, page: str, repro: str) -> list[str]:
    lines = [f"### {case.area} · {case.slug} {{ #{case_anchor(case.area, case.slug)} }}", "",
             f"Case [{case.id}]({relative(page, case_page(case.area, case.slug))}): status **{result['status']}**"
             + (f", cost **{result['cost']}**" if result.get("cost") else ""), ""]
    if "step" in result:
        lines += ["First differing observation:", "",
                  *table(["step", "expected", "observed"],
                         [[str(result["step"]), code(result.get("expected")) or "(nothing)",
                           code(result.get("observed")) or "(nothing)"]])]
    elif result.get("message"):
        lines += [f"Message: {literal(result['message'])}", ""]
    cause = engine.get("known", {}).get(case.id)
    if cause:
        lines += [f"Cause: {literal(cause)}", ""]
    if result.get("cost") == "fail":  # the causes explaining its overrun (engines/cost_causes.py)
        overrun = result.get("overrun", {})
        lines += [f"Cost: {counter} = {measured} against a bound of {bound}" for counter, (measured, bound)
                  in overrun.items()]
        lines += [f"Cost cause: {literal(c)}" for c in result.get("cost_causes", [])]
        lines += [""] if overrun or result.get("cost_causes") else []
    if repro:
        lines += [f"Reproduction: [the minimal reproductions of this engine]({relative(page, repro)})", ""]
    return lines


def engine_text(engine: dict[str, Any], found: Sources, root: Path, repo: RepoLinks) -> str:
    page, hs = engine_page(engine["name"]), engine.get("implementation", {})
    folder = folders(root).get(engine["name"], engine["name"])
    repro = repro_page(folder) if reproductions(root, folder) else ""
    lines = [f"# {engine['name']}", ""]
    if engine.get("problem"):
        return "\n".join([*lines, f"Not run: {engine['problem']}", ""])
    config = ", ".join(f"{k}={v}" for k, v in sorted(hs.get("configuration", {}).items()))
    lines += [f"- version: **{hs.get('version', '')}** ({hs.get('language', '')})",
              f"- areas: {', '.join(hs.get('areas', []))}; features: {', '.join(hs.get('features', [])) or '-'}",
              *([f"- configuration: {config}"] if config else []),
              f"- command: `{engine.get('command', '')}`", ""]
    counts: dict[str, int] = {}
    for r in engine.get("results", []):
        counts[r["status"]] = counts.get(r["status"], 0) + 1
        if r.get("cost"):
            counts["cost " + r["cost"]] = counts.get("cost " + r["cost"], 0) + 1
    lines += table(["outcome", "cases in this build"], [[k, str(v)] for k, v in sorted(counts.items())])
    lines += ["## Failing cells", ""]
    by_id = {c.id: c for c in found.cases}
    shown = 0
    for result in engine.get("results", []):
        if failing(result) and result["id"] in by_id:
            lines += _failure(engine, result, by_id[result["id"]], page, repro)
            shown += 1
    if not shown:
        lines += ["None in this build.", ""]
    return "\n".join(lines)


def pages(found: Sources, root: Path, repo: RepoLinks) -> dict[str, str]:
    out = {engine_page(e["name"]): engine_text(e, found, root, repo) for e in found.engines}
    out["engines/index.md"] = matrix(found)
    for folder in sorted(set(folders(root).values())):
        if reproductions(root, folder):
            out[repro_page(folder)] = repro_text(folder, root, repo)
    return out
