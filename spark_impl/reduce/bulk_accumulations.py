"""What the bulk path keeps per key, and how a batch moves it, for each kind of reducer
(SKIP-DEC-SPARK-BULK).

:class:`~spark_impl.reduce.bulk_view.BulkViewRunner` holds a view as a keys table (per key its
size ``n`` and accumulator columns) and the multiplicities of its (key, value) pairs. A step
asks its :class:`Accumulation` for the keys the batch touches, as one frame of columns
``k, n0, n, <accumulator columns>, changed, calls, lost``: the size before (null: the key was
absent) and after, the accumulator after, whether the key's view entry differs, the ⊕/⊖ calls
made (SKIP-THM-3) and whether an accumulator left its type (an overflow: the batch is refused).

* :class:`Sums` (sum, count, vectors of sums: a group, SKIP-DEF-2 with an inverse): the sums
  before plus the batch's; no value is read.
* :class:`Extremum` (min, max over typed values): Skip's ⊖ declines when the removed value
  may be the extremum. A key whose removals reach its extremum is recomputed natively from
  its values after the batch (its stored pairs and the batch's); any other takes the least
  (greatest) of its extremum and the batch's added values. The removals are taken extremum
  first, so a declining key counts one ⊖ and then one ⊕ per value it holds after the batch.
* :class:`PythonFold` (a user's ``(initial, add, remove)``, and min or max over JSON text):
  the keys hash-partitioned, one Python call per partition, each key updated as the
  stream path's operator updates it (:func:`~spark_impl.reduce.keyed_fold.skip_update`: part
  by part, removals then additions); the keys whose ⊖ declined are updated again, in a second
  partitioned pass over those keys alone (none when no ⊖ declined), with their values at hand
  (read from their pairs after the batch), so the declined ⊖ recomputes the key from its
  values after that part.

A batch of several parts (SKIP-DEC-SPARK-PARTS: files in order) is checked part by part by
the runner; sums need only its net, a user's reducer is folded part by part, and an extremum
takes the batch whole: Skip's min and max are well-formed, so its view is the recompute's
whichever way the parts are taken (a key is recomputed when any removal reaches its
extremum before the batch).

``values_after(keys)`` (given by the runner) is the frame ``k, v, m`` of the live (key, value)
pairs of ``keys`` after the batch: what a declined key is recomputed from.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

import pandas as pd
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from spark_impl.reduce.keyed_fold import Tally, skip_update
from spark_impl.reduce.maintained_view import (
    JSON_TEXT,
    change_work,
    contributions,
    fold_functions,
    json_text,
    overflow_refusal,
    plain,
    work_counted,
)
from spark_impl.reduce.reducer_kinds import GroupReducer, OrderReducer, PythonReducer, SparkReducer
from spark_impl.values import decode, encode

#: ``values_after(keys)``: the live pairs ``k, v, m`` of the keys in ``keys`` (a frame ``k``) after the batch
ValuesAfter = Callable[[DataFrame], DataFrame]
#: ``keep(frame)``: ``frame`` persisted until the step ends (a frame its plan reads twice)
Keep = Callable[[DataFrame], DataFrame]


def key_join(left: DataFrame, right: DataFrame, how: str) -> DataFrame:
    """``left`` joined to ``right`` on their key column ``k`` (kept once), a null key a key
    like any (``<=>``, as a stream view's grouping has it)."""
    other = right.withColumnRenamed("k", "_right_k")
    return left.join(other, left["k"].eqNullSafe(other["_right_k"]), how).drop("_right_k")


def entry_changed(accumulator: Column, before: Column) -> Column:
    """Over a touched frame's ``n0, n``: whether the key's view entry differs, given its
    accumulator after and before."""
    present, was_present = F.col("n") > 0, F.coalesce(F.col("n0"), F.lit(0)) > 0
    return (present != was_present) | (present & ~accumulator.eqNullSafe(before))


class Accumulation(Protocol):
    """The keys table's accumulator columns of one kind of reducer, and a batch's effect on them."""

    @property
    def columns(self) -> tuple[tuple[str, str], ...]:
        """The accumulator's columns in the keys table, each with its Spark SQL type."""
        ...

    @property
    def accumulator_type(self) -> str:
        """The view's accumulator type (as ``read_view`` and the changes give it)."""
        ...

    @property
    def pair_value_type(self) -> str:
        """The type of the values in the pair tables (and in :meth:`prepared`'s rows)."""
        ...

    def reported(self, value: Any) -> Any:
        """A stored value as a refusal names it."""
        ...

    def prepared(self, rows: DataFrame) -> DataFrame:
        """Normalised change rows as this kind reads them (``k, v, w, file, part, invalid``, and more)."""
        ...

    def touched(self, valid: DataFrame, old: DataFrame, values_after: ValuesAfter, keep: Keep) -> DataFrame:
        """The touched keys' frame (module docstring) from the batch's valid rows and the keys table."""
        ...

    def accumulator(self) -> Column:
        """The view's accumulator over the accumulator columns."""
        ...

    def work(self, valid: DataFrame, touched: DataFrame, by: Column | None) -> dict[Any, dict[str, int]]:
        """The step's work counters (SKIP-THM-3), per value of ``by``."""
        ...

    def overflow(self, touched: DataFrame, valid: DataFrame) -> Exception:
        """The refusal of a batch whose touched frame has a ``lost`` key."""
        ...


class TypedPairs:
    """Pairs stored with the values' own type, named as they are."""

    value_type: str

    @property
    def pair_value_type(self) -> str:
        return self.value_type

    def reported(self, value: Any) -> Any:
        return plain(value)


@dataclass(frozen=True)
class Sums(TypedPairs):
    """A group reducer's accumulator: the sums ``a0..`` of the contributions."""

    reducer: GroupReducer
    value_type: str

    @property
    def acc_type(self) -> str:
        return self.reducer.acc_type or self.value_type

    @property
    def components(self) -> list[str]:
        return [f"a{i}" for i in range(self.reducer.arity)]

    @property
    def columns(self) -> tuple[tuple[str, str], ...]:
        return tuple((c, self.acc_type) for c in self.components)

    @property
    def accumulator_type(self) -> str:
        return self.acc_type if self.reducer.scalar else f"array<{self.acc_type}>"

    def prepared(self, rows: DataFrame) -> DataFrame:
        return contributions(rows, self.reducer, self.value_type)

    def touched(self, valid: DataFrame, old: DataFrame, values_after: ValuesAfter, keep: Keep) -> DataFrame:
        comps = self.components
        delta = valid.groupBy("k").agg(F.try_sum("w").alias("dn"), *[F.try_sum(c).alias(f"d{c}") for c in comps])
        before = old.select("k", F.col("n").alias("n0"), *[F.col(c).alias(f"{c}_0") for c in comps])
        joined = key_join(delta, before, "left")
        zero = F.lit(0)
        after = joined.select(
            "k", "n0", "dn", *[f"d{c}" for c in comps],
            F.try_add(F.coalesce(F.col("n0"), zero.cast("bigint")), F.col("dn")).alias("n"),
            *[F.try_add(F.coalesce(F.col(f"{c}_0"), zero.cast(self.acc_type)), F.col(f"d{c}")).alias(c)
              for c in comps])
        lost = F.col("n").isNull()
        moved = F.lit(False)
        for c in comps:
            lost, moved = lost | F.col(c).isNull(), moved | (F.col(f"d{c}") != 0)
        present, was_present = F.col("n") > 0, F.coalesce(F.col("n0"), F.lit(0)) > 0
        return after.select("k", "n0", "n", *comps,
                            ((present != was_present) | (present & moved)).alias("changed"),
                            F.lit(None).cast("bigint").alias("calls"), lost.alias("lost"))

    def accumulator(self) -> Column:
        parts = [F.col(c) for c in self.components]
        return parts[0] if self.reducer.scalar else F.array(*parts)

    def work(self, valid: DataFrame, touched: DataFrame, by: Column | None) -> dict[Any, dict[str, int]]:
        return change_work(valid, by)  # one ⊕ or ⊖ per occurrence: no fold is run

    def overflow(self, touched: DataFrame, valid: DataFrame) -> Exception:
        key = touched.where("lost").orderBy("k").select("k").first()
        assert key is not None
        return overflow_refusal(key["k"], valid.where(F.col("k").eqNullSafe(key["k"])), self.accumulator_type)


class Folded:
    """A fold reducer's accumulator: one column ``acc``, the ⊕/⊖ calls counted by the fold."""

    def accumulator(self) -> Column:
        return F.col("acc")

    def work(self, valid: DataFrame, touched: DataFrame, by: Column | None) -> dict[Any, dict[str, int]]:
        return work_counted(touched, F.sum("calls"), F.count(F.lit(1)), by)

    def overflow(self, touched: DataFrame, valid: DataFrame) -> Exception:
        raise AssertionError("a fold's accumulator is never marked lost")

    @staticmethod
    def finished(touched: DataFrame, acc: Column, calls: Column) -> DataFrame:
        """The touched frame from one with ``k, n0, n, acc0``, given the accumulator and calls after."""
        out = touched.select("k", "n0", "n", acc.alias("acc"), "acc0", calls.cast("bigint").alias("calls"))
        return out.select("k", "n0", "n", "acc", entry_changed(F.col("acc"), F.col("acc0")).alias("changed"),
                          "calls", F.lit(False).alias("lost"))


@dataclass(frozen=True)
class Extremum(Folded, TypedPairs):
    """min or max over typed values, natively (module docstring): the accumulator ``acc``."""

    reducer: OrderReducer
    value_type: str

    @property
    def columns(self) -> tuple[tuple[str, str], ...]:
        return (("acc", self.value_type),)

    @property
    def accumulator_type(self) -> str:
        return self.value_type

    def prepared(self, rows: DataFrame) -> DataFrame:
        return rows.withColumn("v", F.col("v").cast(self.value_type))

    def _reaches(self, removed: Column, extremum: Column) -> Column:
        """Skip's ⊖ declines: the removed value is at or beyond the extremum (or there is none)."""
        beyond = removed <= extremum if self.reducer.smallest else removed >= extremum
        return removed.isNotNull() & (extremum.isNull() | beyond)

    def touched(self, valid: DataFrame, old: DataFrame, values_after: ValuesAfter, keep: Keep) -> DataFrame:
        pick, extreme = (F.min, F.least) if self.reducer.smallest else (F.max, F.greatest)
        per_key = valid.groupBy("k").agg(
            F.sum("w").alias("dn"), F.sum(F.abs("w")).alias("calls"),
            pick(F.when(F.col("w") < 0, F.col("v"))).alias("removed"),
            pick(F.when(F.col("w") > 0, F.col("v"))).alias("added"))
        before = old.select("k", F.col("n").alias("n0"), F.col("acc").alias("acc0"))
        stats = keep(key_join(per_key, before, "left").select(
            "k", "n0", "acc0", "calls", "added",
            (F.coalesce(F.col("n0"), F.lit(0).cast("bigint")) + F.col("dn")).alias("n"),
            self._reaches(F.col("removed"), F.col("acc0")).alias("declined")))
        declined = stats.where(F.col("declined") & (F.col("n") > 0)).select("k")
        again = values_after(declined).groupBy("k").agg(pick("v").alias("again"))
        out = key_join(stats, again, "left")
        acc = F.when(F.col("n") <= 0, F.lit(None)).when(F.col("declined"), F.col("again")).otherwise(
            extreme(F.col("acc0"), F.col("added"))).cast(self.value_type)
        # declined: its first ⊖ (the extremum first) declined, then one ⊕ per value left
        return self.finished(out, acc, F.when(F.col("declined"), 1 + F.col("n")).otherwise(F.col("calls")))


@dataclass(frozen=True)
class PythonFold(Folded):
    """A fold reducer folded in Python, bucket by bucket (module docstring): the accumulator
    ``acc`` as canonical JSON text. The pairs hold the values as they come (typed, or JSON
    text for ``json``): the check and the merges read them as a typed reducer's; the fold
    takes each value as its JSON text."""

    reducer: OrderReducer | PythonReducer
    value_type: str
    key_type: str
    buckets: int

    @property
    def columns(self) -> tuple[tuple[str, str], ...]:
        return (("acc", "string"),)

    @property
    def accumulator_type(self) -> str:
        return "string"

    @property
    def pair_value_type(self) -> str:
        return "string" if self.value_type == JSON_TEXT else self.value_type

    def reported(self, value: Any) -> Any:
        return value if self.value_type == JSON_TEXT else plain(value)

    def prepared(self, rows: DataFrame) -> DataFrame:
        return rows.withColumn("v", F.col("v").cast(self.pair_value_type))

    def _text(self) -> Column:
        """A value as the fold takes it: its JSON text."""
        return json_text(F.col("v"), self.value_type).alias("v")

    def _folded(self, rows: DataFrame, with_values: bool) -> DataFrame:
        """``rows`` (:data:`FOLD_INPUT`) hash-partitioned by key into :attr:`buckets`
        partitions, each folded by one Python call (:func:`_bucket_fold`): no sort, and every
        partition a bucket, so no two buckets share a task."""
        schema = f"k {self.key_type}, n0 bigint, n bigint, acc string, acc0 string, declined boolean, calls bigint"
        fold = _bucket_fold(*fold_functions(self.reducer), with_values=with_values)
        return rows.repartition(self.buckets, "k").mapInPandas(fold, schema)

    def touched(self, valid: DataFrame, old: DataFrame, values_after: ValuesAfter, keep: Keep) -> DataFrame:
        none = F.lit(None).cast("string")
        changes = valid.select("k", F.lit("change").alias("kind"), "part", self._text(), "w", none.alias("acc"))
        entries = key_join(old, valid.select("k").distinct(), "left_semi").select(
            "k", F.lit("key").alias("kind"), none.alias("part"), none.alias("v"), F.col("n").alias("w"), "acc")
        folded = keep(self._folded(changes.unionByName(entries), with_values=False))
        # the keys whose ⊖ declined, updated again with their values at hand: counted first (the
        # fold's one job), so a batch where none declined reads no stored pair
        declined = folded.where(F.col("declined") & (F.col("n") > 0))
        if declined.isEmpty():
            return self.finished(folded, F.col("acc"), F.col("calls"))
        keys = declined.select("k")
        held = values_after(keys).select("k", F.lit("held").alias("kind"), none.alias("part"), self._text(),
                                         F.col("m").alias("w"), none.alias("acc"))
        again_input = declined.where(F.col("n0").isNotNull()).select(
            "k", F.lit("key").alias("kind"), none.alias("part"), none.alias("v"), F.col("n0").alias("w"),
            F.col("acc0").alias("acc")).unionByName(
            key_join(changes, keys, "left_semi")).unionByName(held)
        again = self._folded(again_input, with_values=True)
        out = folded.where(~(F.col("declined") & (F.col("n") > 0))).unionByName(again)
        return self.finished(out, F.col("acc"), F.col("calls"))


BucketFold = Callable[[Iterator[pd.DataFrame]], Iterator[pd.DataFrame]]

#: the rows a bucket gets (:class:`PythonFold`): ``kind`` ``key`` (a key's entry before:
#: ``acc``, and its size as ``w``), ``change`` (``part, v, w``), ``held`` (a value ``v``
#: the key holds after the batch, ``w`` times)
FOLD_INPUT = ("k", "kind", "part", "v", "w", "acc")


def _bucket_fold(initial: Any, add: Callable[[Any, Any], Any], remove: Callable[[Any, Any], Any | None],
                 with_values: bool) -> BucketFold:
    """A bucket's keys (its rows, in Arrow batches) updated from their entries before by their
    changes (:func:`~spark_impl.reduce.keyed_fold.skip_update`); ``with_values``: their values
    after the batch are among the rows, so a declined ⊖ recomputes the key, else it stops
    there (``declined``)."""

    def fold_bucket(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        entries: dict[Any, tuple[str | None, int]] = {}
        held: dict[Any, dict[str, int]] = {}
        # per key, per part: its removals and additions per value, tallied as they come (one
        # pass over the rows: a key's changes are not listed first); per key, its net weight
        tallies: dict[Any, dict[str, Tally]] = {}
        net: dict[Any, int] = {}
        for rows in batches:
            keys = rows["k"].tolist()
            if rows["k"].dtype.kind not in "iufb":  # numbers come out of tolist plain already
                keys = [_plain_key(k) for k in keys]
            columns = (rows[c].tolist() for c in FOLD_INPUT[1:])
            for k, kind, part, v, w, acc in zip(keys, *columns, strict=True):
                w = int(w)
                if kind == "change":
                    at_key = tallies.get(k)
                    if at_key is None:
                        at_key = tallies[k] = {}
                    counts = at_key.get(part)
                    if counts is None:
                        counts = at_key[part] = ({}, {})
                    if w > 0:
                        counts[1][v] = counts[1].get(v, 0) + w
                    else:
                        counts[0][v] = counts[0].get(v, 0) - w
                    net[k] = net.get(k, 0) + w
                elif kind == "key":
                    entries[k] = (acc, w)
                else:
                    held.setdefault(k, {})[v] = w
        out = []
        for k, at_key in tallies.items():
            parts = [at_key[part] for part in sorted(at_key)] if len(at_key) > 1 else list(at_key.values())
            acc0, n0 = entries.get(k, (None, None))
            before = None
            if with_values:  # the values before the batch: those after, less its changes
                before = dict(held.get(k, {}))
                for removed, added in parts:
                    for v, count in removed.items():
                        before[v] = before.get(v, 0) + count
                    for v, count in added.items():
                        before[v] = before.get(v, 0) - count
            start = decode(acc0) if acc0 is not None else initial
            acc, calls, declined = skip_update(initial, add, remove, start, parts, before)
            n = (n0 or 0) + net[k]
            text = encode(acc) if n > 0 and not declined else None
            out.append((k, n0, n, text, acc0, declined, calls))
        yield pd.DataFrame(out, columns=["k", "n0", "n", "acc", "acc0", "declined", "calls"])

    return fold_bucket


def _plain_key(k: Any) -> Any:
    return k.item() if hasattr(k, "item") else k


def accumulation_for(reducer: SparkReducer, value_type: str, key_type: str, buckets: int) -> Accumulation:
    """The accumulation of ``reducer`` over values of ``value_type`` (``json``: JSON text)."""
    if isinstance(reducer, GroupReducer):
        return Sums(reducer, value_type)
    if isinstance(reducer, OrderReducer) and value_type != JSON_TEXT:
        return Extremum(reducer, value_type)
    return PythonFold(reducer, value_type, key_type, buckets)
