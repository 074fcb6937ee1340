"""What refused micro-batches cost the suite's reduce area against Spark (the main job's
largest area): the view runners' steps and the refused micro-batches they undid, each
with its wall seconds.

    python -m benchmarks.suite_refusals_bench [--area reduce] [--out FILE]

Runs ``incspec conform --impl spark --area AREA`` in this process, every
:class:`~spark_impl.reduce.view_runner.ViewRunner` counting its calls of ``step`` (one
micro-batch of changes) and ``_skip`` (a refused micro-batch emptied and run again from
the checkpoint: a query restart). The suite's verdicts are printed as ``incspec conform``
prints them; the run fails if a case does.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from benchmarks.measure import machine


def counted(cls: type, name: str, calls: Counter[str], seconds: dict[str, float]) -> None:
    """``cls.name`` replaced by itself counting its calls and their wall seconds."""
    method: Callable[..., Any] = getattr(cls, name)

    def timed(self: Any, *args: Any, **kwargs: Any) -> Any:
        start = time.monotonic()
        try:
            return method(self, *args, **kwargs)
        finally:
            calls[name] += 1
            seconds[name] = seconds.get(name, 0.0) + time.monotonic() - start

    setattr(cls, name, timed)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--area", default="reduce")
    parser.add_argument("--out", help="write the figures as JSON here too")
    args = parser.parse_args(argv)

    from incspec.cli import main as incspec
    from spark_impl.reduce.view_runner import ViewRunner

    calls: Counter[str] = Counter()
    seconds: dict[str, float] = {}
    for name in ("step", "_skip"):
        counted(ViewRunner, name, calls, seconds)
    start = time.monotonic()
    status = incspec(["conform", "--impl", "spark", "--area", args.area, "--no-progress"])
    figures = {"area": args.area, "wall_s": round(time.monotonic() - start, 1),
               "steps": calls["step"], "step_s": round(seconds.get("step", 0.0), 1),
               "refused": calls["_skip"], "refused_s": round(seconds.get("_skip", 0.0), 1),
               "machine": machine()}
    print(json.dumps(figures))
    if args.out:
        with open(args.out, "w") as out:
            json.dump(figures, out, indent=2)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
