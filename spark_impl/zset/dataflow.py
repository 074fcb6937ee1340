"""The Z-set dataflow language on Spark, evaluated by the delta rules of
differential dataflow over nested times (DD-CLAIM-RULE-LINEAR, -JOIN,
-DISTINCT, -REDUCE, -ITERATE).

A collection is a DataFrame ``(e, w)``: the canonical JSON text of an element
and its non-zero integer weight. A program (the suite's JSON syntax: ``input``,
``map``, ``filter``, ``join``, ``distinct``, ``reduce``, ``plus``/``union``,
``negate``, ``iterate``, ``var``) is fed one delta per input at each version;
:meth:`ZSetDataflow.step` returns the output delta
``output(t) - output(t - 1)``.

Times. A node outside loops lives at times ``(τ,)`` (the version); a node in
the body of ``k`` nested loops at ``(τ, i_1, .., i_k)`` in ``N^(k+1)`` with the
product order. A collection the rules read again keeps its *trace*
(:class:`Trace`): its non-zero difference at each time, one materialised piece
per time plus a compacted base with time columns ``t0, t1, ..`` next to
``(e, w)``; the set of times is known to the driver (small control values),
the data stays in Spark. A step evaluates every node at the current version's
times only, from its children's differences at those times and the traces of
earlier times:

* linear operators (``map``, ``filter``, ``negate``, ``plus``) map the
  difference at the time: ``δf(c)_t = f(δc_t)`` (DD-CLAIM-RULE-LINEAR);
* ``join``: ``δ(c ⋈ d)_t = Σ_{r ∨ s = t} c_r ⋈ d_s`` (DD-CLAIM-RULE-JOIN), the
  pairs of times found on the driver, the rows joined on the key (stored in
  the trace) with the time columns carried and filtered by
  ``greatest(r_i, s_i) = t_i``; split into the pairs whose left time is at the
  current version and the rest (whose right time is), the stored (earlier)
  side first cut to the keys of the current side by a broadcast semi-join
  when that side is small (at most ``SEMI_JOIN_LIMIT`` rows);
* ``distinct`` and ``reduce`` (DD-CLAIM-RULE-DISTINCT, -REDUCE) run on the keys
  affected at ``t`` only (a key is affected iff for every coordinate ``i`` it has
  a difference at some ``u <= t`` with ``u_i = t_i``), and combine the ``2^d``
  corner times with Möbius signs:
  ``δ_t = Σ_{ε ∈ {0,1}^d} (-1)^|ε| op(S(c)_{t-ε} restricted to the keys)``, in
  one aggregation grouped by a corner column;
* ``iterate`` (DD-CLAIM-RULE-ITERATE): the loop variable is
  ``d = in(seed) + fb(body)``, so ``δd_(τ,0) = δseed_τ``,
  ``δd_(τ,1) = δbody_(τ,0) - δseed_τ``, ``δd_(τ,i) = δbody_(τ,i-1)``; the body
  runs at ``(τ, 0), (τ, 1), ..`` until the variable's next difference is zero
  *and* no earlier time (any earlier version, or earlier outer iteration) has
  differences at a later iteration; the egress is ``Σ_i δd_(τ,i)``. Inputs
  and outer variables are constant across inner iterations (their difference
  lives at inner coordinate 0). A difference known to be zero from the
  driver's sets of times costs no Spark job, so a change after convergence
  does work only at the times it affects (:attr:`ZSetDataflow.work` counts it).

Traces are append-only (a step adds pieces, it does not rewrite stored
collections) and compacted every ``COMPACT_EVERY`` pieces: times whose version
is done are advanced to that version (indistinguishable for every later time)
and consolidated. They are not partitioned by key: ``distinct``/``reduce``
compute on the affected keys only, but Spark still scans the trace up to
``t`` to find their rows (a semi-join with the keys), and a join scans the
stored side to cut it to the current side's keys. Element functions (map functions, predicates) run in pandas
UDFs (Arrow), and so does the split of a pair into its key and value, once, where the pair
enters the trace a join or a reduce reads (the trace keeps both: a Python evaluation is some
40 ms a task even on tiny data, and a join's every evaluation read both sides' values);
keys, values, weights, times and aggregates are native Spark columns from there on. A
function applied to an element of the wrong shape fails the step with
``malformed-input``; a loop with ``X_m != X_(m-1)`` (``m = max_iterations``)
with ``no-fixpoint``. A failed step leaves the state as it was (a step works
on copies of the traces).

Storage. Within a step, a new piece is a local checkpoint (computed and counted
in one job; the step's rounds read it). What outlives the step, the traces'
pieces and bases, the input and output logs and the output delta, is written
to the session's checkpoint location (:class:`~spark_impl.storage.frames.KeptFrames`)
before the step commits: a compacted base as a table of its own, then the step's
new pieces, output and log parts together as one table (one job), the traces
then reading the tables' files, not the executors' blocks. When the step
commits (or fails) the tables no kept frame reads any more are deleted; the
output delta stays readable until the next step. Scratch of one step (the
loop variable's difference at iteration 1, the affected keys of a keyed rule)
stays local.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import reduce as fold_left
from itertools import product
from typing import Any

import pandas as pd
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.pandas.functions import pandas_udf

from spark_impl.connect import require_jvm
from spark_impl.driver_rows import frame_of_rows
from spark_impl.errors import SparkEngineError, with_restarts
from spark_impl.join_scope import without_broadcasts
from spark_impl.storage.frames import KeptFrames, materialise_counted, union_all, union_coalesced
from spark_impl.values import decode, encode
from spark_impl.zset.named_functions import AGGREGATES, MAP_FUNCTIONS, MARKER, key_of
from spark_impl.zset.named_functions import FILTER_PREDICATES as PREDICATES

DEFAULT_MAX_ITERATIONS = 100
SCHEMA = "e string, w bigint"

Node = Mapping[str, Any]
Path = tuple[int, ...]


# --- element functions as pandas UDFs ----------------------------------------------


def _udf(fn: Callable[[pd.Series], pd.Series], return_type: str) -> Any:
    """A vectorised (Arrow) UDF of a Series function."""
    return pandas_udf(fn, return_type)  # type: ignore[call-overload]


def _map_udf(fn: str) -> Any:
    f = MAP_FUNCTIONS[fn]
    return _udf(lambda s: s.map(lambda text: encode(f(decode(text)))), "string")


def _filter_udf(pred: str) -> Any:
    p = PREDICATES[pred]
    return _udf(lambda s: s.map(lambda text: bool(p(decode(text)))), "boolean")


def _pair_udf(op: str) -> Any:
    """The key and the value of a pair element, as JSON texts (a struct ``k, v``): one Python
    evaluation gives both, where the element enters the trace a keyed operator reads."""

    def parts(texts: pd.Series) -> pd.DataFrame:
        pairs = [(encode(key_of(x, op)), encode(x[1])) for x in map(decode, texts)]
        return pd.DataFrame(pairs, columns=["k", "v"], dtype=object)

    return _udf(parts, "k string, v string")


# --- Z-set operations on DataFrames ----------------------------------------------------


def consolidate(df: DataFrame) -> DataFrame:
    return df.groupBy("e").agg(F.sum("w").alias("w")).where(F.col("w") != 0)


def negate(df: DataFrame) -> DataFrame:
    return df.select("e", (-F.col("w")).alias("w"))


def plus(*frames: DataFrame) -> DataFrame:
    return union_all([f.select("e", "w") for f in frames])


def _integer(v: Column, agg: str) -> Column:
    return F.when(~v.rlike(r"^-?[0-9]+$"),
                  F.raise_error(F.concat(F.lit(f"{MARKER}: {agg} expects an int, got "), v))) \
        .otherwise(v).cast("decimal(38,0)")


# --- times (N^d, the product order) -------------------------------------------------------

Time = tuple[int, ...]


def tcols(depth: int) -> list[str]:
    return [f"t{i}" for i in range(depth)]


def leq(s: Time, t: Time) -> bool:
    return all(a <= b for a, b in zip(s, t, strict=True))


def sup(s: Time, t: Time) -> Time:
    """``s ∨ t``: the coordinate-wise max."""
    return tuple(max(a, b) for a, b in zip(s, t, strict=True))


def corners(t: Time) -> list[tuple[Time, int]]:
    """The ``t - ε`` (``ε ∈ {0,1}^d``, non-negative) with the Möbius sign ``(-1)^|ε|``."""
    out = []
    for eps in product((0, 1), repeat=len(t)):
        u = tuple(a - b for a, b in zip(t, eps, strict=True))
        if min(u) >= 0:
            out.append((u, -1 if sum(eps) % 2 else 1))
    return out


def _below(prefix: str, depth: int, t: Time) -> Column:
    """The rows whose time (columns ``prefix + t_i``) is ``<= t``."""
    return fold_left(lambda a, b: a & b, [F.col(f"{prefix}t{i}") <= t[i] for i in range(depth)], F.lit(True))


COMPACT_EVERY = 16
#: The most rows of a probe broadcast to cut a stored trace to its keys.
SEMI_JOIN_LIMIT = 10_000


class Trace:
    """The differences of one collection by time (DD's trace): an append-only map
    from each time to its materialised, consolidated, non-zero difference
    (``e, w``; the key ``k`` when a keyed operator reads it, and a pair's value ``v`` when
    that operator is a join or a reduce), and a compacted *base* ``(e, w, [k, [v,]] t0, ..)``
    into which the pieces are folded every
    :data:`COMPACT_EVERY` times. The set of times is known to the driver (small
    control values); the data stays in Spark.

    Compaction advances every time to the frontier: once version ``τ`` is done,
    the times ``u`` with ``u_0 <= τ`` are indistinguishable for every later time
    (comparisons and joins with a time whose first coordinate is ``> τ``), so
    they are stored as ``(τ, u_1, ..)``, consolidated (DD's trace compaction).
    """

    def __init__(self, spark: SparkSession, depth: int, columns: tuple[str, ...] = ("e", "w")) -> None:
        self.spark = spark
        self.depth = depth
        #: ``e, w``, with the key ``k`` when a keyed operator reads it, and the value ``v`` when
        #: that operator (``join``, ``reduce``) reads a pair's value
        self._columns = columns
        self.pieces: dict[Time, DataFrame] = {}
        self.base: DataFrame | None = None
        self.base_times: frozenset[Time] = frozenset()
        self.sizes: dict[Time, int] = {}  # rows per piece
        self.base_size = 0

    def copy(self) -> Trace:
        other = Trace(self.spark, self.depth, self._columns)
        other.pieces = dict(self.pieces)
        other.base, other.base_times = self.base, self.base_times
        other.sizes, other.base_size = dict(self.sizes), self.base_size
        return other

    def columns(self) -> list[str]:
        return list(self._columns)

    def times(self) -> set[Time]:
        return set(self.pieces) | set(self.base_times)

    def at(self, t: Time) -> DataFrame | None:
        """The difference at exactly ``t`` (``None``: zero)."""
        if t in self.pieces:
            return self.pieces[t].select("e", "w")
        if t in self.base_times and self.base is not None:
            cond = fold_left(lambda a, b: a & b, [F.col(c) == v for c, v in zip(tcols(self.depth), t, strict=True)])
            return self.base.where(cond).select("e", "w")
        return None

    def rows(self, times: set[Time]) -> DataFrame | None:
        """The differences at ``times``, with their time columns ``t0, ..``."""
        cols = self.columns()
        frames = [piece.select(*cols, *[F.lit(v).cast("int").alias(c) for c, v in zip(tcols(self.depth), u, strict=True)])
                  for u, piece in self.pieces.items() if u in times]
        wanted = self.base_times & times
        if self.base is not None and wanted:
            if wanted == self.base_times:
                frames.append(self.base)
            else:
                keep = frame_of_rows(self.spark, sorted(wanted), ", ".join(f"{c} int" for c in tcols(self.depth)))
                frames.append(self.base.join(F.broadcast(keep), tcols(self.depth), "left_semi"))
        # coalesced: the pieces' partitions together grow with the versions and iterations kept
        return union_coalesced([f.select(*cols, *tcols(self.depth)) for f in frames]) if frames else None

    def add(self, t: Time, diff: DataFrame, size: int) -> None:
        self.pieces[t] = diff
        self.sizes[t] = size

    def size(self, times: set[Time]) -> int:
        """An upper bound on the rows at ``times`` (control values kept with the pieces)."""
        return sum(self.sizes[u] for u in times if u in self.sizes) + \
            (self.base_size if self.base_times & times else 0)

    def frames(self) -> list[DataFrame]:
        """The frames the trace holds (its pieces and its base)."""
        return [*self.pieces.values(), *([] if self.base is None else [self.base])]

    def compact(self, version: int, kept: KeptFrames) -> None:
        """Fold the pieces into the base once there are :data:`COMPACT_EVERY` of them
        (the base written to reliable storage here)."""
        if len(self.pieces) < COMPACT_EVERY:
            return
        everything = self.rows(self.times())
        assert everything is not None
        keys = [c for c in self._columns if c != "w"]  # k and v: functions of e
        inner = tcols(self.depth)[1:]
        folded = everything.groupBy(*keys, *inner).agg(F.sum("w").alias("w")).where(F.col("w") != 0) \
            .select(*self.columns(), F.lit(version).cast("int").alias("t0"), *inner)
        (self.base,), self.base_size = kept.write([folded])
        # the base's distinct times only (control values, a handful per version), not its rows
        self.base_times = frozenset(tuple(int(r[c]) for c in tcols(self.depth))
                                    for r in self.base.select(*tcols(self.depth)).distinct().collect())
        self.pieces, self.sizes = {}, {}


# --- operators on differences by time ------------------------------------------------------


def trace_columns(kind: str | None) -> tuple[str, ...]:
    """The columns of a trace read by an operator of ``kind`` (none: a linear one's, a loop's)."""
    return ("e", "w") if kind is None else ("e", "w", "k") if kind == "distinct" else ("e", "w", "k", "v")


def _with_key(df: DataFrame, kind: str) -> DataFrame:
    """``df (e, w)`` with its key ``k``: the element (distinct), or its first component and
    the second as ``v`` (join, reduce)."""
    if kind == "distinct":
        return df.select("e", "w", F.col("e").alias("k"))
    return df.select("e", "w", _pair_udf(kind)(F.col("e")).alias("p")).select("e", "w", "p.k", "p.v")


def join_timed(left: DataFrame, right: DataFrame, t: Time, partitions: int) -> DataFrame:
    """``Σ c_r ⋈ d_s`` over the rows of the two traces whose times join to ``t``
    (``r ∨ s = t``); both sides keyed by ``k`` (stored) and hash partitioned on it."""
    d = len(t)
    lk = left.select("k", "v", "w",
                     *[F.col(c).alias("l" + c) for c in tcols(d)]).repartition(partitions, "k")
    rk = right.select("k", F.col("v").alias("b"), F.col("w").alias("wb"),
                      *[F.col(c).alias("r" + c) for c in tcols(d)]).repartition(partitions, "k")
    at_t = fold_left(lambda a, b: a & b, [F.greatest(F.col("l" + c), F.col("r" + c)) == v
                                          for c, v in zip(tcols(d), t, strict=True)])
    joined = lk.join(rk, "k").where(at_t)
    return joined.select(F.concat(F.lit("["), "k", F.lit(",["), "v", F.lit(","), "b", F.lit("]]")).alias("e"),
                         (F.col("w") * F.col("wb")).alias("w"))


def distinct_by_corner(df: DataFrame) -> DataFrame:
    """``distinct`` of each corner's collection (column ``c``)."""
    return df.groupBy("c", "e").agg(F.sum("w").alias("w")).where(F.col("w") > 0) \
        .select("c", "e", F.lit(1).cast("bigint").alias("w"))


def reduce_by_corner(df: DataFrame, agg: str) -> DataFrame:
    """``reduce`` of each corner's collection (column ``c``; rows keyed by ``k``, values ``v``)."""
    pairs = df.select("c", "k", "v", "w") \
        .groupBy("c", "k", "v").agg(F.sum("w").alias("w")).where(F.col("w") != 0)
    if agg == "count":
        value = F.sum("w").cast("string")
    elif agg == "sum":
        value = F.sum(F.col("w") * _integer(F.col("v"), agg)).cast("string")
    else:
        extremum = F.min if agg == "min" else F.max
        value = extremum(_integer(F.col("v"), agg)).cast("string")
    grouped = pairs.groupBy("c", "k").agg(value.alias("a"))
    return grouped.select("c", F.concat(F.lit("["), "k", F.lit(","), "a", F.lit("]")).alias("e"),
                          F.lit(1).cast("bigint").alias("w"))


# --- programs ------------------------------------------------------------------------


def _fail(message: str) -> SparkEngineError:
    return SparkEngineError("malformed-input", message)


def children(node: Node) -> list[tuple[int, Node]]:
    op = node.get("op")
    if op in ("map", "filter", "distinct", "reduce", "negate"):
        return [(0, node["arg"])]
    if op in ("join", "plus", "union"):
        return [(0, node["left"]), (1, node["right"])]
    if op == "iterate":
        return [(0, node["seed"]), (1, node["body"])]
    return []


def validate(node: Any, inputs: tuple[str, ...], bound: frozenset[str]) -> None:
    if not isinstance(node, Mapping):
        raise _fail(f"a node is a JSON object, got {node!r}")
    op = node.get("op")
    needs: dict[str, tuple[str, ...]] = {
        "input": ("name",), "var": ("name",), "map": ("fn", "arg"), "filter": ("pred", "arg"),
        "join": ("left", "right"), "distinct": ("arg",), "reduce": ("agg", "arg"),
        "plus": ("left", "right"), "union": ("left", "right"), "negate": ("arg",),
        "iterate": ("var", "seed", "body"),
    }
    if op not in needs:
        raise _fail(f"unknown op {op!r}")
    for name in needs[op]:
        if name not in node:
            raise _fail(f"{op!r} needs {name!r}")
    for name in ("name", "fn", "pred", "agg", "var"):
        if name in needs[op] and not isinstance(node[name], str):
            raise _fail(f"{op!r} needs {name!r}: str")
    if op == "input" and node["name"] not in inputs:
        raise _fail(f"undeclared input {node['name']!r}")
    if op == "var" and node["name"] not in bound:
        raise _fail(f"unbound var {node['name']!r}")
    if op == "map" and node["fn"] not in MAP_FUNCTIONS:
        raise _fail(f"unknown map fn {node['fn']!r}")
    if op == "filter" and node["pred"] not in PREDICATES:
        raise _fail(f"unknown filter pred {node['pred']!r}")
    if op == "reduce" and node["agg"] not in AGGREGATES:
        raise _fail(f"unknown aggregate {node['agg']!r}")
    if op == "iterate":
        validate(node["seed"], inputs, bound)
        validate(node["body"], inputs, bound | {node["var"]})
        return
    for _, child in children(node):
        validate(child, inputs, bound)


@dataclass(frozen=True)
class Program:
    inputs: tuple[str, ...]
    output: Node
    max_iterations: int

    @staticmethod
    def from_json(obj: Any) -> Program:
        if not isinstance(obj, Mapping):
            raise _fail("a program is a JSON object")
        inputs = obj.get("inputs")
        if not (isinstance(inputs, list | tuple) and all(isinstance(n, str) for n in inputs)):
            raise _fail("a program needs 'inputs': [name, ...]")
        bound = obj.get("max_iterations", DEFAULT_MAX_ITERATIONS)
        if type(bound) is not int or bound < 1:
            raise _fail("'max_iterations' is an int >= 1")
        validate(obj.get("output"), tuple(inputs), frozenset())
        return Program(tuple(inputs), obj["output"], bound)


class ZSetDataflow:
    """A program maintained on Spark: the traces (differences by time) of the
    collections the rules read again, kept between versions."""

    def __init__(self, spark: SparkSession, program: Program) -> None:
        # its kept frames and scratch are the JVM's (spark_impl/storage/frames.py)
        require_jvm(spark, "the Z-set engine (spark_impl.zset)")
        self.spark = spark
        self.program = program
        #: every frame kept from one step to the next, in reliable storage
        self.kept = KeptFrames(spark, "zset")
        self.partitions = int(spark.conf.get("spark.sql.shuffle.partitions") or "2")
        self.version = 0
        self.traces: dict[Path, Trace] = {}
        self._inputs = {n: _Log(self) for n in program.inputs}
        self._output = _Log(self)
        #: The counters of the last step (see :class:`_Step`).
        self.work: dict[str, int] = {}

    def empty(self) -> DataFrame:
        return frame_of_rows(self.spark, [], SCHEMA)

    @property
    def inputs(self) -> dict[str, DataFrame]:
        """The input collections at the last version (sums of their deltas; read
        by observers, not by the rules)."""
        return {n: log.total() for n, log in self._inputs.items()}

    @property
    def integrated(self) -> dict[Path, DataFrame]:
        """The output collection at the last version, at the output's path ``()``."""
        return {(): self._output.total()}

    @without_broadcasts
    def step(self, deltas: Mapping[str, DataFrame]) -> DataFrame:
        """Feed one version's input deltas; the output delta (consolidated, materialised).

        A step whose job failed between the JVM and its Python workers (the element
        functions' UDFs: a worker that did not connect back in time on a loaded machine, or
        died; :func:`~spark_impl.errors.transient`) is run again: a failed step leaves the
        dataflow as it was, so the next attempt starts from the same state and inputs."""
        for name in deltas:
            if name not in self.program.inputs:
                raise _fail(f"undeclared input {name!r}")
        return with_restarts(lambda: self._step(deltas), f"the Z-set step of version {self.version}")

    def _step(self, deltas: Mapping[str, DataFrame]) -> DataFrame:
        run = _Step(self, deltas)
        try:
            diff = run.diff(self.program.output, (), (self.version,), {})
            out, logs = self._keep(run, self.empty() if diff is None else consolidate(diff), deltas)
        except Exception as exc:
            self.kept.sweep(self._live())  # what the failed step wrote
            if isinstance(exc, SparkEngineError):
                raise
            if MARKER in str(exc):
                raise SparkEngineError("malformed-input", _first_line(str(exc))) from None
            raise
        self.traces = run.traces
        for log, parts in logs:
            log.parts = parts
        self.kept.sweep([*self._live(), out])  # the output stays readable until the next step
        self.work = dict(run.work)
        self.version += 1
        return out

    def _keep(self, run: _Step, out: DataFrame, deltas: Mapping[str, DataFrame]
              ) -> tuple[DataFrame, list[tuple[_Log, list[DataFrame]]]]:
        """Write what the step keeps to reliable storage: the traces' compacted
        bases (each a write), then in one write their new pieces (still the
        step's local scratch), the output delta and the logs' new parts. The
        traces' pieces are replaced by their readers; the output's reader and
        the logs' new parts are returned (the dataflow is changed by the caller,
        once everything is written)."""
        for trace in run.traces.values():
            trace.compact(self.version, self.kept)
        fresh = [(trace, t) for trace in run.traces.values() for t, piece in trace.pieces.items()
                 if not self.kept.holds(piece)]
        logs = [(self._inputs[name], self._inputs[name].after(delta.select("e", "w"))) for name, delta in deltas.items()]
        frames = [out, *(trace.pieces[t] for trace, t in fresh), *(parts[-1] for _, parts in logs)]
        readers, _ = self.kept.write(frames)
        out = readers[0]
        for (trace, t), reader in zip(fresh, readers[1:], strict=False):
            trace.pieces[t] = reader
        logs = [(log, [*parts[:-1], reader]) for (log, parts), reader in zip(logs, readers[1 + len(fresh):], strict=True)]
        outputs = self._output.after(out)
        if outputs[-1] is not out:  # folded: the fold is written too (a second job, every few steps)
            outputs, _ = self.kept.write(outputs)
        logs.append((self._output, outputs))
        return out, logs

    def _live(self) -> list[DataFrame]:
        """The frames the dataflow keeps now: its traces' and its logs'."""
        return [*(f for trace in self.traces.values() for f in trace.frames()),
                *(f for log in (*self._inputs.values(), self._output) for f in log.parts)]


class _Log:
    """The sum of a sequence of deltas: kept as they come (each in reliable storage),
    folded into one every :data:`COMPACT_EVERY` additions."""

    def __init__(self, flow: ZSetDataflow) -> None:
        self.flow = flow
        self.parts: list[DataFrame] = []

    def after(self, delta: DataFrame) -> list[DataFrame]:
        """The parts once ``delta`` (``e, w``) is added, the last one new (not stored yet)."""
        parts = [*self.parts, delta]
        return [consolidate(union_coalesced(parts))] if len(parts) >= COMPACT_EVERY else parts

    def total(self) -> DataFrame:
        return consolidate(union_coalesced(self.parts)) if self.parts else self.flow.empty()


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if MARKER in line:
            return line.strip()
    return text.splitlines()[0] if text else text


#: For each bound loop variable: the path of its ``iterate`` and the depth of its body's times.
Bindings = Mapping[str, tuple[Path, int]]

Diff = DataFrame | None  # None: known to be zero (no Spark work)


def _plus(*parts: Diff) -> Diff:
    present = [p for p in parts if p is not None]
    return plus(*present) if present else None


class _Step:
    """The work of one version: every node is evaluated at this version's times
    only (``(τ,)`` at the top, ``(τ, i, ..)`` inside loops), from its children's
    differences at those times and the traces of earlier times. Works on copies
    of the traces (a failed step leaves the dataflow as it was).

    ``work`` counts: ``iterations`` (body evaluations, all loops),
    ``keyed_evaluations`` (distinct/reduce rule runs with a possibly affected
    key), ``affected_keys`` (the sum of their affected key counts),
    ``join_evaluations`` (join rule runs with a pair of times joining to the
    current one) and ``recorded`` (non-zero differences added to traces).
    """

    def __init__(self, flow: ZSetDataflow, deltas: Mapping[str, DataFrame]) -> None:
        self.flow = flow
        self.deltas = deltas
        self.traces = {path: trace.copy() for path, trace in flow.traces.items()}
        self.vars: dict[tuple[Path, Time], Diff] = {}
        self.work: Counter[str] = Counter(
            {"iterations": 0, "keyed_evaluations": 0, "affected_keys": 0, "join_evaluations": 0, "recorded": 0})

    def trace(self, path: Path) -> Trace | None:
        return self.traces.get(path)

    def at(self, path: Path, t: Time) -> Diff:
        trace = self.traces.get(path)
        return None if trace is None else trace.at(t)

    def stored(self, node: Node, path: Path, t: Time, bound: Bindings, key: str | None = None) -> Diff:
        """The difference of ``node`` at ``t``, consolidated, materialised and added to its trace."""
        diff = self.diff(node, path, t, bound)
        if diff is None:
            return None
        diff = consolidate(diff)
        if key is not None:
            diff = _with_key(diff, key)
        # local until the step ends, when ZSetDataflow._keep writes it to reliable storage
        diff, size = materialise_counted(diff)
        if size == 0:
            return None
        trace = self.traces.setdefault(path, Trace(self.flow.spark, len(t), trace_columns(key)))
        trace.add(t, diff, size)
        self.work["recorded"] += 1
        return diff

    def diff(self, node: Node, path: Path, t: Time, bound: Bindings) -> Diff:
        op = node["op"]
        if op == "input":  # constant across iterations: its difference lives at (τ, 0, .., 0)
            return self.deltas.get(node["name"]) if all(c == 0 for c in t[1:]) else None
        if op == "var":
            loop_path, depth = bound[node["name"]]
            return self.var_diff(loop_path, t[:depth]) if all(c == 0 for c in t[depth:]) else None
        if op == "iterate":
            return self.iterate(node, path, t, bound)
        if op in ("map", "filter", "negate"):  # DD-CLAIM-RULE-LINEAR
            sub = self.diff(node["arg"], (*path, 0), t, bound)
            if sub is None:
                return None
            if op == "map":
                return sub.select(_map_udf(node["fn"])(F.col("e")).alias("e"), "w")
            if op == "filter":
                return sub.where(_filter_udf(node["pred"])(F.col("e")))
            return negate(sub)
        if op in ("plus", "union"):
            return _plus(self.diff(node["left"], (*path, 0), t, bound), self.diff(node["right"], (*path, 1), t, bound))
        if op == "join":
            self.stored(node["left"], (*path, 0), t, bound, "join")
            self.stored(node["right"], (*path, 1), t, bound, "join")
            return self.join_rule(path, t)
        if op in ("distinct", "reduce"):
            self.stored(node["arg"], (*path, 0), t, bound, op)
            return self.keyed_rule(path, t, op, node.get("agg", ""))
        raise _fail(f"{op!r} outside an iterate")

    def join_rule(self, path: Path, t: Time) -> Diff:
        """DD-CLAIM-RULE-JOIN: ``δ(c ⋈ d)_t = Σ_{r ∨ s = t} c_r ⋈ d_s``. The pairs of
        times are found on the driver; the rows are joined in two parts, by which
        side carries the current version (``r_0 = t_0``, else ``s_0 = t_0``)."""
        left, right = self.trace((*path, 0)), self.trace((*path, 1))
        if left is None or right is None:
            return None
        rs = [r for r in left.times() if leq(r, t)]
        ss = [s for s in right.times() if leq(s, t)]
        pairs = [(r, s) for r in rs for s in ss if sup(r, s) == t]
        if not pairs:
            return None
        self.work["join_evaluations"] += 1
        n = self.flow.partitions
        parts: list[Diff] = []
        for current_left in (True, False):
            chosen = [(r, s) for r, s in pairs if (r[0] == t[0]) == current_left]
            if not chosen:
                continue
            ltimes, rtimes = {r for r, _ in chosen}, {s for _, s in chosen}
            lrows, rrows = left.rows(ltimes), right.rows(rtimes)
            assert lrows is not None and rrows is not None
            # The side at the current version is usually the small one: when it is
            # small, the other side is first cut to its keys (a broadcast semi-join),
            # so only the matching rows of the stored trace are shuffled and joined.
            small = left.size(ltimes) if current_left else right.size(rtimes)
            if small <= SEMI_JOIN_LIMIT:
                if current_left:
                    rrows = rrows.join(F.broadcast(lrows.select("k").distinct()), "k", "left_semi")
                else:
                    lrows = lrows.join(F.broadcast(rrows.select("k").distinct()), "k", "left_semi")
            parts.append(join_timed(lrows, rrows, t, n))
        return _plus(*parts)

    def keyed_rule(self, path: Path, t: Time, kind: str, agg: str) -> Diff:
        """DD-CLAIM-RULE-DISTINCT / DD-CLAIM-RULE-REDUCE: on the affected keys ``K``
        (a key is affected at ``t`` iff for every coordinate ``i`` it has a
        difference at some ``u <= t`` with ``u_i = t_i``),
        ``δ_t = Σ_{ε ∈ {0,1}^d} (-1)^|ε| op(S(c)_{t-ε} restricted to K)``, all
        ``2^d`` corners in one aggregation (a corner column ``c``)."""
        trace = self.trace((*path, 0))
        if trace is None:
            return None
        below = {u for u in trace.times() if leq(u, t)}
        per_coordinate = [{u for u in below if u[i] == t[i]} for i in range(len(t))]
        if not all(per_coordinate):
            return None
        self.work["keyed_evaluations"] += 1
        keys: DataFrame | None = None
        for times in per_coordinate:
            rows = trace.rows(times)
            assert rows is not None
            ks = rows.select("k")
            keys = ks.distinct() if keys is None else keys.intersect(ks)
        assert keys is not None
        keys, affected = materialise_counted(keys)  # scratch of this step: local
        self.work["affected_keys"] += affected
        if affected == 0:
            return None
        rows = trace.rows(below)
        assert rows is not None
        restricted = rows.join(F.broadcast(keys) if affected <= SEMI_JOIN_LIMIT else keys, "k", "left_semi")
        signs = corners(t)
        by_corner = union_all([restricted.where(_below("", len(t), u)).select(F.lit(i).alias("c"), *trace.columns())
                               for i, (u, _) in enumerate(signs)])
        out = distinct_by_corner(by_corner) if kind == "distinct" else reduce_by_corner(by_corner, agg)
        sign = F.lit(0)
        for i, (_, mu) in enumerate(signs):
            sign = F.when(F.col("c") == i, F.lit(mu)).otherwise(sign)
        return out.select("e", (F.col("w") * sign).cast("bigint").alias("w"))

    def var_diff(self, loop_path: Path, u: Time) -> Diff:
        """DD-CLAIM-RULE-ITERATE: the loop variable ``d = in(seed) + fb(body)`` at
        ``u = (τ, i)``: ``δseed_τ`` at ``i = 0``, ``δbody_(τ,0) - δseed_τ`` at
        ``i = 1``, ``δbody_(τ,i-1)`` at ``i >= 2``."""
        if (loop_path, u) in self.vars:
            return self.vars[(loop_path, u)]
        tau, i = u[:-1], u[-1]
        seed, body = (*loop_path, 0), (*loop_path, 1)
        result: Diff
        if i == 0:
            result = self.at(seed, tau)
        elif i == 1:
            s, b = self.at(seed, tau), self.at(body, (*tau, 0))
            result = _plus(b, None if s is None else negate(s))
            if result is not None:
                # scratch of this step (a loop variable's difference is never kept): local
                result, size = materialise_counted(consolidate(result))
                if size == 0:
                    result = None
        else:
            result = self.at(body, (*tau, i - 1))
        self.vars[(loop_path, u)] = result
        return result

    def iterate(self, node: Node, path: Path, t: Time, bound: Bindings) -> Diff:
        """DD-CLAIM-RULE-ITERATE: the body at ``(t, 0), (t, 1), ..`` until the loop
        variable's next difference is zero and no earlier time has differences at
        a later iteration; the egress is ``Σ_i δd_(t,i)``. Refuses with
        ``no-fixpoint`` iff ``X_m != X_(m-1)`` at this time (``m = max_iterations``)."""
        depth = len(t)
        self.stored(node["seed"], (*path, 0), t, bound)
        inner = {**bound, node["var"]: (path, depth + 1)}
        last_earlier = self.last_earlier_iteration(path, t)
        m = self.flow.program.max_iterations
        i = 0
        while True:
            self.stored(node["body"], (*path, 1), (*t, i), inner)
            self.work["iterations"] += 1
            if self.var_diff(path, (*t, i + 1)) is None and i + 1 > last_earlier:
                break
            i += 1
            if (i == m and self.variable_step(path, t, m - 1)) or i > max(m - 1, last_earlier):
                raise SparkEngineError("no-fixpoint", f"iterate {node['var']!r}: no fixpoint in {m} steps")
        return _plus(*[self.var_diff(path, (*t, j)) for j in range(i + 1)])

    def variable_step(self, loop_path: Path, t: Time, i: int) -> bool:
        """Whether ``X_(i+1) != X_i`` at ``t``: the loop variable's differences at
        iteration ``i + 1`` over the times ``τ' <= t`` do not sum to zero."""
        depth = len(t)
        parts: list[Diff] = []
        body = self.trace((*loop_path, 1))
        if body is not None:
            times = {u for u in body.times() if u[depth] == i and leq(u[:depth], t)}
            parts.append(body.rows(times) if times else None)
        seed = self.trace((*loop_path, 0))
        if i == 0 and seed is not None:
            rows = seed.rows({u for u in seed.times() if leq(u, t)})
            parts.append(None if rows is None else negate(rows))
        total = _plus(*[None if p is None else p.select("e", "w") for p in parts])
        return total is not None and not consolidate(total).isEmpty()

    def last_earlier_iteration(self, loop_path: Path, t: Time) -> int:
        """The largest iteration ``j`` at which a trace of the loop (its seed, its
        body, the traces inside the body) has a difference at a time ``(τ', j, ..)``
        with ``τ' <= t``, ``τ' != t`` (-1 if none): beyond it, earlier times
        contribute nothing. Read from the driver's sets of times."""
        depth = len(t)
        body = (*loop_path, 1)
        latest = -1
        for path, trace in self.traces.items():
            in_body, is_seed = path[: len(body)] == body, path == (*loop_path, 0)
            if not (in_body or is_seed):
                continue
            for u in trace.times():
                outer = u[:depth]
                if outer == t or not leq(outer, t):
                    continue
                latest = max(latest, u[depth] + 1 if in_body else 1)
        return latest
