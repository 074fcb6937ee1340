"""The Z-set dataflow language on Spark, evaluated by the delta rules of
differential dataflow (DD-CLAIM-RULE-LINEAR, -JOIN, -DISTINCT, -REDUCE, -ITERATE).

A collection is a DataFrame ``(e, w)``: the canonical JSON text of an element
and its non-zero integer weight. A program (the suite's JSON syntax: ``input``,
``map``, ``filter``, ``join``, ``distinct``, ``reduce``, ``plus``/``union``,
``negate``, ``iterate``, ``var``) is fed one delta per input at each version;
:meth:`ZSetDataflow.step` returns the output delta
``output(t) - output(t - 1)``.

Per operator, at each version (one time coordinate: the version):

* linear operators (``map``, ``filter``, ``negate``, ``plus``) map the delta:
  ``δf(c) = f(δc)``;
* ``join`` is bilinear: ``δ(A ⋈ B) = δA ⋈ B + A ⋈ δB + δA ⋈ δB`` with ``A``,
  ``B`` integrated up to the previous version (both kept, materialised); the
  join is a hash join on the key (both sides hash partitioned by it, the
  layout of Theorem 3.51 of the stream paper);
* ``distinct`` and ``reduce`` are recomputed on the *affected keys* only (the
  keys of the input delta): ``δout = op(A + δA)|K - op(A)|K``;
* ``iterate`` (with the ``var`` it binds) is evaluated from its integrated
  inputs at each version, ``X₀ = seed``, ``Xₙ₊₁ = body(Xₙ)`` until
  ``Xₖ₊₁ = Xₖ`` (each round materialised), and its delta is the difference of
  consecutive versions' fixpoints. This is *not* the nested-time differential
  rule: a change re-runs the loop from its seed (documented gap).

Element functions (map functions, predicates) run in pandas UDFs (Arrow);
keys, weights and aggregates are native Spark columns. A function applied to an
element of the wrong shape fails the step with ``malformed-input``; a loop that
does not converge within ``max_iterations`` with ``no-fixpoint``. A failed
step leaves the state as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.pandas.functions import pandas_udf

from spark_impl.errors import SparkEngineError
from spark_impl.state import materialise, union_all
from spark_impl.values import decode, encode
from spark_impl.zset_vocabulary import AGGREGATES, MAP_FUNCTIONS, MARKER, key_of
from spark_impl.zset_vocabulary import FILTER_PREDICATES as PREDICATES

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


def _part_udf(index: int, op: str) -> Any:
    """The key (index 0) or the value (index 1) of a pair element, as JSON text."""

    def pick(text: str) -> str:
        x = decode(text)
        key_of(x, op)  # checks the shape
        return encode(x[index])

    return _udf(lambda s: s.map(pick), "string")


# --- Z-set operations on DataFrames ----------------------------------------------------


def consolidate(df: DataFrame) -> DataFrame:
    return df.groupBy("e").agg(F.sum("w").alias("w")).where(F.col("w") != 0)


def negate(df: DataFrame) -> DataFrame:
    return df.select("e", (-F.col("w")).alias("w"))


def plus(*frames: DataFrame) -> DataFrame:
    return union_all([f.select("e", "w") for f in frames])


def _keyed(df: DataFrame, op: str) -> DataFrame:
    return df.select(_part_udf(0, op)(F.col("e")).alias("k"), _part_udf(1, op)(F.col("e")).alias("v"), "w")


def join(left: DataFrame, right: DataFrame, partitions: int) -> DataFrame:
    """``(k, a) ⋈ (k, b) = (k, (a, b))`` with the product of the weights; both
    sides hash partitioned on ``k`` (Theorem 3.51's layout), then joined per partition."""
    lk = _keyed(left, "join").repartition(partitions, "k")
    rk = _keyed(right, "join").withColumnRenamed("v", "b").withColumnRenamed("w", "wb") \
        .repartition(partitions, "k")
    joined = lk.join(rk, "k")
    return joined.select(F.concat(F.lit("["), "k", F.lit(",["), "v", F.lit(","), "b", F.lit("]]")).alias("e"),
                         (F.col("w") * F.col("wb")).alias("w"))


def distinct(df: DataFrame) -> DataFrame:
    return consolidate(df).where(F.col("w") > 0).select("e", F.lit(1).cast("bigint").alias("w"))


def _integer(v: Column, agg: str) -> Column:
    return F.when(~v.rlike(r"^-?[0-9]+$"),
                  F.raise_error(F.concat(F.lit(f"{MARKER}: {agg} expects an int, got "), v))) \
        .otherwise(v).cast("decimal(38,0)")


def reduce(df: DataFrame, agg: str) -> DataFrame:
    """For each key whose values form a non-zero Z-set: ``(k, agg(values))``, weight 1."""
    pairs = _keyed(consolidate(df), "reduce").groupBy("k", "v").agg(F.sum("w").alias("w")) \
        .where(F.col("w") != 0)
    if agg == "count":
        value = F.sum("w").cast("string")
    elif agg == "sum":
        value = F.sum(F.col("w") * _integer(F.col("v"), agg)).cast("string")
    else:
        extremum = F.min if agg == "min" else F.max
        value = extremum(_integer(F.col("v"), agg)).cast("string")
    grouped = pairs.groupBy("k").agg(value.alias("a"))
    return grouped.select(F.concat(F.lit("["), "k", F.lit(","), "a", F.lit("]")).alias("e"),
                          F.lit(1).cast("bigint").alias("w"))


def restrict_keys(df: DataFrame, keys: DataFrame, op: str) -> DataFrame:
    """The elements of ``df`` whose key (element itself for distinct, first
    component for reduce) is among ``keys (k)``."""
    if op == "distinct":
        return df.join(keys.withColumnRenamed("k", "e"), "e", "left_semi")
    with_key = df.select("e", "w", _part_udf(0, op)(F.col("e")).alias("k"))
    return with_key.join(keys, "k", "left_semi").select("e", "w")


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
    """A program maintained on Spark: integrated collections kept where a rule needs them."""

    def __init__(self, spark: SparkSession, program: Program) -> None:
        self.spark = spark
        self.program = program
        self.partitions = int(spark.conf.get("spark.sql.shuffle.partitions") or "2")
        self.inputs: dict[str, DataFrame] = {n: self.empty() for n in program.inputs}
        self.integrated: dict[Path, DataFrame] = {}  # per join side / distinct / reduce input / iterate

    def empty(self) -> DataFrame:
        return self.spark.createDataFrame([], SCHEMA)

    def step(self, deltas: Mapping[str, DataFrame]) -> DataFrame:
        """Feed one version's input deltas; the output delta (consolidated, materialised)."""
        for name in deltas:
            if name not in self.program.inputs:
                raise _fail(f"undeclared input {name!r}")
        run = _Version(self, deltas)
        try:
            out = materialise(consolidate(run.delta(self.program.output, ())))
            updates = {path: materialise(consolidate(df)) for path, df in run.updates.items()}
            inputs = {n: materialise(consolidate(plus(self.inputs[n], d))) for n, d in deltas.items()}
        except Exception as exc:
            if isinstance(exc, SparkEngineError):
                raise
            if MARKER in str(exc):
                raise SparkEngineError("malformed-input", _first_line(str(exc))) from None
            raise
        self.integrated.update(updates)
        self.inputs.update(inputs)
        return out


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if MARKER in line:
            return line.strip()
    return text.splitlines()[0] if text else text


class _Version:
    """The work of one version: deltas of nodes, and the integrated states it produces."""

    def __init__(self, flow: ZSetDataflow, deltas: Mapping[str, DataFrame]) -> None:
        self.flow = flow
        self.deltas = deltas
        self.updates: dict[Path, DataFrame] = {}

    def integrated(self, path: Path) -> DataFrame:
        return self.flow.integrated.get(path, self.flow.empty())

    def current_inputs(self) -> dict[str, DataFrame]:
        return {n: plus(self.flow.inputs[n], self.deltas[n]) if n in self.deltas else self.flow.inputs[n]
                for n in self.flow.program.inputs}

    def delta(self, node: Node, path: Path) -> DataFrame:
        op = node["op"]
        flow = self.flow
        if op == "input":
            return self.deltas.get(node["name"], flow.empty())
        if op == "map":
            return self.delta(node["arg"], (*path, 0)).select(_map_udf(node["fn"])(F.col("e")).alias("e"), "w")
        if op == "filter":
            d = self.delta(node["arg"], (*path, 0))
            return d.where(_filter_udf(node["pred"])(F.col("e")))
        if op == "negate":
            return negate(self.delta(node["arg"], (*path, 0)))
        if op in ("plus", "union"):
            return plus(self.delta(node["left"], (*path, 0)), self.delta(node["right"], (*path, 1)))
        if op == "join":
            dl, dr = self.delta(node["left"], (*path, 0)), self.delta(node["right"], (*path, 1))
            left, right = self.integrated((*path, 0)), self.integrated((*path, 1))
            self.updates[(*path, 0)] = plus(left, dl)
            self.updates[(*path, 1)] = plus(right, dr)
            n = flow.partitions
            return plus(join(dl, right, n), join(left, dr, n), join(dl, dr, n))
        if op in ("distinct", "reduce"):
            d = materialise(consolidate(self.delta(node["arg"], (*path, 0))))
            old = self.integrated((*path, 0))
            new = plus(old, d)
            self.updates[(*path, 0)] = new
            kind = "distinct" if op == "distinct" else "reduce"
            keys = (d.select(F.col("e").alias("k")) if kind == "distinct"
                    else d.select(_part_udf(0, "reduce")(F.col("e")).alias("k"))).distinct()

            def apply(c: DataFrame) -> DataFrame:
                c = restrict_keys(c, keys, kind)
                return distinct(c) if kind == "distinct" else reduce(c, node["agg"])

            return plus(apply(new), negate(apply(old)))
        if op == "iterate":
            value = self.full(node, self.current_inputs(), {})
            self.updates[path] = value
            return plus(value, negate(self.integrated(path)))
        raise _fail(f"{op!r} outside an iterate")

    def full(self, node: Node, inputs: Mapping[str, DataFrame], env: Mapping[str, DataFrame]) -> DataFrame:
        """The standard semantics of ``node`` on whole collections (inside ``iterate``)."""
        op = node["op"]
        flow = self.flow

        def ev(n: Node) -> DataFrame:
            return self.full(n, inputs, env)

        if op == "input":
            return inputs[node["name"]]
        if op == "var":
            return env[node["name"]]
        if op == "map":
            return ev(node["arg"]).select(_map_udf(node["fn"])(F.col("e")).alias("e"), "w")
        if op == "filter":
            return ev(node["arg"]).where(_filter_udf(node["pred"])(F.col("e")))
        if op == "negate":
            return negate(ev(node["arg"]))
        if op in ("plus", "union"):
            return plus(ev(node["left"]), ev(node["right"]))
        if op == "join":
            return join(ev(node["left"]), ev(node["right"]), flow.partitions)
        if op == "distinct":
            return distinct(ev(node["arg"]))
        if op == "reduce":
            return reduce(ev(node["arg"]), node["agg"])
        x = materialise(consolidate(ev(node["seed"])))  # X_0
        for _ in range(flow.program.max_iterations):
            nxt = materialise(consolidate(self.full(node["body"], inputs, {**env, node["var"]: x})))
            if consolidate(plus(nxt, negate(x))).isEmpty():
                return x
            x = nxt
        raise SparkEngineError("no-fixpoint",
                          f"iterate {node['var']!r}: no fixpoint in {flow.program.max_iterations} steps")
