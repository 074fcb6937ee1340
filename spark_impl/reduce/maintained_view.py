"""Skip's ``reduce`` as a maintained view on Structured Streaming (SKIP-DEF-5/8/9/10).

The library face::

    from spark_impl.reduce.maintained_view import maintained_view
    view = maintained_view(changes, "sum")            # changes: key, value[, weight] (streaming)
    query = (view.updates.writeStream
             .foreachBatch(view.foreach_batch(lambda batch_changes, batch_id: batch_changes.show()))
             .option("checkpointLocation", "file:///tmp/ck").start())

``changes`` is a streaming (or batch) DataFrame of ``key, value, weight`` rows:
value ``v`` occurs ``weight`` more times at ``key`` (negative: fewer; a missing
weight is +1). ``view.updates`` is the stateful streaming plan; inside
``foreachBatch``, :meth:`MaintainedView.changes` turns a micro-batch of it into
the view's changes ``key, present, accumulator`` (exactly the keys whose view
entry differs), after refusing the micro-batch with :class:`InvalidDelta` if it
removes a value not present (SKIP-DEF-8: Δ⁻ ⊆ C; the query then stops with the
batch uncommitted, so the state is unchanged). A micro-batch may hold several
*parts* (optional column ``part``, e.g. one per input file: Spark's file source
puts more than one file in a micro-batch when asked to, and after a restart):
the parts are deltas applied in ``part`` order, each checked against the
multiset the parts before it leave (SKIP-DEC-SPARK-PARTS). :meth:`MaintainedView.read_view`
reads the whole view as of a committed micro-batch from the checkpoint.

State (SKIP-DEC-SPARK-STATE; figures in that catalog entry) lives in the
state store, partitioned by key, committed atomically with each micro-batch,
durable in the checkpoint location (any Hadoop path):

* **group reducers** (sum, count, any vector of sums: SKIP-DEF-2 with an
  inverse) are one *native* streaming aggregation in update mode over tagged
  rows: per key ``(n, Σ w·contribution(v))`` and per (key, value) the
  multiplicity. The raw micro-batch is unioned into the same output, so the
  batch handler sees, for every touched key and pair, the new state and the
  batch's own delta: the old state is ``new - delta`` (a group), which gives the
  exact changes and the Δ⁻ ⊆ C check (a removal ``r`` of a pair whose new
  multiplicity is ``m`` after adding ``a`` is valid iff ``r <= m - a + r``).
  Integers are ``decimal(38,0)``: exact, and an overflow fails the batch
  (Spark's ANSI arithmetic) instead of rounding;
* **fold reducers** (min, max, user ``(initial, add, remove)``) are one
  ``transformWithStateInPandas`` operator (:mod:`spark_impl.reduce.keyed_fold`) over
  hash buckets of the key, one state entry per key and per (key, value), the bucket
  count and the state's layout recorded with the checkpoint
  (:mod:`spark_impl.reduce.fold_buckets`).

The driver holds handles only: a micro-batch's changes stay a DataFrame.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from spark_impl.connect import is_connect
from spark_impl.errors import SparkEngineError
from spark_impl.reduce.fold_buckets import fold_buckets
from spark_impl.reduce.group_batch import BatchFacts, FactsObserved, changes_observed, overflowed
from spark_impl.reduce.group_generations import (
    GENERATION,
    WATERMARK_DELAY,
    Generations,
    GroupCounts,
    generation_number,
    generation_time,
    newest_generation,
)
from spark_impl.reduce.keyed_fold import (
    INVALID_MARKER,
    InvalidDeltaError,
    InvalidRowError,
    KeyedFold,
    output_schema,
)
from spark_impl.reduce.reducer_kinds import (
    GroupReducer,
    OrderReducer,
    PythonReducer,
    SparkReducer,
    builtin_reducer,
)

#: the value type of a column that already holds canonical JSON text (suite values)
JSON_TEXT = "json"


class Refused(SparkEngineError):
    """A micro-batch refused whole (state unchanged), naming the input ``file`` at fault if known."""

    file: str | None


class InvalidDelta(Refused):
    """Δ⁻(k) ⊄ C(k): a micro-batch removes ``value`` at ``key`` more often than it occurs.

    ``others``: the same breach at other keys of the micro-batch, each key's first, when the
    check that found this one saw them too (the group path's, up to :data:`REFUSALS_NAMED`
    pairs); a caller whose batch gathers independent sources by key (the suite's lockstep
    runner: one case a key prefix) takes them all out at once. Empty when not known."""

    def __init__(self, key: Any, value: Any, available: int, removed: int,
                 file: str | None = None) -> None:
        where = f" (in {file})" if file else ""
        super().__init__(
            "invalid-delta",
            f"invalid delta{where}: key {key!r} holds value {value!r} {available} time(s) but the "
            f"batch removes it {removed} time(s) (Δ⁻(k) must be contained in C(k), SKIP-DEF-8)")
        self.key, self.value, self.available, self.removed, self.file = (
            key, value, available, removed, file)
        self.others: tuple[InvalidDelta, ...] = ()  # set by the check that saw them


#: How many breaking (key, value) pairs the group path's check brings to the driver to
#: name a refused micro-batch's breaches (:attr:`InvalidDelta.others`): the first by key.
REFUSALS_NAMED = 1000


class InvalidInput(Refused):
    """A change row that is no change (column ``invalid``, ``detail`` saying why), or a
    key's accumulator that leaves its type (an overflow)."""

    def __init__(self, detail: str, file: str | None = None) -> None:
        where = f" (in {file})" if file else ""
        super().__init__("malformed-input", f"invalid input{where}: {detail}")
        self.detail, self.file = detail, file


def refusal_in(error: BaseException) -> Refused | None:
    """The refusal an executor raised inside a failed micro-batch, if that is why it failed."""
    text = str(error)
    if isinstance(error, Refused):
        return error
    start = text.find(INVALID_MARKER)
    if start < 0:
        return None
    payload = text[start + len(INVALID_MARKER):text.index(":END", start)]
    facts = json.loads(payload)
    if "detail" in facts:
        return InvalidInput(facts["detail"], facts["file"])
    return InvalidDelta(facts["key"], facts["value"], facts["available"], facts["removed"],
                        facts["file"])


def carried(refusal: Refused) -> Exception:
    """``refusal`` as an executor's error carries it: its facts in its text after
    :data:`~spark_impl.reduce.keyed_fold.INVALID_MARKER`, which :func:`refusal_in` reads back."""
    if isinstance(refusal, InvalidDelta):
        return InvalidDeltaError(refusal.key, refusal.value, refusal.available, refusal.removed,
                                 refusal.file)
    if isinstance(refusal, InvalidInput):
        return InvalidRowError(refusal.detail, refusal.file)
    return refusal


@contextmanager
def refusals_carried(batch: DataFrame) -> Iterator[None]:
    """Around a ``foreachBatch`` function's work: over Spark Connect the function runs in the
    server's Python worker, and what it raises reaches the client as the text of the query's
    error, never as the object (nor does anything it sets on an object of the client's):
    a refusal is raised there as the text :func:`refusal_in` reads back (:func:`carried`). On a
    classic session it is raised as it is."""
    try:
        yield
    except Refused as refusal:
        if is_connect(batch.sparkSession):
            raise carried(refusal) from None
        raise


def part_refusal(key: Any, value: Any, before: int, steps: list[Any],
                 said: Callable[[Any], Any] | None = None) -> InvalidDelta:
    """The first part of ``steps`` (rows ``part, m, file`` sorted) removing ``value`` more
    often than it occurs at that point, from multiplicity ``before`` (the value named as
    ``said`` gives it; default :func:`plain`)."""
    level = before
    for _, group in itertools.groupby(steps, key=lambda step: step["part"]):
        part = list(group)
        removed = -sum(int(step["m"]) for step in part if step["m"] < 0)
        if removed > level:
            file = next(step["file"] for step in part if step["m"] < 0)
            return InvalidDelta(plain(key), (said or plain)(value), level, removed, file)
        level += sum(int(step["m"]) for step in part)
    raise AssertionError(f"no part of {steps!r} removes {value!r} at {key!r} beyond {before}")


def lowest_level(before: Column, steps: Column) -> Column:
    """The lowest multiplicity a pair reaches from ``before`` through ``steps``, an array of
    ``struct(part, m, file)`` sorted (a part's removals before its additions, SKIP-DEF-10):
    below 0, some part removes the value more often than it then occurs (Δ⁻ ⊄ C)."""
    return F.aggregate(
        steps, F.struct(before.alias("level"), before.alias("low")),
        lambda acc, x: F.struct((acc["level"] + x["m"]).alias("level"),
                                F.least(acc["low"], acc["level"] + x["m"]).alias("low")),
        lambda acc: acc["low"])


def first_of_each_key(refusals: list[InvalidDelta]) -> InvalidDelta | None:
    """Of breaches sorted by (key, value): the first, with the first at each other key as its
    :attr:`~InvalidDelta.others` (None: no breach)."""
    firsts = [next(at_key) for _, at_key in itertools.groupby(refusals, key=lambda r: r.key)]
    if not firsts:
        return None
    first, *others = firsts
    first.others = tuple(others)
    return first


def plain(value: Any) -> Any:
    """An integer read as ``decimal(38,0)`` as the integer it is (messages say ``3``, not
    ``Decimal('3')``)."""
    if isinstance(value, Decimal) and value == value.to_integral_value():
        return int(value)
    return value


def normalise_changes(changes: DataFrame) -> DataFrame:
    """``key, value[, weight][, file][, part][, invalid]`` (or ``k, v, w``) as ``k, v, w, file,
    part, invalid``; zero weights dropped. A missing ``part`` makes the micro-batch one delta;
    ``invalid``, when not null, says why the row is no change (the micro-batch is refused)."""
    cols = set(changes.columns)
    k = F.col("k") if "k" in cols else F.col("key")
    v = F.col("v") if "v" in cols else F.col("value")
    weight_name = "w" if "w" in cols else "weight" if "weight" in cols else None
    one = F.lit(1).cast("bigint")
    w = F.coalesce(F.col(weight_name).cast("bigint"), one) if weight_name else one
    none = F.lit(None).cast("string")
    file = F.col("file").cast("string") if "file" in cols else none
    part = F.coalesce(F.col("part").cast("string"), F.lit("")) if "part" in cols else F.lit("")
    invalid = F.col("invalid").cast("string") if "invalid" in cols else none
    rows = changes.select(k.alias("k"), v.alias("v"), w.alias("w"), file.alias("file"),
                          part.alias("part"), invalid.alias("invalid"))
    return rows.where((F.col("w") != 0) | F.col("invalid").isNotNull())


@dataclass
class FactsSeen:
    """The facts of the last group micro-batch :meth:`MaintainedView.changes` let through (in
    this process: over Spark Connect, ``foreachBatch`` runs on the server)."""

    last: BatchFacts | None = None


@dataclass(frozen=True)
class MaintainedView:
    """A reduce view over a stream of changes: the stateful plan and its batch handler."""

    reducer: SparkReducer
    updates: DataFrame
    key_type: str
    value_type: str
    #: a group view's generation (:mod:`spark_impl.reduce.group_generations`)
    generation: int = 0
    #: whether its plan holds the generation's watermark (an older generation awaits eviction)
    evicting: bool = False
    seen: FactsSeen = field(default_factory=FactsSeen, compare=False)

    @property
    def native(self) -> bool:
        return isinstance(self.reducer, GroupReducer)

    @property
    def accumulator_type(self) -> str:
        r = self.reducer
        if isinstance(r, GroupReducer):
            element = r.acc_type or self.value_type
            return element if r.scalar else f"array<{element}>"
        if isinstance(r, OrderReducer) and self.value_type != JSON_TEXT:
            return self.value_type
        return "string"  # a user reducer's accumulator, as canonical JSON text

    # --- inside foreachBatch ---------------------------------------------------------

    def changes(self, batch: DataFrame) -> DataFrame:
        """The changes ``key, present, accumulator`` of one micro-batch of :attr:`updates`
        (``batch`` persisted by the caller); raises :class:`InvalidDelta` first if the
        micro-batch removes a value not present. A group reducer's changes come back
        persisted (computed and checked in one job): :meth:`batch_changes` unpersists them."""
        if isinstance(self.reducer, GroupReducer):
            observed = FactsObserved()
            staged = changes_observed(batch, self._components(), self._group_accumulator(),
                                      observed).persist()
            try:
                # the one job: changes materialised (a write to nowhere: no count's extra
                # stage), refusal counts observed
                staged.write.format("noop").mode("overwrite").save()
                facts = observed.read()
                self._refuse_group(batch, facts)
                self.seen.last = facts
            except BaseException:
                staged.unpersist()
                raise
            return staged
        # an executor's refusal surfaces when the caller runs an action (see refusal_in)
        return batch.where("changed").select(F.col("k").alias("key"), "present",
                                             self._fold_accumulator().alias("accumulator"))

    @contextmanager
    def batch_changes(self, batch: DataFrame) -> Iterator[DataFrame]:
        """Inside ``foreachBatch``: ``batch`` persisted, its :meth:`changes` (refusing it
        first if it must be), both released on leaving."""
        batch.persist()
        try:
            changes = self.changes(batch)
            try:
                yield changes
            finally:
                changes.unpersist()
        finally:
            batch.unpersist()

    def work(self, batch: DataFrame, by: Column | None = None) -> dict[Any, dict[str, int]]:
        """The micro-batch's work counters, ⊕/⊖ applications and keys touched (SKIP-THM-3),
        per value of ``by`` (a column over the key ``k``; default: one total, under ``None``)."""
        if isinstance(self.reducer, GroupReducer):
            return change_work(batch.where(F.col("kind") == "raw").withColumnRenamed("m", "w"), by)
        return work_counted(batch, F.sum("calls"), F.count(F.lit(1)), by)

    def foreach_batch(self, sink: Callable[[DataFrame, int], None]
                      ) -> Callable[[DataFrame, int], None]:
        """A ``foreachBatch`` function: validate the micro-batch, hand its changes to ``sink``."""

        def handle(batch: DataFrame, batch_id: int) -> None:
            with refusals_carried(batch), self.batch_changes(batch) as changes:
                sink(changes, batch_id)

        return handle

    # --- reading the state ---------------------------------------------------------------

    def read_view(self, spark: SparkSession, checkpoint: str, batch_id: int | None = None
                  ) -> DataFrame:
        """The whole view ``key, accumulator`` as of committed micro-batch ``batch_id``
        (default: the last), read from the state store in ``checkpoint``."""
        reader = spark.read.format("statestore")
        if batch_id is not None:
            reader = reader.option("batchId", batch_id)
        if isinstance(self.reducer, GroupReducer):
            keys = _group_state(reader.load(checkpoint)).where((F.col("kind") == "key") & (F.col("m") > 0))
            return keys.select(F.col("k").alias("key"), self._group_accumulator().alias("accumulator"))
        state = reader.option("stateVarName", "keys").load(checkpoint)
        entries = state.select(F.col("user_map_key.k").alias("k"), F.col("user_map_value.acc").alias("acc"))
        return entries.select(F.col("k").alias("key"), self._fold_accumulator().alias("accumulator"))

    def stored_sizes(self, spark: SparkSession, checkpoint: str) -> dict[str, int]:
        """What the state holds after the last committed micro-batch: ``rows``, the distinct
        (key, value) pairs present, and ``keys``, the keys of the view (read from the state)."""
        reader = spark.read.format("statestore")
        if isinstance(self.reducer, GroupReducer):
            live = _group_state(reader.load(checkpoint)).where(F.col("m") > 0)
            counts = {r["kind"]: int(r["n"]) for r in live.groupBy("kind").agg(  # two rows
                F.count(F.lit(1)).alias("n")).collect()}
            return {"rows": counts.get("pair", 0), "keys": counts.get("key", 0)}
        # one state entry per (key, value) and one per key (SKIP-DEC-SPARK-STATE)
        pairs = reader.option("stateVarName", "pairs").load(checkpoint).count()
        keys = spark.read.format("statestore").option("stateVarName", "keys").load(checkpoint).count()
        return {"rows": pairs, "keys": keys}

    def group_counts(self, spark: SparkSession, checkpoint: str, generation: int) -> GroupCounts:
        """A group view's groups held (its newest generation, after the last committed
        micro-batch): ``live``, multiplicity above 0; ``emptied``, at 0, unless that
        generation is older than ``generation`` (the one in force: then a compaction is done,
        which the next micro-batch reads)."""
        state = _group_state(spark.read.format("statestore").load(checkpoint))
        counted = state.agg(F.count_if(F.col("m") > 0).alias("live"),
                            F.count_if(F.col("m") == 0).alias("emptied"),
                            F.max(generation_number(F.col(GENERATION))).alias("newest")).first()
        assert counted is not None
        compacted = counted["newest"] is not None and int(counted["newest"]) < generation
        return GroupCounts(int(counted["live"]), 0 if compacted else int(counted["emptied"]))

    def state_generation(self, spark: SparkSession, checkpoint: str) -> int | None:
        """The newest generation a group view's state holds (None: no group)."""
        stored = spark.read.format("statestore").load(checkpoint)
        newest = stored.agg(F.max(generation_number(F.col(f"key.{GENERATION}")))).first()
        return None if newest is None or newest[0] is None else int(newest[0])

    def live_groups(self, spark: SparkSession, checkpoint: str) -> DataFrame:
        """A group view's live groups (after the last committed micro-batch) as the rows
        ``kind, k, v, w, a0..`` that re-state them in a new generation: the next one's input."""
        state = _group_state(spark.read.format("statestore").load(checkpoint)).where(F.col("m") > 0)
        return state.select("kind", "k", "v", F.col("m").alias("w"), *self._components())

    # --- the group path ----------------------------------------------------------------------

    def _components(self) -> list[str]:
        assert isinstance(self.reducer, GroupReducer)
        return [f"a{i}" for i in range(self.reducer.arity)]

    def _group_accumulator(self) -> Column:
        assert isinstance(self.reducer, GroupReducer)
        parts = [F.col(c) for c in self._components()]
        return parts[0] if self.reducer.scalar else F.array(*parts)

    def _refuse_group(self, batch: DataFrame, facts: BatchFacts) -> None:
        """Refuse the micro-batch if the one pass saw an invalid row, an overflow, or a
        removal beyond the multiplicity (a batch of several parts is checked part by part)."""
        if facts.invalid:
            refuse_invalid_row(batch)
        if facts.overflow:
            self._refuse_overflow(batch)
        if facts.several_parts and facts.removals:  # ``after - added`` is one part's check
            self._check_group(batch)
        elif facts.violations:
            self._check_group(batch)
            raise AssertionError(f"{facts}, but no pair breaks Δ⁻ ⊆ C part by part")

    def _refuse_overflow(self, batch: DataFrame) -> None:
        """Refuse the micro-batch for the first key whose accumulator (or size) overflowed,
        naming the batch's change at that key of largest magnitude and its file."""
        key = batch.where(overflowed(self._components())).orderBy("k").select("k").first()
        assert key is not None
        at_key = batch.where((F.col("kind") == "raw") & (F.col("k") == key["k"]))
        raise overflow_refusal(key["k"], at_key.withColumnRenamed("m", "w"), self.accumulator_type)

    def _check_group(self, batch: DataFrame) -> None:
        """Δ⁻ ⊆ C for each part of the micro-batch, in ``part`` order (SKIP-DEC-SPARK-PARTS),
        in one aggregation per (key, value), raising the first refusal's facts (the first at
        each other key in its ``others``): from the
        multiplicity before the batch (``after - net``), the batch's changes sorted by
        ``(part, weight)`` (a part's removals before its additions, SKIP-DEF-10) must never
        take it below 0. Run only when the one pass saw a breach, or removals across parts."""
        is_raw = F.col("kind") == "raw"
        per_pair = batch.where(F.col("kind") != "key").groupBy("k", "v").agg(
            F.sum(F.when(~is_raw, F.col("m"))).alias("after"),
            F.sum(F.when(is_raw, F.col("m"))).alias("net"),
            F.array_sort(F.collect_list(F.when(is_raw, F.struct("part", "m", "file")))).alias("steps"))
        before = F.col("after") - F.col("net")
        # a refusal's facts: at most REFUSALS_NAMED rows, brought up only when the batch is refused
        found = per_pair.where(lowest_level(before, F.col("steps")) < 0).orderBy("k", "v").limit(
            REFUSALS_NAMED).collect()
        refusal = first_of_each_key([part_refusal(row["k"], row["v"], int(row["after"]) - int(row["net"]),
                                                  row["steps"]) for row in found])
        if refusal is not None:
            raise refusal

    # --- the fold path -------------------------------------------------------------------------

    def _fold_accumulator(self) -> Column:
        acc = F.col("acc")
        if isinstance(self.reducer, OrderReducer) and self.value_type != JSON_TEXT:
            return acc.cast(self.value_type)
        return acc


def maintained_view(changes: DataFrame, reducer: str | SparkReducer,
                    value_type: str | None = None, buckets: int | None = None,
                    checkpoint: str | None = None,
                    generations: Generations | None = None) -> MaintainedView:
    """Maintain ``k ↦ fold(initial, C(k))`` over ``changes`` (see the module docstring).

    ``reducer`` is a built-in name (``sum``, ``count``, ``min``, ``max``) or a
    :class:`~spark_impl.reduce.reducer_kinds.SparkReducer` (``PythonReducer(name, initial, add,
    remove)`` for your own; ``remove`` may return ``None`` to decline). A fold reducer's
    keys are spread over ``buckets`` hash buckets (default: the session's shuffle
    partitions); pass the query's ``checkpoint`` to record the count there and have a
    restart keep it (:mod:`spark_impl.reduce.fold_buckets`). A group reducer's view runs in
    the generation in force of ``generations`` (its folders' rows are its input too), else in
    generation 0 (:mod:`spark_impl.reduce.group_generations`)."""
    rows = normalise_changes(changes)
    types = dict(rows.dtypes)
    key_type, value_type = types["k"], value_type or types["v"]
    r = builtin_reducer(reducer, value_type) if isinstance(reducer, str) else reducer
    generation, evicting = 0, False
    if isinstance(r, GroupReducer):
        if generations is not None:
            generation, evicting = generations.current, generations.evicting()
        updates = _group_updates(rows, r, value_type, generation, generations, evicting)
    else:
        count = fold_buckets(rows.sparkSession, checkpoint, buckets)
        updates = _fold_updates(rows, r, key_type, value_type, count)
    return MaintainedView(r, updates, key_type, value_type, generation, evicting)


def contributions(rows: DataFrame, r: GroupReducer, value_type: str) -> DataFrame:
    """Normalised change rows (:func:`normalise_changes`) with each one's contribution to its
    key's accumulator: columns ``k, v, w, a0.., file, part, invalid``.

    Exact: each contribution is multiplied by its weight in the accumulator's type
    (``decimal(38,0)`` for integers), a ``try_`` product, null on overflow whatever
    ``spark.sql.ansi.enabled`` says: an overflowing row is invalid (``invalid`` says why)."""
    acc_type = r.acc_type or value_type
    products = [F.try_multiply(c.cast(acc_type), F.col("w").cast(acc_type))
                for c in r.contribution(F.col("v").cast(value_type))]
    overflow = F.lit(False)
    for product in products:
        overflow = overflow | product.isNull()
    said = F.format_string(f"key %s: value %s times weight %s leaves {acc_type} (an overflow)",
                           F.col("k").cast("string"), F.col("v").cast("string"), F.col("w"))
    invalid = F.coalesce(F.col("invalid"), F.when(F.col("v").isNotNull() & overflow, said))
    return rows.select("k", F.col("v").cast(value_type).alias("v"), "w",
                       *[p.alias(f"a{i}") for i, p in enumerate(products)], "file", "part",
                       invalid.alias("invalid"))


def _group_updates(rows: DataFrame, r: GroupReducer, value_type: str, generation: int,
                   generations: Generations | None, evicting: bool) -> DataFrame:
    """One native aggregation over the valid rows tagged ``key`` and ``pair``, with the raw
    batch unioned in (tag ``raw``): columns ``kind, k, v, m, a0.., file, part, invalid``.
    Its groups are of generation ``generation``, the rows of ``generations``' folders (the
    live groups a compaction re-stated) aggregated with the changes, not among the raw rows;
    ``evicting``: under the generation's watermark, which evicts the groups of older ones (and
    costs a pass over the whole state each micro-batch: only while one awaits eviction).

    Exact (:func:`contributions`): every sum is a ``try_`` one, null on overflow: an
    overflowing sum refuses the micro-batch before it is committed."""
    comps = [f"a{i}" for i in range(r.arity)]
    base = contributions(rows, r, value_type)
    valid = base.where(F.col("invalid").isNull())
    tagged = valid.select(F.explode(F.array(F.lit("key"), F.lit("pair"))).alias("kind"), "*")
    inputs = tagged.select("kind", "k", "v", "w", *comps)
    if generations is not None:
        inputs = inputs.unionByName(generations.stream(inputs.schema))
    inputs = inputs.withColumn(GENERATION, generation_time(generation))
    if evicting:
        inputs = inputs.withWatermark(GENERATION, WATERMARK_DELAY)
    is_key = F.col("kind") == "key"
    inputs = inputs.withColumn("v", F.when(~is_key, F.col("v")))  # a key's group has no value
    state = inputs.groupBy("kind", "k", "v", GENERATION).agg(
        F.try_sum("w").alias("m"), *[F.try_sum(F.when(is_key, F.col(c))).alias(c) for c in comps])
    none = F.lit(None).cast("string")
    state = state.select("kind", "k", "v", "m", *comps, none.alias("file"), none.alias("part"),
                         none.alias("invalid"))
    raw = base.select(F.lit("raw").alias("kind"), "k", "v", F.col("w").alias("m"), *comps, "file",
                      "part", "invalid")
    return state.unionByName(raw)


def overflow_refusal(key: Any, changes_at_key: DataFrame, accumulator_type: str) -> InvalidInput:
    """The refusal of a batch in which ``key``'s accumulator (or size) overflowed, naming the
    batch's change at that key (rows ``v, w, a0, part, file``) of largest magnitude."""
    row = changes_at_key.orderBy(F.abs(F.col("a0")).desc_nulls_first(), "part").first()
    assert row is not None
    return InvalidInput(f"key {plain(key)!r}: its accumulator leaves {accumulator_type} (an "
                        f"overflow) when value {plain(row['v'])!r} is added {row['w']} time(s)",
                        row["file"])


def change_work(changes: DataFrame, by: Column | None = None) -> dict[Any, dict[str, int]]:
    """A group reducer's work counters over a batch's change rows ``k, w`` (SKIP-THM-3): one
    ⊕ or ⊖ per occurrence added or removed, and the distinct keys touched."""
    return work_counted(changes, F.sum(F.abs("w")), F.countDistinct("k"), by)


def work_counted(rows: DataFrame, calls: Column, keys: Column, by: Column | None
                 ) -> dict[Any, dict[str, int]]:
    """``calls`` and ``keys`` aggregated over ``rows`` per value of ``by`` (a column over the
    key ``k``; None: one total, under ``None``)."""
    group = (by if by is not None else F.lit(None)).alias("group")
    # small: one row in all, or one per ``by`` group (a conformance case)
    counted = rows.groupBy(group).agg(calls.alias("calls"), keys.alias("keys")).collect()
    out = {r["group"]: {"reducer_calls": int(r["calls"] or 0), "keys_touched": int(r["keys"])}
           for r in counted}
    return out if by is not None else {None: out.get(None, {"reducer_calls": 0, "keys_touched": 0})}


def refuse_invalid_row(batch: DataFrame) -> None:
    """Refuse the micro-batch (rows ``invalid, file, part``) for its invalid row of the
    first part (file) holding one, if it holds one."""
    row = batch.where(F.col("invalid").isNotNull()).orderBy("part", "invalid").first()
    if row is not None:
        raise InvalidInput(row["invalid"], row["file"])


def _group_state(stored: DataFrame) -> DataFrame:
    """A group view's state as read from the state store (its newest generation): rows
    ``kind, k, v, g, m, a0..``."""
    state = stored.select("key.*", F.col("value").cast(_buffer_names(stored)).alias("value"))
    return newest_generation(state.select("kind", "k", "v", GENERATION, "value.*"))


def _buffer_names(stored: DataFrame) -> str:
    """The aggregation buffer's struct type with our names (a struct cast is positional):
    ``m`` for Σ w, ``a<i>`` for each component's sum (``isEmpty`` flags renamed aside)."""
    buffer: Any = stored.schema["value"].dataType  # a StructType
    fields = buffer.fields
    names: list[str] = []
    for part in fields:
        if part.name == "isEmpty":
            names.append(f"empty{len(names)}")
        else:
            names.append("m" if not names else f"a{sum(1 for n in names if n.startswith('a'))}")
    return "struct<" + ", ".join(f"{n}: {f.dataType.simpleString()}"
                                 for n, f in zip(names, fields, strict=True)) + ">"


def json_text(v: Column, value_type: str) -> Column:
    """A value as its JSON text (``json``: the column holds canonical JSON text already)."""
    if value_type == JSON_TEXT:
        return v
    as_array = F.to_json(F.array(v))  # "[x]": the element's JSON text between the brackets
    return as_array.substr(F.lit(2), F.length(as_array) - 2)


def _fold_updates(rows: DataFrame, r: OrderReducer | PythonReducer, key_type: str,
                  value_type: str, buckets: int) -> DataFrame:
    """The :class:`~spark_impl.reduce.keyed_fold.KeyedFold` operator over hash buckets of the key."""
    processor = _fold_processor(r, key_type)
    payload = rows.select("k", json_text(F.col("v"), value_type).alias("v"), "w", "file", "part",
                          "invalid")
    bucketed = payload.withColumn("bucket", F.pmod(F.hash("k"), F.lit(buckets)))
    return bucketed.groupBy("bucket").transformWithStateInPandas(
        statefulProcessor=processor, outputStructType=output_schema(key_type),
        outputMode="Append", timeMode="None")


def _fold_processor(r: OrderReducer | PythonReducer, key_type: str) -> KeyedFold:
    return KeyedFold(*fold_functions(r), key_type)


def fold_functions(r: OrderReducer | PythonReducer
                   ) -> tuple[Any, Callable[[Any, Any], Any], Callable[[Any, Any], Any | None]]:
    """A fold reducer's ``(initial, add, remove)`` in Python: a user's as declared; min and max
    as Skip's built-ins, whose ⊖ declines when the removed value may be the extremum."""
    if isinstance(r, PythonReducer):
        return r.initial, r.add, r.remove
    if r.smallest:
        return None, _min_add, _min_remove
    return None, _max_add, _max_remove


def _min_add(a: Any, v: Any) -> Any:
    return v if a is None or v < a else a


def _min_remove(a: Any, v: Any) -> Any:
    return None if a is None or v <= a else a


def _max_add(a: Any, v: Any) -> Any:
    return v if a is None or v > a else a


def _max_remove(a: Any, v: Any) -> Any:
    return None if a is None or v >= a else a
