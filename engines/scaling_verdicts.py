"""``incspec engines scaling``: every shipped engine's cost judged from outside.

Per engine: the suite's scaling probes (:mod:`conformance.scaling`, as ``incspec conform --engine
NAME --scaling``), the same small change applied as the stored data grows, each step timed through
the engine's own process: the zset probes where it serves that area, ``reduce-sum`` and
``reach-edge`` where it declares ``changes-only`` (else "not declared", never a pass). What each
probe measured goes into the engine's entry of the results data (``scaling``), from which the
results page (``docs/ENGINES.md``) is written again. An engine that is not installed is recorded
as not probed, with the reason. Not part of CI (the engines are downloaded from npm and PyPI, and
the timings want a quiet machine).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from conformance import released_engines, scaling
from conformance.adapters.subprocess_impl import ProtocolError
from engines import results_page

#: seconds per case: a probe's largest case loads 10^4 elements through the engine's process
TIMEOUT = 120.0


def verdict(result: scaling.ProbeResult) -> str:
    """``ok``, ``cost fail``, ``not judged`` (the engine errored or timed out) or ``not declared``."""
    if result.undeclared:
        return "not declared"
    if result.problem:
        return "not judged"
    return "ok" if result.passed else "cost fail"


def probe_entry(result: scaling.ProbeResult) -> dict[str, Any]:
    return {"probe": result.probe.name, "area": result.probe.area, "verdict": verdict(result),
            "growth": round(result.growth, 2) if result.timings and not result.problem else None,
            "threshold": result.threshold,
            "detail": result.problem or (f"the engine does not declare {result.undeclared}" if result.undeclared else ""),
            "timings": [{"size": t.size, "step_ms": round(t.step_seconds * 1e3, 3),
                         "spread_ms": round(t.resolution * 1e3, 3)} for t in result.timings],
            "claim": result.probe.claim}


def probe_engine(name: str, when: str, timeout: float = TIMEOUT) -> dict[str, Any]:
    """The ``scaling`` entry of the engine ``name``."""
    engine = released_engines.shipped()[name]
    if problem := results_page.not_runnable(engine):
        return {"run": when, "problem": problem}
    backend = results_page.engine_backend(engine, timeout)
    try:
        print(f"incspec engines scaling: {name}", file=sys.stderr)
        results = scaling.run_probes(backend, progress=lambda probe: print(f"  probe {probe}...", file=sys.stderr))
    except ProtocolError as exc:
        return {"run": when, "problem": f"did not start: {exc}"}
    finally:
        backend.close()
    return {"run": when, "command": f"incspec conform --engine {name} --scaling --timeout {timeout:g}",
            "problem": "", "probes": [probe_entry(r) for r in results]}


def main(argv: Sequence[str] | None = None) -> int:
    p = results_page.section_parser("scaling", __doc__, "probe only this engine (repeatable)")
    p.add_argument("--timeout", type=float, default=TIMEOUT, help="seconds per case")
    args = p.parse_args(argv)
    return results_page.record_section_command(
        "scaling", "scaling", args.engine, lambda name, when: probe_engine(name, when, args.timeout),
        args.data, args.out)
