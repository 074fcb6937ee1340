"""The driver's share of a small fixpoint update: Py4J calls, Python CPU and wall time,
as the engines run it (``default``), with Spark's DataFrame call-site capture on
(``call-sites``), and with PySpark's classes looked up at every use (``lookups-each-time``:
the Py4J view without :func:`spark_impl.jvm_lookups.pin`).

    python -m benchmarks.driver_cost_bench [--chain 20] [--repeats 3] [--out FILE]

Each variant runs in a process of its own (pyspark reads
``spark.python.sql.dataFrameDebugging.enabled`` once per process). There, after two warm-up rounds, ``--repeats``
rounds each: an engine restored holding a root ``R`` with children ``x``, ``y`` and a
chain ``c1 .. cN`` below it (``restore``: the fixpoint written, not computed), the chain's
head edge cut (its delta checked: the whole chain removed) and put back (checked: the
whole chain added, at exact ranks). Per round: the Py4J calls the driver made, the
driver process's Python CPU seconds, the wall seconds. Printed: the medians per
variant and their ratios to ``default``.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from typing import Any

from benchmarks.measure import load_average, machine, write_results

SETTING = "spark.python.sql.dataFrameDebugging.enabled"
#: a variant: the call-site setting, and whether PySpark's classes stay pinned on the Py4J view
VARIANTS: dict[str, tuple[str, bool]] = {
    "default": ("false", True), "call-sites": ("true", True), "lookups-each-time": ("false", False)}


def chain_round(spark: Any, length: int) -> None:
    """Restore, cut the chain's head edge, put it back; each delta checked."""
    from conformance.protocols import FixpointChange
    from spark_impl.protocol import encode
    from spark_impl.protocol.fixpoint import SparkFixpointEngine

    chain = [f"c{i}" for i in range(1, length + 1)]
    edges = [("R", "x"), ("R", "y"), ("R", "c1"), *zip(chain, chain[1:], strict=False)]
    ranks = {"R": 0, "x": 1, "y": 1, **{node: i for i, node in enumerate(chain, 1)}}
    engine = SparkFixpointEngine(spark)
    engine.engine.restore(spark.createDataFrame([(encode("R"),)], "node string"),
                          spark.createDataFrame([(encode(u), encode(v)) for u, v in edges], "src string, dst string"),
                          spark.createDataFrame([(encode(n), r) for n, r in ranks.items()], "node string, rank bigint"))
    cut = engine.apply(FixpointChange(remove_edges=(("R", "c1"),)))
    if cut.removed != set(chain) or cut.added:
        raise SystemExit(f"the cut removed {sorted(cut.removed)}, added {sorted(cut.added)}")
    back = engine.apply(FixpointChange(add_edges=(("R", "c1"),)))
    if back.added != set(chain) or back.removed or back.ranks != ranks:
        raise SystemExit(f"putting the edge back added {sorted(back.added)} at {back.ranks}")


def measure(variant: str, length: int, repeats: int) -> list[dict[str, float]]:
    """In this process: a session of the variant, two warm-up rounds, then ``repeats``."""
    import py4j.clientserver

    from spark_impl.jvm_lookups import PINNED
    from spark_impl.session import build_session

    debugging, pinned = VARIANTS[variant]
    spark = build_session(app_name="driver-cost-bench", conf={SETTING: debugging})
    if not pinned:
        view = vars(spark.sparkContext._jvm)
        for fqn in PINNED:
            view.pop(fqn, None)
            view.pop(fqn.rsplit(".", 1)[1], None)
    calls = [0]
    send = py4j.clientserver.ClientServerConnection.send_command

    def counted(self: Any, command: str) -> Any:
        calls[0] += 1
        return send(self, command)

    py4j.clientserver.ClientServerConnection.send_command = counted
    for _ in range(2):
        chain_round(spark, length)
    rows = []
    for _ in range(repeats):
        calls[0] = 0
        before, started = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        chain_round(spark, length)
        after = resource.getrusage(resource.RUSAGE_SELF)
        rows.append({"py4j_calls": calls[0], "wall_s": round(time.perf_counter() - started, 3),
                     "python_cpu_s": round(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, 3)})
    spark.stop()
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.driver_cost_bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--chain", type=int, default=20, help="the chain's length (default 20)")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--out", help="write the results here (JSON)")
    p.add_argument("--one", choices=tuple(VARIANTS), help=argparse.SUPPRESS)  # a child process
    args = p.parse_args(argv)
    if args.one:
        print(json.dumps(measure(args.one, args.chain, args.repeats)))
        return 0
    results: dict[str, Any] = {"benchmark": "driver_cost_bench", "machine": machine(),
                               "params": {"chain": args.chain, "repeats": args.repeats}, "settings": {}}
    for variant in VARIANTS:
        load_before = load_average()
        out = subprocess.run([sys.executable, "-m", "benchmarks.driver_cost_bench", "--one", variant,
                              "--chain", str(args.chain), "--repeats", str(args.repeats)],
                             check=True, capture_output=True, text=True).stdout
        rows = json.loads(out.strip().splitlines()[-1])
        medians = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
        results["settings"][variant] = {"rows": rows, "medians": medians, "load_average_before": load_before,
                                        "load_average_after": load_average()}
        print(f"{variant}: " + ", ".join(f"{k} {v:g}" for k, v in medians.items()), flush=True)
    base = results["settings"]["default"]["medians"]
    for variant in VARIANTS:
        if variant != "default":
            other = results["settings"][variant]["medians"]
            print(f"{variant}/default: " + ", ".join(f"{k} {other[k] / base[k]:.2f}" for k in base if base[k]))
    write_results(args.out, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
