"""``incspec engines results``: run every shipped engine adapter and write a results page.

Per engine: its version, configuration and areas, the summary table, and its
failures grouped by cause (the reason its expectations file gives a known
failure; cost failures by the work counter, with the cause the file's
``cost_causes`` gives), one example each. An engine that cannot be installed or
started is listed with the reason. The page is written from an actual run; it is
not part of CI (the engines are downloaded from npm and PyPI).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from conformance import released_engines, reports
from conformance.adapters import Backend
from conformance.adapters.subprocess_impl import ProtocolError, SubprocessImplementation
from conformance.execute import Expectations, Outcome, execute
from conformance.loader import load_cases
from conformance.protocols import Handshake

EXAMPLE_CHARS = 400


@dataclass(frozen=True)
class EngineRun:
    """One engine's run: its handshake and outcomes, or why it did not run."""

    name: str
    handshake: Handshake | None = None
    outcomes: Sequence[Outcome] = ()
    known: Mapping[str, str] = field(default_factory=dict)  # case ID -> the cause of its known failure
    cost_causes: Mapping[str, str] = field(default_factory=dict)  # work counter -> why it exceeds its bound
    problem: str = ""


@dataclass(frozen=True)
class Cause:
    text: str
    outcomes: tuple[Outcome, ...]


def read_expectations(path: Path | None) -> tuple[Expectations | None, dict[str, str]]:
    """The known failures and the cost causes (``{"cost_causes": {counter: cause}}``) of a file."""
    if path is None or not path.is_file():
        return None, {}
    raw = json.loads(path.read_text(encoding="utf-8"))
    return Expectations.read(path), dict(raw.get("cost_causes", {}))


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


COST_FAILURE = re.compile(r"step \d+: (\w+) = [\d.]+ > [\d.]+$")


def causes(run: EngineRun) -> list[Cause]:
    """The run's failures grouped by cause, largest group first."""
    groups: dict[str, list[Outcome]] = {}
    for o in run.outcomes:
        if o.status == "xfail":
            groups.setdefault(run.known.get(o.case.id, "known failure"), []).append(o)
        elif o.status in ("fail", "errored"):
            groups.setdefault(f"not listed ({o.status}): {_shape(o.message)}", []).append(o)
        elif o.status == "xpass":
            groups.setdefault("listed as a known failure, but passes: fixed?", []).append(o)
        cost = COST_FAILURE.search(o.message) if o.cost == "fail" else None
        if cost:
            counter = cost.group(1)
            groups.setdefault(run.cost_causes.get(counter, f"cost: {counter} above its bound"), []).append(o)
    return sorted((Cause(t, tuple(os)) for t, os in groups.items()), key=lambda c: (-len(c.outcomes), c.text))


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def engine_section(run: EngineRun, command: str) -> list[str]:
    lines = [f"## {run.name}", ""]
    if run.handshake is None:
        return [*lines, f"Not run: {run.problem}", ""]
    hs = run.handshake
    lines += [f"- version: **{hs.version}** ({hs.language})",
              f"- areas: {', '.join(hs.areas)}; features: {', '.join(hs.features) or '-'}",
              *([f"- configuration: {reports.configuration_text(hs)}"] if hs.configuration else []),
              f"- command: `{command}`", ""]
    grid = reports.table(run.outcomes)
    lines += ["| " + " | ".join(grid[0]) + " |", "|" + "---|" * len(grid[0])]
    lines += ["| " + " | ".join(row) + " |" for row in grid[1:]]
    found = causes(run)
    if not found:
        return [*lines, "", "No failures.", ""]
    lines += ["", "Failures by cause (a case may fail its result and its cost bounds, so appear twice):", "",
              "| cause | cases | example |", "|---|---|---|"]
    for cause in found:
        example = cause.outcomes[0]
        text = f"`{example.case.id}`: {example.message}"
        text = text if len(text) <= EXAMPLE_CHARS else text[:EXAMPLE_CHARS] + "…"
        lines.append(f"| {_cell(cause.text)} | {len(cause.outcomes)} | {_cell(text)} |")
    return [*lines, ""]


def page(runs: Sequence[EngineRun], commands: Mapping[str, str], when: str) -> str:
    lines = ["# The suite against released engines", "",
             f"Generated by `incspec engines results` on {when}. Each engine runs through its adapter "
             "in `engines/` (installed by `incspec engines install NAME`); its known failures, each with "
             "its cause and a minimal reproduction, are in the engine's folder, so a release fixing one "
             "shows `xpass`.", ""]
    for run in runs:
        lines += engine_section(run, commands.get(run.name, ""))
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
        if not engine.installed():
            runs.append(EngineRun(name, problem=f"not installed (incspec engines install {name})"))
            continue
        print(f"incspec engines results: running {name}", file=sys.stderr)
        runs.append(run_engine(name, SubprocessImplementation(engine.command(), timeout), engine.expectations))
    return runs


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="incspec engines results", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=released_engines.ROOT / "docs" / "ENGINES.md")
    p.add_argument("--data", type=Path, default=released_engines.ENGINES / "results.json",
                   help="the results data, every case's outcome (the static site's engine matrix)")
    p.add_argument("--engine", action="append", default=[], help="only this engine (repeatable)")
    p.add_argument("--install", action="store_true", help="install missing engines first (npm, pip)")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds per case")
    args = p.parse_args(argv)
    names = args.engine or list(released_engines.shipped())
    runs = shipped_runs(names, args.install, args.timeout)
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    commands = {n: f"incspec conform --engine {n}" for n in names}
    args.out.write_text(page(runs, commands, when), encoding="utf-8")
    from engines import results_data  # it imports this module

    results_data.write(args.data, results_data.data(runs, commands, when))
    print(f"incspec engines results: wrote {args.out} and {args.data}", file=sys.stderr)
    return 0
