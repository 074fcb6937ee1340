"""``incspec engines explore``: explore every shipped engine beyond the fixed cases.

Per engine: ``incspec conform --engine NAME --explore DIR --budget SECONDS`` (random operation
sequences per area from the suite's generators, each judged against the oracle; every distinct
divergence shrunk to a stamped case), the budget being ``--budget`` seconds per area the engine
supports. The shrunk cases are kept in the engine's folder, ``engines/<folder>/explored/<run>/``,
and what was found goes into the engine's entry of the results data (``exploration``), from which
the results page (``docs/ENGINES.md``) is written again. An engine that is not installed is recorded
as not explored, with the reason. Not part of CI (the engines are downloaded from npm and PyPI).
"""

from __future__ import annotations

import io
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from conformance import released_engines
from conformance.adapters.subprocess_impl import ProtocolError
from conformance.conform import exploration
from conformance.stateful import backend_runner
from engines import results_data, results_page


def explore_engine(name: str, per_area: float, timeout: float, when: str,
                   root: Path = released_engines.ROOT) -> dict[str, Any]:
    """The ``exploration`` entry of the engine ``name``; its shrunk cases are written under its folder."""
    engine = released_engines.shipped()[name]
    if problem := results_page.not_runnable(engine):
        return {"run": when, "problem": problem}
    backend = results_page.engine_backend(engine, timeout)
    kept = engine.folder / "explored" / name
    try:
        areas = list(backend.handshake().areas)
        budget = per_area * len(areas)
        print(f"incspec engines explore: {name}, {budget:g} s over {', '.join(areas)}", file=sys.stderr)
        log = io.StringIO()
        with tempfile.TemporaryDirectory() as scratch:
            found = exploration(backend_runner(backend), backend, areas, Path(scratch), None, budget, engine.expectations,
                                out=log)
            sys.stderr.write(log.getvalue())
            shutil.rmtree(kept, ignore_errors=True)
            for area in found:
                for d in area.divergences:
                    target = kept / area.area / d.path.name
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(d.path, target)
                    d.path = target
    except ProtocolError as exc:
        return {"run": when, "problem": f"did not start: {exc}"}
    finally:
        backend.close()
    return {
        "run": when, "command": f"incspec conform --engine {name} --explore DIR --budget {budget:g} --timeout {timeout:g}",
        "budget": budget, "problem": "",
        "areas": [{"area": a.area, "plans": a.plans, "examples": a.examples, "diverged": a.diverged,
                   "budget_ended": a.budget_ended,
                   "divergences": [{"signature": d.signature, "case": d.path.relative_to(root).as_posix(),
                                    "steps": d.steps, "known": d.known,
                                    "message": (d.message.splitlines() or [""])[0].replace(f"{root}/", "")}
                                   for d in a.divergences]}
                  for a in found],
    }


def main(argv: list[str] | None = None) -> int:
    p = results_page.section_parser("explore", __doc__, "explore only this engine (repeatable)")
    p.add_argument("--budget", type=float, default=60.0, help="seconds per area the engine supports")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds per case")
    args = p.parse_args(argv)
    return results_page.record_section_command(
        "explore", "exploration", args.engine,
        lambda name, when: explore_engine(name, args.budget, args.timeout, when), args.data, args.out)


def record(content: dict[str, Any], name: str, entry: dict[str, Any]) -> dict[str, Any]:
    """The results data with ``entry`` as the exploration of the engine ``name``."""
    return results_data.with_section(content, name, "exploration", entry)
