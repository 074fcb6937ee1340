"""Run every benchmark side by side and print medians and ratios.

    python -m benchmarks.run                 # the sizes of the issue (10^7 rows, 10^6 edges)
    python -m benchmarks.run --scale 0.01    # a quick version (seconds)

``--scale`` multiplies every size (rows, keys, batch, edges). Sizes of the
flatness series: ``--flat 1e6,1e7`` (rows; scaled too).
"""

from __future__ import annotations

import argparse
import json
import sys

from benchmarks import fixpoint_bench, reduce_bench
from spark_impl.session import build_session


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--batches", type=int, default=8)
    parser.add_argument("--updates", type=int, default=10)
    parser.add_argument("--flat", default="1e6,1e7", help="rows of the per-batch flatness series")
    parser.add_argument("--only", choices=["reduce", "flat", "fixpoint"], action="append")
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args(argv)
    spark = build_session(app_name="incspec-benchmarks")

    def sized(x: float) -> int:
        return max(1, int(x * args.scale))

    only = set(args.only or ["reduce", "flat", "fixpoint"])
    figures: dict[str, object] = {"scale": args.scale}
    if "reduce" in only:
        figures["reduce"] = reduce_bench.run(spark, sized(1e7), sized(1e5), sized(1e4), args.batches)
    if "flat" in only:
        figures["flat"] = [reduce_bench.run(spark, sized(float(r)), sized(1e5), sized(1e4),
                                            args.batches, python=False)
                           for r in args.flat.split(",")]
    if "fixpoint" in only:
        figures["fixpoint"] = fixpoint_bench.run(spark, sized(2e5), sized(1e6), args.updates)
    print(json.dumps(figures, indent=1))
    if args.json:
        with open(args.json, "w") as out:
            json.dump(figures, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
