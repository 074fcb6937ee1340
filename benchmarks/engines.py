"""The engines a benchmark runs, behind two small runner interfaces.

A **reduce runner** maintains the view ``k ↦ (Σ v, count)`` of a collection:
``load(table)``, ``apply(batch)`` (a batch of signed changes, timed; a runner with a
``stage(batch)`` method is handed what that returns, made untimed: the Spark runners'
batches as Parquet, :class:`Staging`),
``settle()`` (untimed upkeep between batches) and ``stored()`` (what it holds:
distinct ``(k, v)`` rows and keys of the view, counted over its own state).
A **reach runner** maintains the nodes reachable from roots: ``make(graph)``,
``apply(change)``, ``settle()``, ``stored()`` (distinct edges, live nodes).

Implemented here for: the Spark engines (:data:`SPARK_REDUCE_ENGINE` and
:data:`SPARK_REACH_ENGINE` name the classes measured: change one line to
measure another implementation with the same methods), the native Spark
recompute over the same stored rows, the Z-set dataflow's ``iterate``, the
reference oracle (its incremental path and its naive from-scratch
computation), and the peers pathway (:mod:`benchmarks.pathway_peer`) and Apache Flink
(:mod:`benchmarks.flink_peer`, reduce only), each run in a child process of its own
environment that regenerates the same seeded data and times itself (:class:`PeerEnv`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any, Protocol

import pandas as pd

from benchmarks.stepped_view import SteppedView
from benchmarks.workloads import REACH_PROGRAM, GraphChange, GraphWorkload, ReduceWorkload
from reference.algebra import Multiset
from reference.fixpoint.general_pattern import live_set
from reference.fixpoint.managed import Change, ManagedFixpoint
from reference.skip.core import Delta, Reducer, apply_delta, reduce, update
from spark_impl.fixpoint.reachability import IncrementalReachability

#: The Spark reduce engine measured. Constructor ``(spark, reducer, key_type,
#: value_type)``; methods ``load(df, rows=, values=)``, ``apply(delta, rows=)``,
#: and either ``stored_sizes() -> {"rows": distinct (k, v) rows, "keys": keys of
#: the view}`` or the current engine's ``store.all()`` and ``view()``.
SPARK_REDUCE_ENGINE: Callable[..., Any] = SteppedView
#: The Spark reachability engine measured: ``(spark, node_type)``,
#: ``make(roots_df, edges_df)``, ``apply(add_edges=, remove_edges=)``, and either
#: ``stored_sizes() -> {"edges": ..., "live": ...}`` or ``edges.all()`` and ``current()``.
SPARK_REACH_ENGINE: Callable[..., Any] = IncrementalReachability


@dataclass(frozen=True)
class Table:
    """A workload's initial data: in memory, and the same rows as one Parquet table."""

    frame: pd.DataFrame
    path: str


@dataclass(frozen=True)
class Graph:
    edges: Table
    roots: list[int]


class ReduceRunner(Protocol):
    name: str
    role: str  # incremental | recompute | oracle-incremental | oracle-naive

    def load(self, table: Table) -> None: ...
    def apply(self, batch: Any) -> None: ...  # a pandas frame, or what the runner's stage made
    def settle(self) -> None: ...
    def stored(self) -> dict[str, float]: ...


class ReachRunner(Protocol):
    name: str
    role: str

    def make(self, graph: Graph) -> None: ...
    def apply(self, change: GraphChange) -> None: ...
    def settle(self) -> None: ...
    def stored(self) -> dict[str, float]: ...


# --- reducers: (Σ v, count), in each engine's terms ------------------------------------


def _add(a: Any, v: Any) -> Any:
    return (a[0] + v, a[1] + 1)


def _remove(a: Any, v: Any) -> Any:
    return (a[0] - v, a[1] - 1)


#: the accumulators' type: the pipeline's exact integer sum (``incspec pipeline --view reduce:sum``
#: over integers), which every Spark engine here sums in
EXACT = "decimal(38,0)"


def spark_reducer(kind: str) -> Any:
    """``builtin``: a native group reducer (sum, count), summed exactly as the pipeline sums
    integers (:data:`EXACT`); ``python``: the same as a Python ``(initial, add, remove)``
    folded through Arrow (Python integers: exact too); ``min``: the built-in min (another
    view over the same stored rows: a fold, not a group)."""
    from pyspark.sql import functions as F

    from spark_impl.reduce.reducer_kinds import GroupReducer, PythonReducer, min_reducer

    if kind == "builtin":
        return GroupReducer("sum_count", 2, lambda v: [v, F.lit(1)], scalar=False, value_type="bigint",
                            acc_type=EXACT)
    if kind == "min":
        return min_reducer("bigint")
    if kind == "python":
        return PythonReducer("python_sum_count", (0, 0), _add, _remove)
    raise ValueError(f"no Spark reducer {kind!r} (builtin, python, min)")


# --- Spark ---------------------------------------------------------------------------


def _materialise(df: Any) -> Any:
    return df.localCheckpoint(eager=True)


#: a staged batch's columns (the workloads' keys and values are 64-bit integers)
BATCH_SCHEMA = "k bigint, v bigint, w bigint"


@dataclass(frozen=True)
class Staged:
    """A batch staged as Parquet: the folder's URL and its row count."""

    url: str
    rows: int


class Staging:
    """Each Spark engine's input batches as Parquet, written untimed (:meth:`stage`, called by
    the harness before the clock starts): every Spark engine reads its batch from the same
    kind of folder, so none pays an input write another does not. The incremental engine
    moves the folder into its input; the recompute reads it where it is."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        self.count = 0

    def stage(self, batch: pd.DataFrame) -> Staged:
        """``batch``'s ``k, v, w`` as one Parquet file in a folder of its own."""
        self.count += 1
        folder = os.path.join(self.directory, f"batch-{self.count:06d}")
        os.makedirs(folder)
        batch[["k", "v", "w"]].to_parquet(os.path.join(folder, "part-0.parquet"), index=False)
        return Staged("file://" + folder, len(batch))


class SparkReduce:
    """The Spark incremental reduce engine (:data:`SPARK_REDUCE_ENGINE`)."""

    role = "incremental"

    def __init__(self, spark: Any, kind: str, staging: str) -> None:
        self.spark, self.kind = spark, kind
        self.name = f"spark-{kind}"
        self.engine: Any = None
        self.stage = Staging(staging).stage

    def _engine(self) -> Any:
        return SPARK_REDUCE_ENGINE(self.spark, spark_reducer(self.kind), "bigint", "bigint")

    def load(self, table: Table) -> None:
        from pyspark.sql import functions as F

        self.engine = self._engine()
        df = self.spark.read.parquet(table.path).select("k", "v", F.lit(1).cast("bigint").alias("w"))
        self.engine.load(df, rows=len(table.frame), values=len(table.frame))

    def apply(self, batch: Staged) -> None:
        """Apply a batch staged by :meth:`stage` (the folder is moved into the engine's input)."""
        self.engine.apply_folder(batch.url)

    def settle(self) -> None:
        pass

    def stop(self) -> None:
        """Stop the engine's streaming query, if any: an idle query still looks for input
        every 10 ms, on the cores the next engine is measured on."""
        if self.engine is not None:
            self.engine.stop()

    def stored(self) -> dict[str, float]:
        from pyspark.sql import functions as F

        if hasattr(self.engine, "stored_sizes"):
            return {k: float(v) for k, v in self.engine.stored_sizes().items()}
        rows = self.engine.store.all().where(F.col("w") > 0)
        return {"rows": float(rows.count()), "keys": float(self.engine.view().count())}


class SparkNative(SparkReduce):
    """Spark's own streaming aggregation of the same sums, fed and stepped as the engine is
    (:mod:`benchmarks.native_aggregation`): the floor of one stateful micro-batch. It stores
    keys, not ``(k, v)`` rows (:attr:`holds`)."""

    role = "floor"
    #: the stored sizes it holds (the others: rows and keys)
    holds = ("keys",)

    def __init__(self, spark: Any, staging: str) -> None:
        super().__init__(spark, "builtin", staging)
        self.name = "spark-native"

    def _engine(self) -> Any:
        from benchmarks.native_aggregation import NativeAggregationRunner

        return SteppedView(self.spark, spark_reducer("builtin"), "bigint", "bigint",
                           runner=NativeAggregationRunner)


class SparkBulk(SparkReduce):
    """A view on another path: ``bulk`` (:class:`~spark_impl.reduce.bulk_view.BulkViewRunner`:
    state in tables, each batch merged in bulk, a staged folder read where it is) or
    ``adaptive`` (:class:`~spark_impl.reduce.adaptive_view.AdaptiveViewRunner`: either, per
    batch); of the reducer ``kind`` (:func:`spark_reducer`; named ``spark-bulk-python`` and
    the like when not ``builtin``)."""

    def __init__(self, spark: Any, staging: str, path: str = "bulk", kind: str = "builtin") -> None:
        super().__init__(spark, kind, staging)
        self.name = f"spark-{path}" if kind == "builtin" else f"spark-{path}-{kind}"
        self.path = path

    def _engine(self) -> Any:
        from spark_impl.reduce.adaptive_view import AdaptiveViewRunner
        from spark_impl.reduce.bulk_view import BulkViewRunner

        runner = BulkViewRunner if self.path == "bulk" else AdaptiveViewRunner
        return SteppedView(self.spark, spark_reducer(self.kind), "bigint", "bigint", runner=runner)


class SparkRecompute:
    """Native recompute: ``groupBy(k).agg(sum(v·w), sum(w))`` (exact, :data:`EXACT`) over the stored rows,
    materialised, once per batch. The rows are the same Parquet table plus the
    batches (a checkpointed base and the pending batches, each read from its staged
    Parquet folder; merged, untimed, when the pending part passes 10% of the base)."""

    name = "spark-recompute"
    role = "recompute"

    def __init__(self, spark: Any, staging: str) -> None:
        self.spark = spark
        self.stage = Staging(staging).stage
        self.base: Any = None
        self.pending: list[Any] = []
        self.pending_rows = 0
        self.base_rows = 0

    def _all(self) -> Any:
        from functools import reduce as fold

        return fold(lambda a, b: a.unionByName(b), [self.base, *self.pending])

    def load(self, table: Table) -> None:
        from pyspark.sql import functions as F

        self.base = _materialise(self.spark.read.parquet(table.path)
                                 .select("k", "v", F.lit(1).cast("bigint").alias("w")))
        self.base_rows = len(table.frame)
        self.pending, self.pending_rows = [], 0
        self._recompute()

    def _recompute(self) -> Any:
        from pyspark.sql import functions as F

        return _materialise(self._all().groupBy("k").agg(
            F.sum(F.col("v").cast(EXACT) * F.col("w").cast(EXACT)).alias("a0"),
            F.sum(F.col("w").cast(EXACT)).alias("n")).where(F.col("n") > 0))

    def apply(self, batch: Staged) -> None:
        """Apply a batch staged by :meth:`stage`: its rows join the pending ones, then recompute."""
        # the schema given, as the incremental engine's file source has it: no inference job
        self.pending.append(self.spark.read.schema(BATCH_SCHEMA).parquet(batch.url))
        self.pending_rows += batch.rows
        self._recompute()

    def settle(self) -> None:
        from pyspark.sql import functions as F

        if self.pending_rows > 0.1 * max(self.base_rows, 1):
            self.base = _materialise(self._all().groupBy("k", "v").agg(F.sum("w").alias("w"))
                                     .where(F.col("w") != 0))
            self.base_rows = self.base.count()
            self.pending, self.pending_rows = [], 0

    def stored(self) -> dict[str, float]:
        from pyspark.sql import functions as F

        rows = self._all().groupBy("k", "v").agg(F.sum("w").alias("w")).where(F.col("w") > 0)
        return {"rows": float(rows.count()), "keys": float(rows.select("k").distinct().count())}


class SparkReach:
    """The Spark incremental reachability engine (:data:`SPARK_REACH_ENGINE`)."""

    name = "spark-fixpoint"
    role = "incremental"

    def __init__(self, spark: Any) -> None:
        self.spark = spark
        self.engine: Any = None

    def make(self, graph: Graph) -> None:
        self.engine = SPARK_REACH_ENGINE(self.spark, "bigint")
        roots = self.spark.createDataFrame([(r,) for r in graph.roots], "node bigint")
        self.engine.make(roots, self.spark.read.parquet(graph.edges.path).select("src", "dst"))

    def apply(self, change: GraphChange) -> None:
        self.engine.apply(add_edges=change.add_edges(), remove_edges=change.remove_edges())

    def settle(self) -> None:
        pass

    def stored(self) -> dict[str, float]:
        from pyspark.sql import functions as F

        if hasattr(self.engine, "stored_sizes"):
            return {k: float(v) for k, v in self.engine.stored_sizes().items()}
        edges = self.engine.edges.all().where(F.col("w") > 0).count()
        return {"edges": float(edges), "live": float(self.engine.current().count())}


class _SparkEdges:
    """Edges as a checkpointed base (the Parquet table) plus pending signed batches."""

    def __init__(self, spark: Any) -> None:
        self.spark = spark
        self.base: Any = None
        self.pending: list[Any] = []
        self.pending_rows = 0
        self.base_rows = 0

    def load(self, table: Table) -> None:
        from pyspark.sql import functions as F

        self.base = _materialise(self.spark.read.parquet(table.path)
                                 .select("src", "dst", F.lit(1).cast("bigint").alias("w")))
        self.base_rows = len(table.frame)
        self.pending, self.pending_rows = [], 0

    def add(self, change: GraphChange) -> None:
        frame = pd.concat([change.removed[["src", "dst"]].assign(w=-1),
                           change.added[["src", "dst"]].assign(w=1)], ignore_index=True)
        self.pending.append(self.spark.createDataFrame(frame.astype("int64")))
        self.pending_rows += len(frame)

    def current(self) -> Any:
        from functools import reduce as fold

        from pyspark.sql import functions as F

        if not self.pending:
            return self.base.select("src", "dst")
        rows = fold(lambda a, b: a.unionByName(b), [self.base, *self.pending])
        return rows.groupBy("src", "dst").agg(F.sum("w").alias("w")).where(F.col("w") > 0)

    def compact(self) -> None:
        from pyspark.sql import functions as F

        if self.pending_rows > 0.1 * max(self.base_rows, 1):
            self.base = _materialise(self.current().select("src", "dst", F.lit(1).cast("bigint").alias("w")))
            self.base_rows = self.base.count()
            self.pending, self.pending_rows = [], 0


class SparkReachRecompute:
    """Recompute from scratch: the engine's ``make`` (semi-naive BFS rounds as
    DataFrame joins) over the current edges, once per batch."""

    name = "spark-recompute"
    role = "recompute"

    def __init__(self, spark: Any) -> None:
        self.spark = spark
        self.edges = _SparkEdges(spark)
        self.live: Any = None
        self.roots: Any = None

    def _recompute(self) -> None:
        engine = SPARK_REACH_ENGINE(self.spark, "bigint")
        self.live, _ = engine.make(self.roots, self.edges.current())

    def make(self, graph: Graph) -> None:
        self.roots = self.spark.createDataFrame([(r,) for r in graph.roots], "node bigint")
        self.edges.load(graph.edges)
        self._recompute()

    def apply(self, change: GraphChange) -> None:
        self.edges.add(change)
        self._recompute()

    def settle(self) -> None:
        self.edges.compact()

    def stored(self) -> dict[str, float]:
        return {"edges": float(self.edges.current().count()), "live": float(self.live.count())}


def zset_edges(df: Any, weight: int) -> Any:
    """``(src, dst)`` rows as a Z-set collection ``(e, w)``: ``e`` the pair's JSON text."""
    from pyspark.sql import functions as F

    return df.select(F.concat(F.lit("["), F.col("src").cast("string"), F.lit(","),
                              F.col("dst").cast("string"), F.lit("]")).alias("e"),
                     F.lit(weight).cast("bigint").alias("w"))


class SparkZSetReach:
    """Reachability as a Z-set program with ``iterate`` on the Spark Z-set engine."""

    name = "spark-zset"
    role = "incremental"

    def __init__(self, spark: Any) -> None:
        self.spark = spark
        self.flow: Any = None

    def _edge_rows(self, df: Any, weight: int) -> Any:
        return zset_edges(df, weight)

    def make(self, graph: Graph) -> None:
        from spark_impl.zset.dataflow import Program, ZSetDataflow

        self.flow = ZSetDataflow(self.spark, Program.from_json(REACH_PROGRAM))
        roots = self.spark.createDataFrame([(str(r), 1) for r in graph.roots], "e string, w bigint")
        self.flow.step({"roots": roots, "edges": self._edge_rows(self.spark.read.parquet(graph.edges.path), 1)})

    def apply(self, change: GraphChange) -> None:
        removed = self._edge_rows(self.spark.createDataFrame(change.removed[["src", "dst"]]), -1)
        added = self._edge_rows(self.spark.createDataFrame(change.added[["src", "dst"]]), 1)
        self.flow.step({"edges": removed.unionByName(added)})

    def settle(self) -> None:
        pass

    def stored(self) -> dict[str, float]:
        from pyspark.sql import functions as F

        edges = self.flow.inputs["edges"].where(F.col("w") > 0).count()
        live = self.flow.integrated[()].where(F.col("w") > 0).count()
        return {"edges": float(edges), "live": float(live)}


# --- the reference oracle ------------------------------------------------------------

ORACLE_REDUCER: Reducer[Any, Any] = Reducer((0, 0), _add, _remove, name="sum_count")


def _collection(frame: pd.DataFrame) -> dict[Any, Multiset]:
    grouped: dict[Any, list[Any]] = {}
    for k, v in zip(frame["k"].tolist(), frame["v"].tolist(), strict=True):
        grouped.setdefault(k, []).append(v)
    return {k: Multiset.from_iterable(vs) for k, vs in grouped.items()}


def _delta(batch: pd.DataFrame) -> Delta:
    plus = batch[batch["w"] > 0]
    minus = batch[batch["w"] < 0]
    return Delta(plus=_collection(plus), minus=_collection(minus))


class OracleReduce:
    """``reference.skip``: ``update`` on the touched keys (incremental) or
    ``reduce`` of the whole collection (naive); both keep ``C • Δ`` with ``apply_delta``."""

    def __init__(self, incremental: bool) -> None:
        self.incremental = incremental
        self.name = "oracle-incremental" if incremental else "oracle-naive"
        self.role = self.name
        self.C: Mapping[Any, Multiset] = {}
        self.view: dict[Any, Any] = {}

    def load(self, table: Table) -> None:
        self.C = _collection(table.frame)
        self.view = reduce(ORACLE_REDUCER, self.C)

    def apply(self, batch: pd.DataFrame) -> None:
        delta = _delta(batch)
        after = apply_delta(self.C, delta)  # refuses an invalid delta
        if self.incremental:
            for k in delta.keys():
                if k in after:
                    self.view[k] = update(ORACLE_REDUCER, self.view.get(k, ORACLE_REDUCER.initial), delta, k)
                else:
                    self.view.pop(k, None)
        else:
            self.view = reduce(ORACLE_REDUCER, after)
        self.C = after

    def settle(self) -> None:
        pass

    def stored(self) -> dict[str, float]:
        rows = sum(len(set(m.elements())) for m in self.C.values())
        return {"rows": float(rows), "keys": float(len(self.view))}


class OracleReach:
    """``reference.fixpoint``: ``ManagedFixpoint.apply`` (incremental) or
    ``live_set`` by Kleene iteration over the current edges (naive)."""

    def __init__(self, incremental: bool) -> None:
        self.incremental = incremental
        self.name = "oracle-incremental" if incremental else "oracle-naive"
        self.role = self.name
        self.fx: ManagedFixpoint | None = None
        self.roots: list[int] = []
        self.edges: set[tuple[int, int]] = set()
        self.live: frozenset[Any] = frozenset()

    def make(self, graph: Graph) -> None:
        self.roots = list(graph.roots)
        frame = graph.edges.frame
        self.edges = set(zip(frame["src"].tolist(), frame["dst"].tolist(), strict=True))
        if self.incremental:
            self.fx, _ = ManagedFixpoint.make(self.roots, self.edges)
            self.live = self.fx.current
        else:
            self.live = live_set(self.roots, self.edges)

    def apply(self, change: GraphChange) -> None:
        gone, new = change.remove_edges(), change.add_edges()
        self.edges.difference_update(gone)
        self.edges.update(new)
        if self.incremental:
            assert self.fx is not None
            self.fx, _ = self.fx.apply(Change(add_edges=tuple(new), remove_edges=tuple(gone)))
            self.live = self.fx.current
        else:
            self.live = live_set(self.roots, self.edges)

    def settle(self) -> None:
        pass

    def stored(self) -> dict[str, float]:
        return {"edges": float(len(self.edges)), "live": float(len(self.live))}


# --- peers, each in a child process of its own environment ---------------------------


#: the repository's root: a peer's child imports ``benchmarks`` from it
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@dataclass(frozen=True)
class PeerEnv:
    """Where a peer engine runs: the module its child runs (``python -m``), the variable that
    names its interpreter, the environment ``incspec engines install`` makes for it (under
    ``.engines/``), and what its interpreter must import (the first module's ``__version__``
    or distribution version is the engine's)."""

    label: str  # the engine's name in messages
    module: str  # the child: python -m MODULE
    variable: str  # $VARIABLE: its interpreter, when set
    installed: str  # .engines/INSTALLED/bin/python
    imports: tuple[str, ...]  # what must import there
    version_code: str  # prints the engine's version

    def python(self) -> str:
        """The interpreter the child runs in: ``$variable``, else the environment
        ``incspec engines install`` made (``.engines/<installed>``), else this one. A separate
        environment keeps the engine's pins out of Spark's."""
        chosen = os.environ.get(self.variable)
        if chosen:
            return chosen
        installed = os.path.join(REPO, ".engines", self.installed, "bin", "python")
        return installed if os.path.exists(installed) else sys.executable

    def version(self) -> str | None:
        """The engine's version in :meth:`python`, or None where it does not import."""
        try:
            proc = subprocess.run([self.python(), "-c", self.version_code],
                                  capture_output=True, text=True, timeout=300)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return proc.stdout.strip() or None if proc.returncode == 0 else None

    def available(self) -> str | None:
        """None when the engine imports in :meth:`python`; else why not."""
        try:
            proc = subprocess.run([self.python(), "-c", "import " + ", ".join(self.imports)],
                                  capture_output=True, text=True, timeout=300)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"{type(exc).__name__}: {exc}"
        if proc.returncode != 0:
            lines = proc.stderr.strip().splitlines()
            return f"{self.python()}: {lines[-1] if lines else f'exit {proc.returncode}'}"
        return None

    def run(self, request: dict[str, Any], extra_env: dict[str, str], timeout_s: float) -> dict[str, Any]:
        """Run the child on ``request`` (JSON on its stdin); its last JSON line, parsed."""
        env = dict(os.environ, PYTHONPATH=REPO, **extra_env)
        proc = subprocess.run([self.python(), "-m", self.module], input=json.dumps(request),
                              capture_output=True, text=True, timeout=timeout_s, env=env, cwd=REPO)
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
        if proc.returncode != 0 or not lines:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
            raise RuntimeError(f"{self.label} child failed (exit {proc.returncode}): " + " | ".join(tail))
        result: dict[str, Any] = json.loads(lines[-1])
        return result


def peer_request(workload: ReduceWorkload | GraphWorkload, variant: str,
                 schedule: list[tuple[int, int]]) -> dict[str, Any]:
    """What a peer's child reads on stdin: the workload to regenerate, the variant, the batches."""
    return {"workload": asdict(workload),
            "kind": "reduce" if isinstance(workload, ReduceWorkload) else "graph",
            "variant": variant, "schedule": schedule}


PATHWAY = PeerEnv("pathway", "benchmarks.pathway_peer", "INCSPEC_PATHWAY_PYTHON", "pathway",
                  ("pathway", "numpy", "pandas"), "import pathway; print(pathway.__version__)")
FLINK = PeerEnv("flink", "benchmarks.flink_peer", "INCSPEC_FLINK_PYTHON", "flink",
                ("pyflink.table", "numpy", "pandas"),
                "from importlib.metadata import version; print(version('apache-flink'))")


@dataclass(frozen=True)
class PathwayPeer:
    """pathway on the same seeded stream: the child regenerates the workload, feeds it
    through a Python connector (one commit per batch) and times each batch from the
    first row handed over to the end of its output (see :mod:`benchmarks.pathway_peer`)."""

    variant: str  # reduce: builtin | custom; reach: iterate
    threads: int = 2
    timeout_s: float = 3600.0

    @property
    def name(self) -> str:
        return f"pathway-{self.variant}"

    role = "peer"

    def run(self, workload: ReduceWorkload | GraphWorkload,
            schedule: list[tuple[int, int]]) -> dict[str, Any]:
        return PATHWAY.run(peer_request(workload, self.variant, schedule),
                           {"PATHWAY_THREADS": str(self.threads)}, self.timeout_s)


@dataclass(frozen=True)
class FlinkPeer:
    """Apache Flink (PyFlink) on the same seeded stream, reduce only: the child regenerates the
    workload, hands each batch to a streaming ``GROUP BY`` as a Debezium changelog file with a
    marker row, at parallelism 1, and times it until the marker's result is out (see
    :mod:`benchmarks.flink_peer`)."""

    variant: str  # builtin | custom
    timeout_s: float = 3600.0

    @property
    def name(self) -> str:
        return f"flink-{self.variant}"

    role = "peer"

    def run(self, workload: ReduceWorkload | GraphWorkload,
            schedule: list[tuple[int, int]]) -> dict[str, Any]:
        if not isinstance(workload, ReduceWorkload):
            raise ValueError("the Flink peer runs the reduce workload only")
        return FLINK.run(peer_request(workload, self.variant, schedule), {}, self.timeout_s)


def pathway_python() -> str:
    """The interpreter the pathway child runs in: ``$INCSPEC_PATHWAY_PYTHON``, else
    ``.engines/pathway`` (``incspec engines install pathway``), else this one (``pip install .[bench]``)."""
    return PATHWAY.python()


def pathway_version() -> str | None:
    """pathway's version in :func:`pathway_python`, or None where it does not import."""
    return PATHWAY.version()


def pathway_available() -> str | None:
    """None when pathway imports in :func:`pathway_python`; else why not."""
    return PATHWAY.available()


def flink_python() -> str:
    """The interpreter the Flink child runs in: ``$INCSPEC_FLINK_PYTHON``, else ``.engines/flink``
    (``incspec engines install flink``), else this one."""
    return FLINK.python()


def flink_version() -> str | None:
    """apache-flink's version in :func:`flink_python`, or None where PyFlink does not import."""
    return FLINK.version()


def flink_available() -> str | None:
    """None when PyFlink imports in :func:`flink_python`; else why not."""
    return FLINK.available()
