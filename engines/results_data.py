"""The results data of ``incspec engines results``: per engine, its handshake and every
case's outcome, written next to the results page (``docs/ENGINES.md``) from the same run.

``engines/results.json`` holds::

    {"generated": "<when>", "provenance": "<how the outcomes were obtained>",
     "engines": [{"name": ..., "command": ..., "problem": "",
                  "known": {case ID: cause}, "cost_causes": {counter: cause},
                  "implementation": {handshake}, "summary": {...},
                  "results": [{"id", "area", "level", "status", "cost", "message",
                               "step"?, "expected"?, "observed"?}, ...]}]}

``results`` is the suite's JSON report (:func:`conformance.reports.as_json`); the static
site (``incspec site build``) draws its engine × case matrix from this file.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from conformance import released_engines, reports
from engines.engine_run import EngineRun

RESULTS = released_engines.ENGINES / "results.json"
PROVENANCE = "a run of incspec engines results (every shipped case on every engine)"


def record(run: EngineRun, command: str) -> dict[str, Any]:
    """One engine's entry: its report (handshake, summary, outcomes) and its known causes."""
    entry: dict[str, Any] = {"name": run.name, "command": command, "problem": run.problem,
                             "known": dict(run.known), "cost_causes": dict(run.cost_causes)}
    if run.handshake is not None:
        entry.update(reports.as_json(run.handshake, run.outcomes))
    return entry


def data(runs: Sequence[EngineRun], commands: Mapping[str, str], when: str,
         provenance: str = PROVENANCE) -> dict[str, Any]:
    return {"generated": when, "provenance": provenance,
            "engines": [record(run, commands.get(run.name, "")) for run in runs]}


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
