r"""Named stream processors on Spark, batch by batch with state between batches.

The suite's vocabulary (``reference/streams/named.py`` is its oracle; this is
an independent implementation). Each batch of items is one Spark step; the
state a processor threads between batches lives in Spark (bags as
materialised DataFrames) or, for a running scalar, in the driver. The output
never depends on how the input is cut: each processor is written as the
incremental form of a function of the whole input (its state is the
integral of what it has seen).

* sequences: ``prefix_sum``/``integral`` (running sums: a window sum per batch
  plus the carried total), ``derivative`` (a lag plus the carried last item),
  ``filter_even``, ``map_inc``;
* bags: ``pairs`` and ``join`` are bilinear, ``Δ(E1 ⊗ E2) = E1⊗δE2 + δE1⊗E2 +
  δE1⊗δE2`` (Proposition 3.48), with the integrated bags kept;
  ``join_partitioned`` lays the join out as Theorem 3.51: every edge goes to
  partition ``partition_of(y, k)`` of its join key, both sides are hash
  partitioned on that, and partition ``i`` of the left joins only partition
  ``i`` of the right; ``split_merge`` and ``distinct`` are the bag and its support.

* ``full_adder``: the carry into each position is the last ``a = b`` bit
  before it (generate/kill), else the carried-in bit: a window, no
  sequential loop; the carry out of a batch is carried to the next;
* ``transitive_closure_loop`` (Example 3.58 through ``loop``): per round,
  ``E ∪= m``, ``J' = E ∪ J ∘ E`` (a join), output ``J' \ J``;
* ``set_difference_ticks`` and ``tcp_receiver`` keep the items seen (with their
  positions) and compute their output as queries over them: strata by a
  running count of ticks, ``A_i \ B_(i-1)`` by an anti-join; the receiver's
  next expected number after each item is the least number not received so
  far (a running max of first arrivals over sequence numbers), and the data
  delivered are the first arrivals of ``0 .. next - 1``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.window import Window

from spark_impl.errors import SparkEngineError
from spark_impl.state import materialise, union_all
from spark_impl.values import decode, encode

Value = Any
UNSUPPORTED: tuple[str, ...] = ()


def _malformed(message: str) -> SparkEngineError:
    return SparkEngineError("malformed-input", message)


def _tuple(v: Value) -> Value:
    return tuple(_tuple(x) for x in v) if isinstance(v, list | tuple) else v


def _ints(items: Sequence[Value]) -> list[int]:
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in items):
        raise _malformed(f"expected integers, got {list(items)!r}")
    return list(items)


def _int_param(params: Mapping[str, Value], key: str, default: int, minimum: int) -> int:
    value = params.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise _malformed(f"parameter {key!r} must be an integer >= {minimum}, got {value!r}")
    return value


def canonical_order(items: list[Value]) -> list[Value]:
    try:
        return sorted(items)
    except TypeError:
        return sorted(items, key=repr)


def partition_of(key: Value, k: int) -> int:
    """``key mod k`` for integers, else the sum of the UTF-8 bytes of its compact JSON mod k."""
    if isinstance(key, int) and not isinstance(key, bool):
        return key % k
    text = json.dumps(_lists(key), sort_keys=True, separators=(",", ":"))
    return sum(text.encode("utf-8")) % k


def _lists(v: Value) -> Value:
    return [_lists(x) for x in v] if isinstance(v, tuple) else v


class SparkStreams:
    """Runs one named processor over batches on Spark."""

    def __init__(self, spark: SparkSession) -> None:
        self.spark = spark

    def run(self, processor: str, params: Mapping[str, Value], batches: Sequence[Sequence[Value]]) -> Value:
        runners: dict[str, Callable[[Mapping[str, Value], Sequence[Sequence[Value]]], Value]] = {
            "prefix_sum": self._running_sum, "integral": self._running_sum,
            "derivative": self._derivative, "filter_even": self._filter_even, "map_inc": self._map_inc,
            "pairs": self._pairs, "join": self._join, "join_partitioned": self._join_partitioned,
            "split_merge": self._split_merge, "distinct": self._distinct,
            "full_adder": self._full_adder, "transitive_closure_loop": self._tc_loop,
            "set_difference_ticks": self._set_difference_ticks, "tcp_receiver": self._tcp_receiver,
        }
        if processor in UNSUPPORTED:
            raise SparkEngineError("unsupported", f"{processor} is not implemented on Spark")
        if processor not in runners:
            raise _malformed(f"unknown processor {processor!r}")
        return runners[processor](params, batches)

    # --- sequences ---------------------------------------------------------------

    def _frame(self, items: list[int]) -> DataFrame:
        return self.spark.createDataFrame(list(enumerate(items)), "pos bigint, x bigint")

    def _running_sum(self, params: Mapping[str, Value], batches: Sequence[Sequence[Value]]) -> Value:
        total, out = 0, list[int]()
        upto = Window.orderBy("pos").rowsBetween(Window.unboundedPreceding, Window.currentRow)
        for batch in batches:
            items = _ints(batch)
            if not items:
                continue
            rows = self._frame(items).select("pos", (F.sum("x").over(upto) + F.lit(total)).alias("s"))
            sums = [int(r["s"]) for r in rows.orderBy("pos").collect()]
            out.extend(sums)
            total = sums[-1]
        return tuple(out)

    def _derivative(self, params: Mapping[str, Value], batches: Sequence[Sequence[Value]]) -> Value:
        last, out = 0, list[int]()
        before = Window.orderBy("pos")
        for batch in batches:
            items = _ints(batch)
            if not items:
                continue
            rows = self._frame(items).select(
                "pos", (F.col("x") - F.coalesce(F.lag("x").over(before), F.lit(last))).alias("d"))
            out.extend(int(r["d"]) for r in rows.orderBy("pos").collect())
            last = items[-1]
        return tuple(out)

    def _filter_even(self, params: Mapping[str, Value], batches: Sequence[Sequence[Value]]) -> Value:
        out: list[int] = []
        for batch in batches:
            items = _ints(batch)
            if items:
                rows = self._frame(items).where(F.col("x") % 2 == 0).orderBy("pos").collect()
                out.extend(int(r["x"]) for r in rows)
        return tuple(out)

    def _map_inc(self, params: Mapping[str, Value], batches: Sequence[Sequence[Value]]) -> Value:
        k = params.get("k", 1)
        if not isinstance(k, int) or isinstance(k, bool):
            raise _malformed(f"parameter 'k' must be an integer, got {k!r}")
        out: list[int] = []
        for batch in batches:
            items = _ints(batch)
            if items:
                rows = self._frame(items).select("pos", (F.col("x") + F.lit(k)).alias("y"))
                out.extend(int(r["y"]) for r in rows.orderBy("pos").collect())
        return tuple(out)

    # --- bags ------------------------------------------------------------------------

    def _bag(self, rows: list[tuple[Any, ...]], schema: str) -> DataFrame:
        return self.spark.createDataFrame(rows, schema)

    def _sorted_bag(self, df: DataFrame) -> Value:
        items = [decode(r["e"]) for r in df.collect()]
        return tuple(canonical_order(items))

    def _split_merge(self, params: Mapping[str, Value], batches: Sequence[Sequence[Value]]) -> Value:
        k = _int_param(params, "partitions", 2, 1)
        parts: list[DataFrame] = []
        for batch in batches:
            rows = [(encode(_tuple(x)), partition_of(_tuple(x), k)) for x in batch]
            # split by partition, then merge: the union of the k parts (Definition 3.44)
            split = self._bag(rows, "e string, p int").repartition(k, "p")
            parts.append(materialise(union_all([split.where(F.col("p") == i).select("e") for i in range(k)])))
        return self._sorted_bag(union_all([self._bag([], "e string"), *parts]))

    def _distinct(self, params: Mapping[str, Value], batches: Sequence[Sequence[Value]]) -> Value:
        seen = self._bag([], "e string")
        for batch in batches:
            delta = self._bag([(encode(_tuple(x)),) for x in batch], "e string")
            seen = materialise(union_all([seen, delta.join(seen, "e", "left_anti")]).distinct())
        return self._sorted_bag(seen)

    def _tagged(self, batch: Sequence[Value], edges: bool) -> tuple[list[Value], list[Value]]:
        left: list[Value] = []
        right: list[Value] = []
        for item in batch:
            item = _tuple(item)
            if not (isinstance(item, tuple) and len(item) == 2 and item[0] in ("L", "R")):
                raise _malformed(f'expected ["L", row] or ["R", row], got {item!r}')
            row = item[1]
            if edges and not (isinstance(row, tuple) and len(row) == 2):
                raise _malformed(f"expected an edge [source, target], got {row!r}")
            (left if item[0] == "L" else right).append(row)
        return left, right

    def _bilinear(self, batches: Sequence[Sequence[Value]], edges: bool,
                  product: Callable[[DataFrame, DataFrame], DataFrame],
                  keyed: Callable[[Value, str], tuple[Any, ...]], schema: str) -> Value:
        """Δ(E1 ⊗ E2) = E1⊗δE2 + δE1⊗E2 + δE1⊗δE2, E1 and E2 integrated (Proposition 3.48)."""
        e1 = e2 = self._bag([], schema)
        out: list[DataFrame] = []
        for batch in batches:
            left, right = self._tagged(batch, edges)
            d1 = self._bag([keyed(x, "L") for x in left], schema)
            d2 = self._bag([keyed(x, "R") for x in right], schema)
            out.append(materialise(union_all([product(e1, d2), product(d1, e2), product(d1, d2)])))
            e1 = materialise(union_all([e1, d1]))
            e2 = materialise(union_all([e2, d2]))
        return self._sorted_bag(union_all([self._bag([], "e string"), *out]))

    def _pairs(self, params: Mapping[str, Value], batches: Sequence[Sequence[Value]]) -> Value:
        def product(a: DataFrame, b: DataFrame) -> DataFrame:
            return a.crossJoin(b.withColumnRenamed("e", "f")).select(
                F.concat(F.lit("["), "e", F.lit(","), "f", F.lit("]")).alias("e"))

        return self._bilinear(batches, False, product, lambda x, side: (encode(x), "", 0),
                              "e string, y string, p int")

    def _join_on(self, k: int) -> tuple[Callable[[DataFrame, DataFrame], DataFrame],
                                        Callable[[Value, str], tuple[Any, ...]]]:
        def keyed(edge: Value, side: str) -> tuple[Any, ...]:
            y = edge[1] if side == "L" else edge[0]
            return (encode(edge), encode(y), partition_of(y, k))

        def product(a: DataFrame, b: DataFrame) -> DataFrame:
            # Theorem 3.51: both sides hash partitioned by the key's partition; the
            # join then matches partition i with partition i only.
            left = a.repartition(k, "p")
            right = b.withColumnRenamed("e", "f").repartition(k, "p")
            return left.join(right, ["p", "y"]).select(
                F.concat(F.lit("["), "e", F.lit(","), "f", F.lit("]")).alias("e"))

        return product, keyed

    def _join(self, params: Mapping[str, Value], batches: Sequence[Sequence[Value]]) -> Value:
        product, keyed = self._join_on(1)
        return self._bilinear(batches, True, product, keyed, "e string, y string, p int")

    def _join_partitioned(self, params: Mapping[str, Value], batches: Sequence[Sequence[Value]]) -> Value:
        product, keyed = self._join_on(_int_param(params, "partitions", 2, 1))
        return self._bilinear(batches, True, product, keyed, "e string, y string, p int")

    # --- sequential processors, as window functions and joins ---------------------------

    def _full_adder(self, params: Mapping[str, Value], batches: Sequence[Sequence[Value]]) -> Value:
        carry = _int_param(params, "carry", 0, 0)
        if carry not in (0, 1):
            raise _malformed(f"parameter 'carry' must be a bit, got {carry!r}")
        before = Window.orderBy("pos").rowsBetween(Window.unboundedPreceding, -1)
        out: list[int] = []
        for batch in batches:
            bits: list[tuple[int, int, int]] = []
            for item in batch:
                item = _tuple(item)
                if not (isinstance(item, tuple) and len(item) == 2 and all(b in (0, 1) for b in item)
                        and not any(isinstance(b, bool) for b in item)):
                    raise _malformed(f"expected a pair of bits [a, b], got {item!r}")
                bits.append((len(bits), int(item[0]), int(item[1])))
            if not bits:
                continue
            frame = self.spark.createDataFrame(bits, "pos bigint, a int, b int")
            decided = F.when(F.col("a") == F.col("b"), F.col("a"))  # generate (1,1) or kill (0,0)
            rows = frame.select(
                "pos", "a", "b",
                F.coalesce(F.last(decided, ignorenulls=True).over(before), F.lit(carry)).alias("c"),
            ).orderBy("pos").collect()
            out.extend((r["a"] + r["b"] + r["c"]) % 2 for r in rows)
            carry = int(rows[-1]["c"]) if rows[-1]["a"] != rows[-1]["b"] else int(rows[-1]["a"])
        return tuple(out)

    def _tc_loop(self, params: Mapping[str, Value], batches: Sequence[Sequence[Value]]) -> Value:
        schema = "x string, y string"
        edges = derived = self.spark.createDataFrame([], schema)
        rounds: list[Value] = [()]  # the initial output (of the empty input) comes first
        for batch in batches:
            for item in batch:
                item = _tuple(item)
                if not isinstance(item, tuple) or not all(isinstance(e, tuple) and len(e) == 2 for e in item):
                    raise _malformed(f"expected a list of edges per round, got {item!r}")
                new = self.spark.createDataFrame([(encode(u), encode(v)) for u, v in item], schema)
                edges = materialise(union_all([edges, new]).distinct())
                composed = derived.alias("j").join(edges.alias("e"), F.col("j.y") == F.col("e.x")) \
                    .select(F.col("j.x").alias("x"), F.col("e.y").alias("y"))
                after = materialise(union_all([edges, composed]).distinct())
                fresh = after.join(derived, ["x", "y"], "left_anti").collect()
                rounds.append(tuple(canonical_order([(decode(r["x"]), decode(r["y"])) for r in fresh])))
                derived = after
        return tuple(rounds)

    def _positioned(self, batches: Sequence[Sequence[Value]],
                    parse: Callable[[Value], tuple[Any, ...]], schema: str) -> DataFrame:
        """Every item with its position in the whole input (the integral of the batches)."""
        rows: list[tuple[Any, ...]] = []
        for batch in batches:
            for item in batch:
                rows.append((len(rows), *parse(_tuple(item))))
        return materialise(self.spark.createDataFrame(rows, f"pos bigint, {schema}"))

    def _set_difference_ticks(self, params: Mapping[str, Value], batches: Sequence[Sequence[Value]]) -> Value:
        def parse(item: Value) -> tuple[Any, ...]:
            if item == "tick":
                return ("tick", None)
            if isinstance(item, tuple) and len(item) == 2 and item[0] in ("+", "-"):
                return (item[0], encode(item[1]))
            raise _malformed(f'expected ["+", x], ["-", x] or "tick", got {item!r}')

        items = self._positioned(batches, parse, "sign string, x string")
        upto = Window.orderBy("pos").rowsBetween(Window.unboundedPreceding, Window.currentRow)
        strata = items.select("sign", "x", F.sum(F.when(F.col("sign") == "tick", 1).otherwise(0))
                              .over(upto).alias("i"))
        ticks = strata.where(F.col("sign") == "tick").count()
        positive = strata.where(F.col("sign") == "+").select("i", "x").distinct()
        negative_before = strata.where(F.col("sign") == "-").select((F.col("i") + 1).alias("i"), "x")
        kept = positive.join(negative_before, ["i", "x"], "left_anti").collect()
        out: list[list[Value]] = [[] for _ in range(ticks + 1)]
        for r in kept:
            out[int(r["i"])].append(decode(r["x"]))
        return tuple(tuple(canonical_order(s)) for s in out)

    def _tcp_receiver(self, params: Mapping[str, Value], batches: Sequence[Sequence[Value]]) -> Value:
        def parse(item: Value) -> tuple[Any, ...]:
            if item == "tick":
                return (None, None)
            if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], int):
                return (int(item[0]), encode(item[1]))
            raise _malformed(f'expected [sequence number, data] or "tick", got {item!r}')

        items = self._positioned(batches, parse, "seq bigint, data string")
        by_seq = Window.orderBy("seq")
        first = (items.where(F.col("seq") >= 0)
                 .withColumn("r", F.row_number().over(Window.partitionBy("seq").orderBy("pos")))
                 .where(F.col("r") == 1).select("seq", "pos", "data"))
        # 0..n all received by position max(first arrivals of 0..n); contiguous from 0 only
        ready = first.select("seq", "data", F.max("pos").over(
            by_seq.rowsBetween(Window.unboundedPreceding, Window.currentRow)).alias("at"),
            (F.row_number().over(by_seq) - 1).alias("rank")).where(F.col("seq") == F.col("rank"))
        prefix = [(int(r["seq"]), int(r["at"]), r["data"]) for r in ready.orderBy("seq").collect()]
        positions = [int(r["pos"]) for r in items.orderBy("pos").select("pos").collect()]
        requests = tuple(sum(1 for _, at, _ in prefix if at <= p) for p in positions)
        delivered = tuple(decode(d) for _, _, d in prefix)
        return (delivered, requests)
