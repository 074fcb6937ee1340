"""The results data of ``incspec engines results``: per engine, its handshake and every
case's outcome, written next to the results page (``docs/ENGINES.md``) from the same run.

``engines/results.json`` holds::

    {"generated": "<when>", "provenance": "<how the outcomes were obtained>",
     "engines": [{"name": ..., "command": ..., "problem": "", "run": "<when this engine ran>",
                  "provenance": "<how this engine's outcomes were obtained>",
                  "known": {case ID: cause}, "cost_causes": {counter: [{"factor", "cause"}, ...]},
                  "implementation": {handshake}, "summary": {...},
                  "exploration"?: {"run", "command", "budget", "problem",
                                   "areas": [{"area", "plans", "examples", "diverged", "budget_ended",
                                              "divergences": [{"signature", "case", "steps", "known",
                                                               "message"}, ...]}, ...]},
                  "results": [{"id", "area", "level", "status", "cost", "message",
                               "step"?, "expected"?, "observed"?,
                               "overrun"?: {counter: [measured, bound]}, "cost_causes"?: [...]}, ...]}]}

``results`` is the suite's JSON report (:func:`conformance.reports.as_json`); a result above a cost
bound also has, per counter above its bound, its worst step's measurement and bound (``overrun``)
and the known causes explaining it (``cost_causes``, :mod:`engines.cost_causes`). The results page
(``docs/ENGINES.md``) is written from this file alone, and the static site (``incspec site
build``) draws its engine × case matrix from it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from conformance import released_engines, reports
from conformance.compare import overruns
from engines import cost_causes
from engines.engine_run import EngineRun

RESULTS = released_engines.ENGINES / "results.json"
PROVENANCE = "a run of incspec engines results (every shipped case)"


def record(run: EngineRun, command: str, when: str, provenance: str = PROVENANCE) -> dict[str, Any]:
    """One engine's entry: its report (handshake, summary, outcomes), its known causes, and per
    cost failure the overrun and the causes explaining it."""
    entry: dict[str, Any] = {"name": run.name, "command": command, "problem": run.problem,
                             "run": when, "provenance": provenance,
                             "known": dict(run.known), "cost_causes": dict(run.cost_causes)}
    if run.handshake is not None:
        entry.update(reports.as_json(run.handshake, run.outcomes))
        for result, outcome in zip(entry["results"], run.outcomes, strict=True):
            if outcome.cost == "fail":
                worst = overruns(outcome.case, outcome.observations)
                result["overrun"] = {c: list(m) for c, m in worst.items()}
                result["cost_causes"] = cost_causes.attribute(run.cost_causes, worst)
    return entry


def data(runs: Sequence[EngineRun], commands: Mapping[str, str], when: str,
         provenance: str = PROVENANCE, kept: Mapping[str, Any] | None = None,
         order: Sequence[str] = ()) -> dict[str, Any]:
    """The results data of ``runs``; the engines of ``kept`` (an earlier file's content) that did not
    run this time are kept as they were, with the time they ran. Engines in ``order``, then the rest."""
    earlier: Mapping[str, Any] = kept or {"generated": "", "provenance": "", "engines": []}
    entries = {e["name"]: {**e, "run": e.get("run") or earlier["generated"],
                           "provenance": e.get("provenance") or earlier["provenance"]}
               for e in earlier["engines"] if e["name"] not in {run.name for run in runs}}
    overall = provenance if not entries else (
        f"{provenance}, for {', '.join(run.name for run in runs)}; the other engines' entries are kept from "
        "an earlier file, each with its own provenance and run")
    entries.update({run.name: record(run, commands.get(run.name, ""), when, provenance) for run in runs})
    rank = {name: i for i, name in enumerate(order)}
    names = sorted(entries, key=lambda n: (rank.get(n, len(rank)), n))
    return {"generated": when, "provenance": overall, "engines": [entries[n] for n in names]}


#: the sections of an engine's entry written by commands of their own (``incspec engines explore``,
#: ``incspec engines scaling``), which rerunning the cases keeps
KEPT_SECTIONS = ("exploration", "scaling")


def with_kept_sections(content: Mapping[str, Any], earlier: Mapping[str, Any]) -> dict[str, Any]:
    """``content`` with each engine's :data:`KEPT_SECTIONS` kept from ``earlier`` where the new
    entry has none: rerunning the cases does not drop them."""
    before = {e["name"]: e for e in earlier.get("engines", [])}
    engines = []
    for e in content["engines"]:
        kept = {k: before[e["name"]][k] for k in KEPT_SECTIONS
                if k not in e and k in before.get(e["name"], {})}
        engines.append({**e, **kept})
    return {**content, "engines": engines}


def with_section(content: Mapping[str, Any], name: str, section: str, entry: Mapping[str, Any]) -> dict[str, Any]:
    """The results data with ``entry`` as the ``section`` of the engine ``name`` (an engine whose
    cases never ran gets an entry saying so)."""
    engines = [dict(e) for e in content["engines"]]
    for e in engines:
        if e["name"] == name:
            e[section] = dict(entry)
            break
    else:
        engines.append({"name": name, "command": f"incspec conform --engine {name}", "problem": "not run",
                        "run": "", "provenance": "", "known": {}, "cost_causes": {}, section: dict(entry)})
    return {**content, "engines": engines}


def _line(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def text(content: Mapping[str, Any]) -> str:
    """The file's text: one line per engine field and per case outcome (a rerun diffs by case)."""
    lines = ["{", f'"generated":{_line(content["generated"])},', f'"provenance":{_line(content["provenance"])},',
             '"engines":[']
    engines = content["engines"]
    for i, engine in enumerate(engines):
        fields = [f"{_line(k)}:{_line(v)}" for k, v in engine.items() if k != "results"]
        results = engine.get("results", [])
        fields.append('"results":[\n' + ",\n".join(_line(r) for r in results) + "\n]")
        lines.append("{" + ",\n".join(fields) + "}" + ("," if i < len(engines) - 1 else ""))
    return "\n".join([*lines, "]}"]) + "\n"


def write(path: Path, content: Mapping[str, Any]) -> None:
    path.write_text(text(content), encoding="utf-8")


def read(path: Path = RESULTS) -> dict[str, Any]:
    """The results data (an empty engine list when the file is absent)."""
    if not path.is_file():
        return {"generated": "", "provenance": "", "engines": []}
    found: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return found
