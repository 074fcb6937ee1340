"""``incspec engines results``: run every shipped engine adapter and write a results page.

Per engine: its version, configuration and areas, the summary table, and its
failures grouped by cause (the reason its expectations file gives a known
failure; a cost failure by the known causes whose factors explain its measured
overrun, ``engines/cost_causes.py``, or as not explained), one example each. An
engine that cannot be installed or started is listed with the reason. The page is
written from the results data (``engines/results.json``), and the skeletons (engines
whose servers or crates cannot be installed here, ``"status": "skeleton"`` in their
``engine.json``) from their ``engine.json``, one line each under "Engines not run
here", never with results; ``--engine NAME`` runs only the engines named and keeps
the others' entries as they last ran, ``--page-only`` runs none and writes the page
again. Not part of CI (the engines are downloaded from npm and PyPI).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance import released_engines, reports
from conformance.adapters import Backend
from conformance.adapters.subprocess_impl import ProtocolError, SubprocessImplementation
from conformance.execute import Expectations, execute
from conformance.loader import load_cases
from conformance.protocols import Handshake
from conformance.scaling import NOISE_FLOOR
from conformance.scaling import THRESHOLD as SCALING_THRESHOLD
from engines import cost_causes, results_data
from engines.engine_run import EngineRun

EXAMPLE_CHARS = 400


@dataclass(frozen=True)
class Cause:
    text: str
    results: tuple[Mapping[str, Any], ...]  # the results data's entries, a case at most once
    cost: bool = False  # a cause of cost overruns (its example is the overrun)

    def example(self) -> str:
        first = self.results[0]
        if not self.cost:
            return f"`{first['id']}`: {first['message']}"
        worst = "; ".join(f"{c} = {m} > {b}" for c, (m, b) in first.get("overrun", {}).items())
        return f"`{first['id']}`: at its worst step {worst}"


def read_expectations(path: Path | None) -> tuple[Expectations | None, dict[str, list[dict[str, Any]]]]:
    """The known failures and the cost causes (:func:`engines.cost_causes.read`) of a file."""
    if path is None or not path.is_file():
        return None, {}
    raw = json.loads(path.read_text(encoding="utf-8"))
    return Expectations.read(path), cost_causes.read(raw.get("cost_causes"))


def run_engine(name: str, backend: Backend, expectations: Path | None,
               cases_root: Path | None = None) -> EngineRun:
    """Every shipped case on ``backend``, judged with the engine's known failures."""
    known, cost_causes = read_expectations(expectations)
    try:
        hs, outcomes = execute(backend, load_cases(cases_root), known)
    except ProtocolError as exc:
        return EngineRun(name, problem=f"did not start: {exc}")
    finally:
        backend.close()
    return EngineRun(name, hs, outcomes, known.known_failures if known else {}, cost_causes)


def _shape(message: str) -> str:
    """A message without its data, to group failures not listed in the expectations file."""
    return re.sub(r"\d+|\{.*\}|\[.*\]", "…", message)[:160]


def causes(entry: Mapping[str, Any]) -> list[Cause]:
    """An engine's failures (its results data entry) grouped by cause, largest group first."""
    known = entry.get("known", {})
    groups: dict[tuple[str, bool], dict[str, Mapping[str, Any]]] = {}
    for result in entry.get("results", []):
        status = result["status"]
        found = {"xfail": [known.get(result["id"], "known failure")],
                 "fail": [f"not listed (fail): {_shape(result['message'])}"],
                 "errored": [f"not listed (errored): {_shape(result['message'])}"],
                 "xpass": ["listed as a known failure, but passes: fixed?"]}.get(status, [])
        keys = [(t, False) for t in found] + [(t, True) for t in result.get("cost_causes", [])]
        for key in keys:
            groups.setdefault(key, {}).setdefault(result["id"], result)
    return sorted((Cause(t, tuple(rs.values()), cost) for (t, cost), rs in groups.items()),
                  key=lambda c: (-len(c.results), c.text))


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def engine_section(entry: Mapping[str, Any]) -> list[str]:
    lines = [f"## {entry['name']}", ""]
    if "implementation" not in entry:
        return [*lines, f"Not run: {entry['problem']}", "", *exploration_section(entry)]
    hs = entry["implementation"]
    configuration = reports.configuration_text(Handshake(**hs)) if hs.get("configuration") else ""
    lines += [f"- version: **{hs['version']}** ({hs['language']})",
              f"- areas: {', '.join(hs['areas'])}; features: {', '.join(hs['features']) or '-'}",
              *([f"- configuration: {configuration}"] if configuration else []),
              f"- command: `{entry['command']}`", f"- run: {entry['run']}", ""]
    grid = reports.summary_table(entry["summary"])
    lines += ["| " + " | ".join(grid[0]) + " |", "|" + "---|" * len(grid[0])]
    lines += ["| " + " | ".join(row) + " |" for row in grid[1:]]
    found = causes(entry)
    if not found:
        return [*lines, "", "No failures.", "", *exploration_section(entry)]
    lines += ["", "Failures by cause (a case may fail its result and its cost bounds, so appear under two; "
              "a cost overrun appears under every known cause its factor needs):", "",
              "| cause | cases | example |", "|---|---|---|"]
    for cause in found:
        text = cause.example()
        text = text if len(text) <= EXAMPLE_CHARS else text[:EXAMPLE_CHARS] + "…"
        lines.append(f"| {_cell(cause.text)} | {len(cause.results)} | {_cell(text)} |")
    return [*lines, "", *exploration_section(entry)]


def traced_causes(name: str) -> dict[str, str]:
    """The causes engine ``name``'s explored divergences were traced to, by shrunk case
    (``engines/NAME/explored/traced.json``: the cause, and the run that shows it). An exploration
    records a divergence's cause from the known failures alone, by signature, or as a guess by
    plan ("perhaps ..."); a traced cause, shown by a run of the case against the engine with the
    cause fixed, replaces it on the page."""
    path = released_engines.ENGINES / name / "explored" / "traced.json"
    if not path.is_file():
        return {}
    traced: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return traced


def exploration_section(entry: Mapping[str, Any]) -> list[str]:
    """What exploring the engine beyond the fixed cases found (``incspec engines explore``): per area
    the examples run, then each distinct divergence with its shrunk case and its cause (traced:
    :func:`traced_causes`, else the one the exploration recorded)."""
    explored = entry.get("exploration")
    if not explored:
        return []
    if explored.get("problem"):
        return [f"Exploration (random operation sequences, {explored['run']}): not run: {explored['problem']}", ""]
    lines = [f"Exploration beyond the fixed cases (`{explored['command']}`, {explored['run']}): random operation "
             "sequences per area, each judged against the oracle; each distinct first difference shrunk to "
             "a case.", "", "| area | plans | examples | diverged | distinct divergences | ended by the budget |",
             "|---|---|---|---|---|---|"]
    lines += [f"| {a['area']} | {', '.join(a['plans'])} | {a['examples']} | {a.get('diverged', 0)} | "
              f"{len(a['divergences'])} | "
              f"{'yes' if a['budget_ended'] else 'no'} |" for a in explored["areas"]]
    divergences = [d for a in explored["areas"] for d in a["divergences"]]
    if not divergences:
        return [*lines, "", "No divergence found.", ""]
    lines += ["", "| first difference | shrunk case | steps | known cause | example |", "|---|---|---|---|---|"]
    traced = traced_causes(entry["name"])
    for d in divergences:
        text = d["message"] if len(d["message"]) <= EXAMPLE_CHARS else d["message"][:EXAMPLE_CHARS] + "…"
        lines.append(f"| {_cell(d['signature'])} | `{d['case']}` | {d['steps']} | "
                     f"{_cell(traced.get(d['case'], d['known'])) or 'none: new'} | {_cell(text)} |")
    return [*lines, ""]


#: step times (ms) at or below this are noise whatever their spread (conformance.scaling)
SCALING_NOISE_MS = NOISE_FLOOR * 1e3


def scaling_section(entry: Mapping[str, Any]) -> list[str]:
    """The engine's cost judged from outside (``incspec engines scaling``, :mod:`engines.scaling_verdicts`):
    each scaling probe's verdict, growth and step times (nothing when it was never probed)."""
    probed = entry.get("scaling")
    if not probed:
        return []
    if probed.get("problem"):
        return [f"Cost from outside (scaling probes, {probed['run']}): not run: {probed['problem']}", ""]
    lines = [f"Cost from outside (`{probed['command']}`, {probed['run']}): each probe applies the same small "
             "change as the stored data grows and times the step through the engine's process; a growth "
             f"of the step time above ×{SCALING_THRESHOLD:g} from the smallest size to the largest is a cost "
             "failure (a step time below the spread of its timings counts as that spread).", "",
             "| probe | area | verdict | growth | step time by stored size |", "|---|---|---|---|---|"]
    for p in probed["probes"]:
        growth = f"×{p['growth']:.1f}" if p["growth"] is not None else "-"
        times = ", ".join(f"{t['size']}: {t['step_ms']:.3f} ms"
                          + (f" (spread {t['spread_ms']:.3f})" if t["spread_ms"] > SCALING_NOISE_MS else "")
                          for t in p["timings"])
        times = "; ".join(text for text in (p["detail"], times) if text)
        lines.append(f"| {p['probe']} | {p['area']} | {p['verdict']} | {growth} | {_cell(times)} |")
    return [*lines, ""]


def skeleton_line(engine: released_engines.Engine) -> str:
    """A skeleton's line on the page: why it is not run here, and how to run it where it can be."""
    assert engine.skeleton is not None
    skeleton = engine.skeleton
    return (f"- **{engine.name}** (`engines/{engine.folder.name}/`): not run here: {skeleton.reason}. "
            f"It needs {skeleton.requires}; there: `{skeleton.how}`.")


def skeletons_section(skeletons: Sequence[released_engines.Engine]) -> list[str]:
    if not skeletons:
        return []
    return ["## Engines not run here", "",
            "Each has an adapter skeleton in its folder that answers the handshake and skips every case "
            "(its mapping not written yet), and refuses at once, in one line, without its requirement; "
            "it has no results.", "", *(skeleton_line(e) for e in skeletons), ""]


def skeletons() -> list[released_engines.Engine]:
    """The shipped skeleton engines, in their order."""
    return [e for e in released_engines.shipped().values() if e.skeleton is not None]


def page(content: Mapping[str, Any], skeletons: Sequence[released_engines.Engine] = ()) -> str:
    """The results page of the results data ``content`` (:mod:`engines.results_data`), with the
    ``skeletons`` each on one line at its end."""
    lines = ["# The suite against released engines", "",
             f"Written by `incspec engines results` on {content['generated']} from `engines/results.json`; "
             "each engine's section says when it ran. Each engine runs through its adapter "
             "in `engines/` (installed by `incspec engines install NAME`); its known failures, each with "
             "its cause and a minimal reproduction, are in the engine's folder, so a release fixing one "
             "shows `xpass`. A cost overrun counts as explained only up to the factors its known causes "
             "state (`cost_causes` in the engine's expectations file). An engine's exploration (`incspec engines "
             "explore`: random operation sequences beyond the fixed cases, each judged against the oracle) "
             "lists every distinct divergence with its shrunk case, kept in the engine's folder; its cost from outside "
             "(`incspec engines scaling`: the scaling probes, step times as the stored data grows) closes its "
             "section.", ""]
    for entry in content["engines"]:
        lines += [*engine_section(entry), *scaling_section(entry)]
    lines += skeletons_section(skeletons)  # after the engines' sections, each ending in a blank line
    return "\n".join(lines).rstrip() + "\n"


def shipped_runs(names: Sequence[str], install: bool, timeout: float,
                 install_one: Callable[[released_engines.Engine], None] = released_engines.install,
                 ) -> list[EngineRun]:
    """Run the shipped engines ``names`` one after another (installing them with ``install``)."""
    runs = []
    for name in names:
        engine = released_engines.shipped()[name]
        if install:
            try:
                install_one(engine)
            except (subprocess.CalledProcessError, OSError) as exc:
                runs.append(EngineRun(name, problem=f"could not be installed: {exc}"))
                continue
        if engine.missing():  # a skeleton without its server or toolchain: never a result
            runs.append(EngineRun(name, problem=engine.missing()))
            continue
        if not engine.installed():
            runs.append(EngineRun(name, problem=f"not installed (incspec engines install {name})"))
            continue
        print(f"incspec engines results: running {name}", file=sys.stderr)
        runs.append(run_engine(name, SubprocessImplementation(engine.command(), timeout), engine.expectations))
    return runs


def not_runnable(engine: released_engines.Engine) -> str:
    """Why ``engine`` cannot run here (a skeleton missing its server or toolchain, or not
    installed), or empty."""
    if engine.missing():
        return engine.missing()
    if not engine.installed():
        return f"not installed (incspec engines install {engine.name})"
    return ""


def engine_backend(engine: released_engines.Engine, timeout: float) -> SubprocessImplementation:
    """The engine's adapter as a subprocess backend: ``timeout`` seconds per case, at least 120 to start."""
    return SubprocessImplementation(engine.command(), timeout=timeout, startup_timeout=max(120.0, timeout))


def section_parser(command: str, description: str | None, engine_help: str) -> argparse.ArgumentParser:
    """The options of a command that records one section per engine (``incspec engines explore``,
    ``scaling``): ``--engine`` (repeatable), ``--out`` (the page), ``--data`` (the results data)."""
    p = argparse.ArgumentParser(prog=f"incspec engines {command}", description=description,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--engine", action="append", default=[], help=engine_help)
    p.add_argument("--out", type=Path, default=released_engines.ROOT / "docs" / "ENGINES.md")
    p.add_argument("--data", type=Path, default=released_engines.ENGINES / "results.json")
    return p


def record_section_command(command: str, section: str, requested: Sequence[str],
                           entry_of: Callable[[str, str], dict[str, Any]], data: Path, out: Path) -> int:
    """Run ``incspec engines COMMAND`` on the ``requested`` engines (default: every shipped one
    but the skeletons): 2 for an unknown engine or a skeleton missing its server, else each
    engine's ``section`` recorded (:func:`record_sections`)."""
    names = list(requested) or [n for n, e in released_engines.shipped().items() if e.skeleton is None]
    unknown = [n for n in names if n not in released_engines.shipped()]
    if unknown:
        print(f"incspec engines {command}: unknown engine {unknown[0]!r}", file=sys.stderr)
        return 2
    if refused := refuse_skeletons(command, names):
        return refused
    record_sections(section, names, entry_of, data, out)
    print(f"incspec engines {command}: wrote {out} and {data}", file=sys.stderr)
    return 0


def record_sections(section: str, names: Sequence[str], entry_of: Callable[[str, str], dict[str, Any]],
                    data: Path, out: Path) -> None:
    """Per engine of ``names``, ``entry_of(name, when)`` recorded as its ``section`` in the results data
    ``data`` and the page ``out`` written again, engine by engine (a run stopped half-way keeps
    what it recorded)."""
    for name in names:
        when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        entry = entry_of(name, when)
        content = results_data.read(data)  # read again: another command may have written meanwhile
        content = results_data.with_section(content, name, section, entry)
        results_data.write(data, content)
        out.write_text(page(content, skeletons()), encoding="utf-8")


def refuse_skeletons(command: str, names: Sequence[str]) -> int:
    """2, with the one line naming what is missing, when a skeleton in ``names`` misses its server or
    toolchain (it would only be recorded as not run); else 0."""
    engines = released_engines.shipped()
    for name in names:
        if name in engines and engines[name].missing():
            print(f"incspec engines {command}: {engines[name].missing()}", file=sys.stderr)
            return 2
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="incspec engines results", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=released_engines.ROOT / "docs" / "ENGINES.md")
    p.add_argument("--data", type=Path, default=released_engines.ENGINES / "results.json",
                   help="the results data, every case's outcome (the static site's engine matrix)")
    p.add_argument("--engine", action="append", default=[],
                   help="run only this engine (repeatable); the others keep their entries in --data")
    p.add_argument("--install", action="store_true", help="install missing engines first (npm, pip)")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds per case")
    p.add_argument("--page-only", action="store_true",
                   help="run no engine: write the page again from --data and the skeletons' engine.json")
    args = p.parse_args(argv)
    if args.page_only:
        args.out.write_text(page(results_data.read(args.data), skeletons()), encoding="utf-8")
        print(f"incspec engines results: wrote {args.out}", file=sys.stderr)
        return 0
    names = args.engine or [n for n, e in released_engines.shipped().items() if e.skeleton is None]
    if refused := refuse_skeletons("results", names):
        return refused
    runs = shipped_runs(names, args.install, args.timeout)
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    commands = {n: f"incspec conform --engine {n}" for n in names}
    earlier = results_data.read(args.data)
    content = results_data.data(runs, commands, when, kept=earlier if args.engine else None,
                                order=list(released_engines.shipped()))
    content = results_data.with_kept_sections(content, earlier)
    results_data.write(args.data, content)
    args.out.write_text(page(content, skeletons()), encoding="utf-8")
    print(f"incspec engines results: wrote {args.out} and {args.data}", file=sys.stderr)
    return 0
