"""Run the benchmarks side by side; write results, plots and tables.

    python -m benchmarks.run --quick       # tiny sizes, a few minutes: checks everything runs
    python -m benchmarks.run --medium      # 10^5..10^6 rows, 10^3..10^4 edges
    python -m benchmarks.run --large --only reduce   # 10^6, 10^7, 5·10^7 rows, 10^4-change batches
    python -m benchmarks.run               # the full series: 10^6, 10^7, 5·10^7 rows; 10^5..10^7 edges
    python -m benchmarks.run --only reduce --engines spark-builtin,spark-recompute

Writes ``benchmarks/results/<name>.json`` (machine, parameters, raw
per-batch timings, stored sizes, memory), ``<name>-reduce.png`` and
``<name>-reach.png``, and prints the tables (``python -m benchmarks.report``
regenerates them, and the generated part of ``docs/performance.md``, from the JSON).

Reduce: a collection of ``rows`` rows over ``rows/10`` keys (10 distinct
values per key), uniform keys for the scaling series and Zipf-skewed keys at
the smallest size; batches of signed changes (half deletions of live rows).
Reachability: random sparse graphs (out-degree 2) for the series; power-law,
grid and chain graphs at the smallest size. Each engine runs in turn on the
same seeded data (see :mod:`benchmarks.harness`); engines above their size
cap (the Python oracle, the Z-set ``iterate``) are skipped and say so.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import partial
from typing import Any

from benchmarks import engines, harness
from benchmarks.measure import (
    EXECUTOR_MEMORY_HELP,
    MASTER_HELP,
    JobCounter,
    JvmHeap,
    load_average,
    machine,
    session_conf,
)
from benchmarks.plots import plot
from benchmarks.report import markdown
from benchmarks.workloads import GraphShape, GraphWorkload, KeySkew, ReduceWorkload

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")


#: The warm-up's table (rows, keys) and the batch sizes its steps cycle through.
WARM_UP_TABLE = (20_000, 2_000)
WARM_UP_BATCHES = (100, 2_000, 100, 2_000, 10_000)
#: Untimed steps per Spark reduce engine. The JVM compiles Spark's planning and execution
#: code as it grows hot, on the same 2 cores as the engines: measured over 2·10^6 rows
#: (the bulk path, 10^4-change batches, a throwaway profile of the JVM's threads), its
#: compiler threads took 1.7 s of CPU a step over the first six steps and 0.4 s after
#: forty, and a step 1.9 s of wall time, then 1.0-1.1 s. Forty steps on the small table
#: first left the compiler at 0.4-0.6 s a step and the steps over 2·10^6 rows at 1.0-1.4 s
#: from the first.
#: Fewer steps measure the engine that runs first, and the sizes measured first, warming.
WARM_UP_STEPS = 40


@dataclass(frozen=True)
class Preset:
    reduce_sizes: list[int]
    reduce_batches: list[int]
    graph_sizes: list[int]
    graph_batches: list[int]
    batches_per_point: int
    #: per engine: the largest stored size it runs at (rows or edges); absent: no cap
    caps: dict[str, int] = field(default_factory=dict)
    #: seconds of batches per engine and workload, after which its series stops
    budget_s: float = 60.0
    chain_edges: int = 200
    values_per_key: int = 10
    #: untimed batches each Spark reduce engine runs before any is measured (:meth:`Runner.warm_up`)
    warm_up_steps: int = WARM_UP_STEPS
    #: the reduce series also on Zipf keys, at the smallest size
    zipf: bool = True


PRESETS = {
    "quick": Preset([10_000, 30_000, 100_000], [100, 1_000], [300, 1_000, 3_000], [10, 100], 2,
                    {"spark-zset": 300}, chain_edges=30, budget_s=20, warm_up_steps=4),
    "medium": Preset([100_000, 300_000, 1_000_000], [100, 1_000, 10_000, 100_000],
                     [1_000, 3_000, 10_000], [10, 100], 5,
                     {"oracle-incremental": 300_000, "oracle-naive": 300_000, "spark-zset": 1_000},
                     chain_edges=100, budget_s=90),
    # the Spark reduce engine against recompute at growing stored sizes, 10^4-change batches
    "scaling": Preset([100_000, 1_000_000, 3_000_000], [1_000, 10_000], [1_000], [10], 3,
                      {"oracle-incremental": 100_000, "oracle-naive": 100_000}, budget_s=300),
    # issue-sized reduce series: 10^6, 10^7, 5·10^7 rows (the Python reducer up to 10^7:
    # its bulk load runs through Python state calls, ~5·10^4 rows/s)
    "large": Preset([1_000_000, 10_000_000, 50_000_000], [10_000], [1_000], [10], 3,
                    {"oracle-incremental": 100_000, "oracle-naive": 100_000,
                     "spark-python": 10_000_000}, budget_s=600),
    "full": Preset([1_000_000, 10_000_000, 50_000_000], [100, 1_000, 10_000, 100_000, 1_000_000],
                   [100_000, 1_000_000, 10_000_000], [10, 100, 1_000, 10_000], 5,
                   {"oracle-incremental": 1_000_000, "oracle-naive": 1_000_000, "spark-zset": 10_000,
                    "spark-python": 10_000_000}, chain_edges=1_000, budget_s=1800),
}

REDUCE_ENGINES = ["spark-builtin", "spark-bulk", "spark-adaptive", "spark-python", "spark-bulk-python",
                  "spark-min", "spark-bulk-min", "spark-native", "spark-recompute", "pathway-builtin",
                  "pathway-custom", "flink-builtin", "flink-custom", "oracle-incremental", "oracle-naive"]
REACH_ENGINES = ["spark-fixpoint", "spark-zset", "spark-recompute", "pathway-iterate",
                 "oracle-incremental", "oracle-naive"]


#: settings that are paths of the machine that ran, not of the run: never written to results
MACHINE_PATHS = ("spark.sql.warehouse.dir",)


def recorded_conf(conf: list[tuple[str, str]]) -> dict[str, str]:
    """The Spark settings a results file records: the SQL ones and the master's and memories,
    without the machine's paths (:data:`MACHINE_PATHS`)."""
    return {k: v for k, v in conf
            if (k.startswith("spark.sql") or k in ("spark.master", "spark.driver.memory", "spark.executor.memory"))
            and k not in MACHINE_PATHS}


def _log(line: str) -> None:
    print(line, flush=True)


def _write_table(frame: Any, directory: str, name: str) -> engines.Table:
    path = os.path.join(directory, f"{name}.parquet")
    frame.drop(columns=["id"]).to_parquet(path, index=False)
    return engines.Table(frame, path)


def _schedule(batches: list[int], per_point: int, size: int) -> harness.Schedule:
    return [(b, per_point) for b in batches if b <= size]


class Runner:
    """Runs the selected engines over the preset's workloads and collects the records."""

    def __init__(self, preset: Preset, selected: set[str] | None, spark: Any, data_dir: str) -> None:
        self.preset, self.selected, self.spark, self.data_dir = preset, selected, spark, data_dir
        self.heap = JvmHeap.of_session(spark)
        self.runs: list[dict[str, Any]] = []
        self.pathway_missing = engines.pathway_available()
        self.flink_missing = engines.flink_available()

    def warm_up(self) -> None:
        """Run every selected Spark engine untimed on small data, before any is measured (JVM
        JIT, Python workers, Arrow): each reduce engine :attr:`Preset.warm_up_steps` batches
        (:data:`WARM_UP_STEPS` says why so many), so no engine is measured while the JVM
        compiles what it runs, and none gains from following another."""
        steps = self.preset.warm_up_steps
        _log(f"warming up (untimed): {steps} batches per Spark reduce engine")
        w = ReduceWorkload(*WARM_UP_TABLE)
        table = _write_table(w.stream().initial(), self.data_dir, "warm-up-reduce")
        g = GraphWorkload(100)
        gs = g.stream()
        graph = engines.Graph(_write_table(gs.initial(), self.data_dir, "warm-up-edges"), gs.roots())
        names = [name for name in REDUCE_ENGINES if name.startswith("spark")
                 and (self.selected is None or name in self.selected)] or ["spark-builtin", "spark-recompute"]
        for name in names:
            runner = self._spark_reduce_runner(name, "warm-up")
            stream = w.stream()
            runner.load(table)
            last: list[float] = []
            for i in range(steps):
                batch = runner.stage(stream.batch(WARM_UP_BATCHES[i % len(WARM_UP_BATCHES)]))
                start = time.perf_counter()
                runner.apply(batch)
                last = [*last[-len(WARM_UP_BATCHES) + 1:], time.perf_counter() - start]
                runner.settle()
            harness.stop(runner)
            _log(f"    {name:<20} warmed: its last {len(last)} batches took {sum(last):.2f} s")
        for reach in (engines.SparkReach(self.spark), engines.SparkReachRecompute(self.spark)):
            reach.make(graph)
            reach.apply(gs.batch(2))

    def _spark_reduce_runner(self, name: str, staging: str) -> Any:
        """The Spark reduce engine ``name`` (``spark-<path>[-<reducer>]`` and the like)."""
        if name == "spark-recompute":
            return engines.SparkRecompute(self.spark, self._staging(staging))
        if name == "spark-native":
            return engines.SparkNative(self.spark, self._staging(staging))
        if name.startswith(("spark-bulk", "spark-adaptive")):  # spark-<path>[-<reducer>]
            path, _, kind = name.removeprefix("spark-").partition("-")
            return engines.SparkBulk(self.spark, self._staging(staging), path, kind or "builtin")
        return engines.SparkReduce(self.spark, name.removeprefix("spark-"), self._staging(staging))

    def _staging(self, name: str) -> str:
        """A fresh folder for a runner's staged input batches (removed with the data)."""
        return tempfile.mkdtemp(prefix=f"{name}-", dir=self.data_dir)

    def _wanted(self, engine: str, size: int) -> str | None:
        """None when ``engine`` runs at ``size``; else why not."""
        if self.selected is not None and engine not in self.selected:
            return "not selected"
        if engine.startswith("pathway") and self.pathway_missing:
            return f"pathway cannot be imported here: {self.pathway_missing}"
        if engine.startswith("flink") and self.flink_missing:
            return f"PyFlink cannot be imported here: {self.flink_missing}"
        cap = self.preset.caps.get(engine)
        if cap is not None and size > cap:
            return f"above its size cap ({cap:,})"
        return None

    def _skip(self, bench: str, engine: str, workload: Any, reason: str) -> None:
        if reason != "not selected":
            rec = harness._record(bench, engine, "", workload)
            rec.update(status="skipped", reason=reason)
            self.runs.append(rec)
            _log(f"    {engine:<20} skipped: {reason}")

    def reduce(self, workload: ReduceWorkload) -> None:
        _log(f"reduce: {workload.describe()}")
        table = _write_table(workload.stream().initial(), self.data_dir, f"reduce-{workload.rows}-{workload.skew}")
        schedule = _schedule(self.preset.reduce_batches, self.preset.batches_per_point, workload.rows)
        agreement = harness.Agreement()
        for name in REDUCE_ENGINES:
            why = self._wanted(name, workload.rows)
            if why:
                self._skip("reduce", name, workload, why)
                continue
            if name.startswith("pathway"):
                peer = engines.PathwayPeer(name.removeprefix("pathway-"))
                self.runs.append(harness.measure_peer("reduce", peer, workload, schedule, agreement, _log))
                continue
            if name.startswith("flink"):
                flink = engines.FlinkPeer(name.removeprefix("flink-"))
                self.runs.append(harness.measure_peer("reduce", flink, workload, schedule, agreement, _log))
                continue
            spark = name.startswith("spark")
            runner: Any = (self._spark_reduce_runner(name, name) if spark
                           else engines.OracleReduce(incremental=name == "oracle-incremental"))
            self.runs.append(harness.measure_inprocess("reduce", runner, workload, schedule,
                                                       partial(runner.load, table),
                                                       self.heap if spark else None, agreement, _log,
                                                       self.preset.budget_s,
                                                       JobCounter(self.spark) if spark else None))
        os.remove(table.path)

    def _reach_runner(self, name: str) -> Any:
        if name == "spark-fixpoint":
            return engines.SparkReach(self.spark)
        if name == "spark-zset":
            return engines.SparkZSetReach(self.spark)
        if name == "spark-recompute":
            return engines.SparkReachRecompute(self.spark)
        return engines.OracleReach(incremental=name == "oracle-incremental")

    def reach(self, workload: GraphWorkload) -> None:
        _log(f"reach: {workload.describe()}")
        stream = workload.stream()
        graph = engines.Graph(_write_table(stream.initial(), self.data_dir,
                                           f"edges-{workload.edges}-{workload.shape}"), stream.roots())
        schedule = _schedule(self.preset.graph_batches, self.preset.batches_per_point, workload.edges)
        agreement = harness.Agreement()
        for name in REACH_ENGINES:
            why = self._wanted(name, workload.edges)
            if why:
                self._skip("reach", name, workload, why)
                continue
            if name.startswith("pathway"):
                peer = engines.PathwayPeer("iterate")
                self.runs.append(harness.measure_peer("reach", peer, workload, schedule, agreement, _log))
                continue
            runner = self._reach_runner(name)
            heap = self.heap if name.startswith("spark") else None
            self.runs.append(harness.measure_inprocess("reach", runner, workload, schedule,
                                                       partial(runner.make, graph), heap, agreement, _log,
                                                       self.preset.budget_s))
        os.remove(graph.edges.path)


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--sizes wants integers separated by commas, got {text!r}") from None
    if not sizes or min(sizes) < 10:
        raise argparse.ArgumentTypeError("--sizes wants sizes of at least 10 rows")
    return sizes


def _setting(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"--conf wants KEY=VALUE, got {text!r}")
    return key, value


def workloads(preset: Preset) -> tuple[list[ReduceWorkload], list[GraphWorkload]]:
    vpk = preset.values_per_key
    skews: list[KeySkew] = ["uniform"]
    reduce = [ReduceWorkload(n, max(1, n // vpk), skews[0]) for n in preset.reduce_sizes]
    if preset.zipf:
        reduce.append(ReduceWorkload(preset.reduce_sizes[0], max(1, preset.reduce_sizes[0] // vpk), "zipf"))
    shapes: list[GraphShape] = ["power", "grid"]
    graphs = [GraphWorkload(n, "random") for n in preset.graph_sizes]
    graphs += [GraphWorkload(preset.graph_sizes[0], s) for s in shapes]
    graphs.append(GraphWorkload(preset.chain_edges, "chain"))
    return reduce, graphs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_const", const="quick", dest="preset")
    size.add_argument("--medium", action="store_const", const="medium", dest="preset")
    size.add_argument("--scaling", action="store_const", const="scaling", dest="preset",
                      help="the Spark reduce engine's series: 10^5, 10^6, 3*10^6 rows")
    size.add_argument("--large", action="store_const", const="large", dest="preset",
                      help="the reduce series at 10^6, 10^7, 5*10^7 rows, 10^4-change batches")
    parser.add_argument("--only", choices=["reduce", "reach"], action="append")
    parser.add_argument("--engines", help="comma-separated engine names (default: all)")
    parser.add_argument("--name", help="results name (default: the preset's)")
    parser.add_argument("--sizes", type=_sizes,
                        help="comma-separated reduce sizes (rows), replacing the preset's")
    parser.add_argument("--batches", type=_sizes,
                        help="comma-separated reduce batch sizes (changes), replacing the preset's")
    parser.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", type=_setting,
                        help="a Spark setting on top of the engine's (repeatable), e.g. to measure one")
    parser.add_argument("--uniform-only", action="store_true",
                        help="the reduce series on uniform keys alone (no Zipf workload at the smallest size)")
    parser.add_argument("--per-point", type=int, metavar="N",
                        help="timed batches per engine and batch size, whose median is reported "
                             "(default: the preset's)")
    parser.add_argument("--warm-up-steps", type=int, metavar="N",
                        help=f"untimed batches per Spark reduce engine before any is measured "
                             f"(default {WARM_UP_STEPS}; --quick: 4)")
    parser.add_argument("--driver-memory", default="6g")
    parser.add_argument("--master", help=MASTER_HELP)
    parser.add_argument("--executor-memory", default="8g", help=EXECUTOR_MEMORY_HELP)
    args = parser.parse_args(argv)
    preset_name = args.preset or "full"
    preset = PRESETS[preset_name]
    if args.sizes:
        preset = replace(preset, reduce_sizes=args.sizes)
    if args.batches:
        preset = replace(preset, reduce_batches=args.batches)
    if args.uniform_only:
        preset = replace(preset, zipf=False)
    if args.per_point is not None:
        if args.per_point < 1:
            parser.error("--per-point wants a count of at least 1")
        preset = replace(preset, batches_per_point=args.per_point)
    if args.warm_up_steps is not None:
        if args.warm_up_steps < 0:
            parser.error("--warm-up-steps wants a count of at least 0")
        preset = replace(preset, warm_up_steps=args.warm_up_steps)
    name = args.name or preset_name
    selected = set(args.engines.split(",")) if args.engines else None
    only = set(args.only or ["reduce", "reach"])

    from spark_impl.session import build_session

    started = time.perf_counter()
    created = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    spark = build_session(args.master, app_name="incspec-benchmarks",
                          conf={**session_conf(args.master, args.driver_memory, args.executor_memory),
                                **dict(args.conf)})
    info = machine(str(spark.sparkContext._jvm.java.lang.System.getProperty("java.version")))
    info["versions"]["pathway"] = engines.pathway_version()  # in the peers' own environments
    info["versions"]["flink"] = engines.flink_version()
    _log(f"machine: {info['cores']} cores, load average {info['load_average']}")
    data_dir = tempfile.mkdtemp(prefix="incspec-bench-")
    runner = Runner(preset, selected, spark, data_dir)
    command = "python -m benchmarks.run" + (f" --{preset_name}" if preset_name != "full" else "") + \
        "".join(f" --only {o}" for o in (args.only or [])) + (f" --engines {args.engines}" if args.engines else "") + \
        (f" --sizes {','.join(map(str, args.sizes))}" if args.sizes else "") + \
        (f" --batches {','.join(map(str, args.batches))}" if args.batches else "") + \
        (f" --per-point {args.per_point}" if args.per_point is not None else "") + \
        (f" --warm-up-steps {args.warm_up_steps}" if args.warm_up_steps is not None else "") + \
        (" --uniform-only" if args.uniform_only else "") + \
        (f" --master '{args.master}' --executor-memory {args.executor_memory}" if args.master else "") + \
        (f" --driver-memory {args.driver_memory}" if args.driver_memory != "6g" else "") + \
        "".join(f" --conf {k}={v}" for k, v in args.conf)
    os.makedirs(RESULTS, exist_ok=True)
    path = os.path.join(RESULTS, f"{name}.json")

    def save(complete: bool) -> dict[str, Any]:
        """The results so far (written after every workload: an interrupted run keeps them)."""
        results = {"name": name, "created": created, "command": command, "machine": info,
                   "complete": complete, "elapsed_s": time.perf_counter() - started,
                   "load_average_end": load_average(),
                   "params": {"preset": preset_name, **preset.__dict__, "driver_memory": args.driver_memory,
                              "warm_up": {"rows": WARM_UP_TABLE[0], "keys": WARM_UP_TABLE[1],
                                          "batches": list(WARM_UP_BATCHES), "steps": preset.warm_up_steps},
                              "spark_conf": recorded_conf(spark.sparkContext.getConf().getAll())},
                   "runs": runner.runs}
        with open(path, "w") as out:
            json.dump(results, out, indent=1)
        return results

    try:
        runner.warm_up()
        reduce_loads, graph_loads = workloads(preset)
        if "reduce" in only:
            for rw in reduce_loads:
                runner.reduce(rw)
                save(False)
        if "reach" in only:
            for gw in graph_loads:
                runner.reach(gw)
                save(False)
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    results = save(True)
    plots = {}
    for bench in ("reduce", "reach"):
        png = plot(results, bench, os.path.join(RESULTS, f"{name}-{bench}.png"))
        if png:
            plots[bench] = os.path.relpath(png, os.path.dirname(RESULTS) + "/..")
    rel = os.path.relpath(path, os.path.dirname(RESULTS) + "/..")
    _log("\n" + markdown(results, rel, plots))
    _log(f"wrote {rel} and {', '.join(plots.values()) or 'no plots'}")
    spark.stop()  # the engines' streaming queries with it: executors in JVMs of their own exit cleanly
    return 0


if __name__ == "__main__":
    sys.exit(main())
