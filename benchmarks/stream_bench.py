"""One named stream processor over a long stream: per-micro-batch time and state size.

    python -m benchmarks.stream_bench                                  # tcp_receiver, 10^6 items, 100 batches
    python -m benchmarks.stream_bench --processor prefix_sum --items 2000000 --batches 200
    python -m benchmarks.stream_bench --items 20000 --batches 20      # a quick version

The stream is written as one file per batch and read back one file per
micro-batch (``spark_impl.stream.runner``), so the query runs exactly
``--batches`` micro-batches; the output goes to the ``noop`` sink. Per
micro-batch, Spark's progress report gives the time (``triggerExecution``) and
the state of the stateful operator (``numRowsTotal``, ``memoryUsedBytes``);
printed: the median per decile of the run (flat when per-batch work is in
proportion to the batch, not to the input seen so far) and the state's maximum.

Inputs (deterministic):

* ``tcp_receiver``: packets ``0 .. n-1``, every ``--swap-every``-th pair sent in
  swapped order (the receiver buffers one packet ahead), a tick every 1000
  items. Paper (§3.9): the receiver's state is the next number and the packets
  held ahead of it, bounded by the reordering: the state rows stay constant.
* ``set_difference_ticks``: strata of 1000 items (``+x`` and ``-x`` over a
  rolling range of values), the state holds two strata: constant.
* ``prefix_sum``, ``derivative``, ``full_adder``: constant state.
* ``distinct``: values drawn from ``--distinct`` values: the state grows with
  the values seen, to at most ``--distinct`` (bounded only by the domain).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

from spark_impl.session import build_session
from spark_impl.stream.operator import apply_processors, spec_of
from spark_impl.stream.runner import items_stream, stream_session, write_batches
from spark_impl.values import encode


def tcp_items(n: int, swap_every: int) -> list[Any]:
    out: list[Any] = []
    i = 0
    while i < n:
        if swap_every and i % swap_every == 0 and i + 1 < n:
            out += [[i + 1, f"d{i + 1}"], [i, f"d{i}"]]
            i += 2
        else:
            out.append([i, f"d{i}"])
            i += 1
        if len(out) % 1000 == 0:
            out.append("tick")
    return out


def strata_items(n: int) -> list[Any]:
    out: list[Any] = []
    for i in range(n):
        out.append("tick" if i % 1000 == 999 else ["+" if i % 2 else "-", (i // 2) % 700])
    return out


INPUTS: dict[str, Callable[[argparse.Namespace], list[Any]]] = {
    "tcp_receiver": lambda a: tcp_items(a.items, a.swap_every),
    "set_difference_ticks": lambda a: strata_items(a.items),
    "prefix_sum": lambda a: [(i * 7919) % 1000 - 500 for i in range(a.items)],
    "derivative": lambda a: [(i * 7919) % 1000 - 500 for i in range(a.items)],
    "full_adder": lambda a: [[i % 2, (i // 3) % 2] for i in range(a.items)],
    "distinct": lambda a: [(i * 7919) % a.distinct for i in range(a.items)],
}


def deciles(values: list[float]) -> list[float]:
    """The median of each tenth of the run, in order."""
    n = len(values)
    return [statistics.median(values[n * d // 10:max(n * (d + 1) // 10, n * d // 10 + 1)]) for d in range(10)]


def run(processor: str, items: list[Any], batches: int, shuffle_partitions: int,
        spark: Any = None) -> dict[str, Any]:
    """Run ``processor`` over ``items`` cut into ``batches`` micro-batches; the figures."""
    spark = spark or build_session(app_name="incspec-stream-bench")
    session = stream_session(spark, shuffle_partitions)
    spec = spec_of(processor, {})
    size = -(-len(items) // batches)
    files = [[json.dumps({"spec": spec, "run": "", "pos": b * size + j, "item": encode(x)})
              for j, x in enumerate(items[b * size:(b + 1) * size])] for b in range(batches)]
    folder = tempfile.mkdtemp(prefix="incspec-stream-bench-")
    try:
        source = os.path.join(folder, "in")
        os.makedirs(source)
        write_batches(source, files)
        start = time.perf_counter()
        query = (apply_processors(items_stream(session, source)).writeStream.format("noop")
                 .option("checkpointLocation", os.path.join(folder, "checkpoint"))
                 .trigger(availableNow=True).start())
        query.awaitTermination()
        wall = time.perf_counter() - start
        progress = [json.loads(p.json) for p in query.recentProgress]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    seconds = [p["durationMs"]["triggerExecution"] / 1000 for p in progress]
    rows = [p["stateOperators"][0]["numRowsTotal"] for p in progress]
    memory = [p["stateOperators"][0]["memoryUsedBytes"] for p in progress]
    return {"processor": processor, "items": len(items), "micro_batches": len(progress),
            "items_per_batch": size, "wall_s": round(wall, 1),
            "batch_s_decile_medians": [round(s, 3) for s in deciles(seconds)],
            "first_batch_s": round(seconds[0], 3),
            "state_rows_decile_medians": deciles([float(r) for r in rows]),
            "state_rows_max": max(rows), "state_bytes_max": max(memory)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.stream_bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--processor", choices=sorted(INPUTS), default="tcp_receiver")
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--batches", type=int, default=100)
    parser.add_argument("--swap-every", type=int, default=50)
    parser.add_argument("--distinct", type=int, default=100_000)
    parser.add_argument("--shuffle-partitions", type=int, default=2)
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args(argv)
    figures = run(args.processor, INPUTS[args.processor](args), args.batches, args.shuffle_partitions)
    for key, value in figures.items():
        print(f"{key:<28} {value}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(figures, out, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
