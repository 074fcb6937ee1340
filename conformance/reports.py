"""Reports of a conformance run: a summary table per area, JSON, Markdown, JUnit XML."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from conformance.cases_model import thaw
from conformance.execute import STATUSES, Outcome
from conformance.protocols import AREAS, Handshake

COLUMNS = ("cases", *STATUSES, "cost ok", "cost fail", "cost n/a")


def summary(outcomes: Sequence[Outcome]) -> dict[str, dict[str, int]]:
    """Counts per area (and ``total``): cases, each status, and the cost column."""
    rows: dict[str, dict[str, int]] = {}
    for area in [*AREAS, "total"]:
        mine = [o for o in outcomes if area == "total" or o.case.area == area]
        if not mine and area != "total":
            continue
        row = {"cases": len(mine)}
        row.update({s: sum(o.status == s for o in mine) for s in STATUSES})
        for label, key in (("cost ok", "ok"), ("cost fail", "fail"), ("cost n/a", "n/a")):
            row[label] = sum(o.cost == key for o in mine)
        rows[area] = row
    return rows


def table(outcomes: Sequence[Outcome]) -> list[list[str]]:
    return summary_table(summary(outcomes))


def summary_table(rows: Mapping[str, Mapping[str, int]]) -> list[list[str]]:
    """A :func:`summary` as a grid: a header row, then a row per area."""
    return [["area", *COLUMNS]] + [[a, *(str(r[c]) for c in COLUMNS)] for a, r in rows.items()]


def configuration_text(hs: Handshake) -> str:
    """The engine's configuration as its handshake states it (``key=value, ...``)."""
    return ", ".join(f"{k}={json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else v}"
                     for k, v in sorted(hs.configuration.items()))


def text(hs: Handshake, outcomes: Sequence[Outcome], verbose: bool = False) -> str:
    grid = table(outcomes)
    widths = [max(len(row[i]) for row in grid) for i in range(len(grid[0]))]
    lines = [f"implementation: {hs.name} {hs.version} ({hs.language}); "
             f"areas: {', '.join(hs.areas) or '-'}; features: {', '.join(hs.features) or '-'}"
             + (f"; configuration: {configuration_text(hs)}" if hs.configuration else ""), ""]
    for n, row in enumerate(grid):
        lines.append("  ".join(cell.rjust(w) if i else cell.ljust(w)
                               for i, (cell, w) in enumerate(zip(row, widths, strict=True))))
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    problems = [o for o in outcomes if o.status in ("fail", "errored", "xpass") or o.cost == "fail"]
    if verbose:
        problems = [o for o in outcomes if o.status != "pass" or o.cost == "fail"]
    if problems:
        lines.append("")
    for o in problems:
        tag = o.status if o.cost != "fail" or o.status != "pass" else "cost fail"
        lines.append(f"{tag.upper():<11} [{o.case.level}] {o.case.id}: {o.message}")
    return "\n".join(lines) + "\n"


def _result(o: Outcome) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": o.case.id, "area": o.case.area, "level": o.case.level,
        "features": list(o.case.features), "cites": list(o.case.cites),
        "status": o.status, "cost": o.cost, "message": o.message,
        "seconds": round(o.seconds, 6),
    }
    if o.difference is not None:  # the failing step, what the closest accepted answer expects, what came
        out["step"] = o.difference.step
        out["expected"] = thaw(o.difference.expected) if o.difference.expected is not None else None
        out["observed"] = thaw(o.difference.observed) if o.difference.observed is not None else None
    return out


def as_json(hs: Handshake, outcomes: Sequence[Outcome], log: Path | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"implementation": asdict(hs), "summary": summary(outcomes),
                           "results": [_result(o) for o in outcomes]}
    if log is not None:
        out["log"] = str(log)  # the implementation's stderr during the run
    return out


def json_text(hs: Handshake, outcomes: Sequence[Outcome], log: Path | None = None) -> str:
    return json.dumps(as_json(hs, outcomes, log), indent=2, ensure_ascii=False) + "\n"


def markdown(hs: Handshake, outcomes: Sequence[Outcome], log: Path | None = None) -> str:
    grid = table(outcomes)
    lines = [f"# Conformance of {hs.name} {hs.version}", "",
             *([f"Configuration: {configuration_text(hs)}", ""] if hs.configuration else []),
             *([f"The implementation's stderr: `{log}`", ""] if log is not None else []),
             "| " + " | ".join(grid[0]) + " |", "|" + "---|" * len(grid[0])]
    lines += ["| " + " | ".join(row) + " |" for row in grid[1:]]
    problems = [o for o in outcomes if o.status in ("fail", "errored", "xpass") or o.cost == "fail"]
    if problems:
        lines += ["", "## Problems", "", "| case | level | status | cost | message |", "|---|---|---|---|---|"]
        lines += [f"| `{o.case.id}` | {o.case.level} | {o.status} | {o.cost} | "
                  f"{o.message.replace('|', '/')} |" for o in problems]
    return "\n".join(lines) + "\n"


def junit(hs: Handshake, outcomes: Sequence[Outcome], log: Path | None = None) -> str:
    suites = ET.Element("testsuites", name=f"incspec conformance: {hs.name}")
    for area in AREAS:
        mine = [o for o in outcomes if o.case.area == area]
        if not mine:
            continue
        suite = ET.SubElement(
            suites, "testsuite", name=area, tests=str(len(mine)),
            failures=str(sum(o.status in ("fail", "xpass") for o in mine)),
            errors=str(sum(o.status == "errored" for o in mine)),
            skipped=str(sum(o.status in ("skipped", "unsupported", "xfail") for o in mine)),
        )
        for o in mine:
            tc = ET.SubElement(suite, "testcase", classname=f"{area}.{o.case.level}",
                               name=o.case.id, time=f"{o.seconds:.6f}")
            if o.status in ("fail", "xpass"):
                ET.SubElement(tc, "failure", message=o.message or o.status)
            elif o.status == "errored":
                ET.SubElement(tc, "error", message=o.message)
            elif o.status in ("skipped", "unsupported", "xfail"):
                ET.SubElement(tc, "skipped", message=f"{o.status}: {o.message}")
            if o.cost == "fail":
                ET.SubElement(tc, "system-out").text = f"cost: {o.message}"
    return ET.tostring(suites, encoding="unicode") + "\n"


FORMATS = {"json": json_text, "markdown": markdown, "junit": junit}
