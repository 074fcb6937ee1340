"""``incspec check-reducer TARGET``: check a custom reducer before trusting it.

Exit status, the paper's verdict (SKIP-THM-2: incremental update equals recomputation
iff the reducer is well-formed on the accumulators folds reach):
0 well-formed on reachable accumulators and pure, within the search (its bounds are
in the report); 1 not, with a witness a runtime meets (add or remove raising or
hanging there included); 2 usage error (bad target, import failure, unknown or
missing domain, or a counted property that none of the chosen engines could
search: it is not reported as holding). The stronger laws (the global inverse law,
Skip's documented contract) and failures at instances no runtime is shown to meet
are warnings in the report; ``--strict`` makes them count (exit 1).
"""

from __future__ import annotations

import argparse
import json
import sys

from check_reducer.domains import SYNTAX_HELP
from check_reducer.report import render
from check_reducer.sandbox import run_job
from check_reducer.shapes import SHAPES_HELP
from check_reducer.worker import ENGINES, Job


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="incspec check-reducer",
        description="Check a custom reducer (initial, add, remove) against the laws of Skip's "
                    "reduce: pairwise commutativity (SKIP-DEF-2/6), the three well-formedness "
                    "notions (SKIP-DEF-7, -7-GLOBAL, -7-SKIPDOC) and incremental correctness "
                    "(SKIP-DEF-11), and that add/remove leave their arguments unchanged (SKIP-DEF-6), "
                    "with exhaustive, Hypothesis and CrossHair search.",
        epilog=f"TARGET: path/to/file.py:name or package.module:name; {SHAPES_HELP}. {SYNTAX_HELP}",
    )
    p.add_argument("target", metavar="TARGET")
    p.add_argument("--values", help="the value domain V (default: the target's declared "
                                    "'values', else add's type hints)")
    p.add_argument("--acc", help="the accumulator domain A (default: the target's declared "
                                 "'accumulators', else the type hints, else initial's type); "
                                 "initial is added to A when A lacks it, and the report says so")
    p.add_argument("--engines", default=",".join(ENGINES),
                   help=f"comma-separated subset of {','.join(ENGINES)} (default: all)")
    p.add_argument("--no-symbolic", action="store_true", help="skip CrossHair")
    p.add_argument("--examples", type=int, default=300, help="Hypothesis examples per law (300)")
    p.add_argument("--seed", type=int, default=0, help="Hypothesis seed (0)")
    p.add_argument("--bag", type=int, default=3,
                   help="largest multiset size for SKIP-DEF-7's M and SKIP-DEF-11's C(k), Δ (3)")
    p.add_argument("--exhaustive-total", type=int, default=3,
                   help="exhaustive SKIP-DEF-11: |C(k)| + |Δ⁺(k)| <= this (3)")
    p.add_argument("--exhaustive-cap", type=int, default=20_000, help="instances per law (20000)")
    p.add_argument("--rel-tol", type=float, default=0.0,
                   help="tolerance mode (WEAKER than the spec's =): compare floats with math.isclose")
    p.add_argument("--abs-tol", type=float, default=0.0, help="tolerance mode: absolute tolerance")
    p.add_argument("--call-timeout", type=float, default=2.0,
                   help="seconds one law instance may take (2)")
    p.add_argument("--crosshair-per-condition", type=float, default=4.0,
                   help="CrossHair CPU seconds per law (4)")
    p.add_argument("--crosshair-total", type=float, default=40.0,
                   help="CrossHair wall-clock seconds for all laws (40)")
    p.add_argument("--crosshair-iterations", type=int, default=None,
                   help="CrossHair --max_uninteresting_iterations")
    p.add_argument("--timeout", type=float, default=300.0,
                   help="wall-clock seconds for the whole search; the child is killed after (300)")
    p.add_argument("--memory-mb", type=int, default=2048, help="memory limit of the search (2048)")
    p.add_argument("--strict", action="store_true",
                   help="count the stronger laws (SKIP-DEF-7-GLOBAL, SKIP-DEF-7-SKIPDOC) and failures "
                        "at instances no runtime is shown to meet: exit 1 on any of them (default: "
                        "warnings)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    return p


def main(argv: list[str]) -> int:
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:  # argparse: --help exits 0, a usage error 2
        return int(exc.code or 0)
    engines = tuple(e.strip() for e in args.engines.split(",") if e.strip())
    unknown = [e for e in engines if e not in ENGINES]
    if unknown or not engines:
        print(f"incspec check-reducer: unknown engines {unknown}; choose from {ENGINES}",
              file=sys.stderr)
        return 2
    if args.no_symbolic:
        engines = tuple(e for e in engines if e != "crosshair")
    job = Job(
        target=args.target, values=args.values, accumulators=args.acc, engines=engines,
        examples=args.examples, seed=args.seed, bag=args.bag,
        exhaustive_total=args.exhaustive_total, exhaustive_cap=args.exhaustive_cap,
        rel_tol=args.rel_tol, abs_tol=args.abs_tol, call_timeout=args.call_timeout,
        crosshair_per_condition=args.crosshair_per_condition,
        crosshair_total=args.crosshair_total, crosshair_iterations=args.crosshair_iterations,
        memory_mb=args.memory_mb, timeout=args.timeout, strict=args.strict,
    )
    report = run_job(job, args.timeout)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        print(render(report), end="")
    status: int = report["exit_status"]
    return status
