"""A reduce view held in tables: the bulk path (SKIP-DEC-SPARK-BULK).

The streaming view (:mod:`spark_impl.reduce.view_runner`) keeps its state in the state
store, one RocksDB point update per key and per (key, value) pair a batch touches: cheap for
a small batch over a large state, and about 10 µs a group for a large one (a batch of 10^6
changes over 2·10^6 rows touches 1.2·10^6 groups). :class:`BulkViewRunner` is stepped the
same way (:meth:`~BulkViewRunner.step`, :meth:`~BulkViewRunner.step_folder`, the same sink,
refusals and work counters) but keeps the state in Parquet tables and merges each batch
into them in bulk:

* ``keys``: per key of the view its size ``n`` (Σ w) and accumulator: a group reducer's sums
  ``a0..`` (Σ w·contribution), a fold reducer's ``acc``
  (:mod:`spark_impl.reduce.bulk_accumulations` says how a batch moves each kind); a base
  and runs, each step's run its touched keys' entries (size 0: the key is gone), a key's
  newest entry in force, so a step costs O(touched keys) here; once the runs pass
  :data:`RUNS_SHARE` of the base, or a step touches more than :data:`KEY_RUN_SHARE` of the
  keys, the keys are written as a new base;
* ``pairs``: rows ``k, v, m`` whose weights, summed per (key, value), are the pairs'
  multiplicities: a *base* and *runs* (each step's batch rows as they came, appended,
  unshuffled; a batch given as a folder of Parquet files, its files copied, not its rows
  written again); every reader sums a pair's rows. A step reads them only for the pairs it
  removes from (the check Δ⁻ ⊆ C, SKIP-DEF-8) and for the keys whose ⊖ declined (min, max,
  a user's reducer: recomputed from their values, SKIP-DEC-PARTIAL). A batch that would take
  the runs past :data:`RUNS_SHARE` of the base is merged with them and the base instead, into
  a new base of live pairs, one row each: one aggregation per pair, which is also the batch's
  check (a large batch pays for one pass over the pairs, not a check, a run and a merge).

Past :data:`MAX_RUNS` runs (many small steps), the runs of the pairs and of the keys are each
compacted into one, so a step reads a bounded number of tables.

A step's removals are checked against the multiplicities before it, part by part when the
batch has several (SKIP-DEC-SPARK-PARTS), and its changes are exactly the keys whose entry
differs. The
state's versions are folders under ``ROOT/state``; a version is committed by its manifest
(``NNNNNN.json``, written aside and renamed into place), so a step that fails, or a
process killed mid-step, leaves the last committed version in force, and a runner built
again on the same ``ROOT`` resumes from it. The sink sees a step's changes before the
version is committed (as ``foreachBatch`` does): a step interrupted in between hands them
over again when it is run again.

Every reducer runs here: sums natively, min and max natively over typed values, a user's
reducer (and min or max over JSON text) in Python, one call per hash partition of keys. An
adaptive view (:mod:`spark_impl.reduce.adaptive_view`) moves group reducers' views alone.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import reduce
from typing import Any, Literal

from pyspark.sql import Column, DataFrame, GroupedData, Observation, SparkSession
from pyspark.sql import functions as F

from spark_impl.driver_rows import frame_of_rows
from spark_impl.errors import cause
from spark_impl.reduce.bulk_accumulations import Accumulation, accumulation_for, key_join
from spark_impl.reduce.maintained_view import (
    JSON_TEXT,
    REFUSALS_NAMED,
    InvalidDelta,
    Refused,
    first_of_each_key,
    lowest_level,
    normalise_changes,
    part_refusal,
    plain,
    refuse_invalid_row,
)
from spark_impl.reduce.reducer_kinds import GroupReducer, SparkReducer, builtin_reducer
from spark_impl.reduce.view_runner import Retry, Sink
from spark_impl.storage.files import file_system

log = logging.getLogger(__name__)

#: Where a group reducer's view keeps its state: the state store, point updates per group
#: (``stream``: :class:`~spark_impl.reduce.view_runner.ViewRunner`), or tables merged in bulk
#: (``bulk``: :class:`BulkViewRunner`).
ReducePath = Literal["stream", "bulk"]

#: A batch that would take the runs' rows past this share of the base's (and :data:`RUNS_MIN`)
#: is merged with them into a new base: a step's check reads the base and every run.
RUNS_SHARE = 0.5
RUNS_MIN = 10_000
#: A step that touches more than this share of the keys base's rows (and :data:`RUNS_MIN`)
#: writes a new keys base rather than a run: a run that large soon takes the runs past their
#: share, and each step before then resolves every key's newest entry across base and runs (a
#: shuffle of them all), where a base written from a base alone is an anti-join with the
#: touched keys. At 2·10^6 rows (200,000 keys), 10^5-change steps (39% of the keys) took
#: 1.2-1.3 s each so, against 1.1 and 1.9-2.0 s in turn with runs.
KEY_RUN_SHARE = 0.1
#: The runs (of the pairs, of the keys) are compacted into one once there are this many and
#: they hold at most :data:`COMPACT_ROWS` rows (many small steps), or once there are four
#: times as many whatever they hold: a step reads every run, and a table more is a file (a
#: task) more for each read, while compacting large runs would cost what reading them does.
MAX_RUNS = 4
COMPACT_ROWS = 100_000
#: A single-part batch's check reads the stored rows of the pairs it removes from, those pairs
#: broadcast up to this many (beyond, a shuffled join): ~50 bytes each on the driver.
BROADCAST_PAIRS = 2_000_000


@dataclass(frozen=True)
class LastBatch:
    """What the previous step's batch was: its valid ``rows`` and whether it ``removed``. The
    next batch is predicted to be like it (:meth:`BulkViewRunner._checked_with_keys`)."""

    rows: int = 0
    removed: bool = False


@dataclass(frozen=True)
class Version:
    """A committed state: its number, the keys tables and the pair tables (each base first,
    with their base's and runs' rows); ``label``: what the caller called the step that made
    it (a micro-batch id), if anything; ``raw``: the pair runs that are a batch's own files
    (columns ``k, v, w``, :meth:`BulkViewRunner.step_folder`), the others ``k, v, m``."""

    number: int
    keys: tuple[str, ...]
    pairs: tuple[str, ...]
    base_rows: int
    run_rows: int
    label: int | None = None
    key_base_rows: int = 0
    key_run_rows: int = 0
    raw: tuple[str, ...] = ()

    def manifest(self) -> str:
        return json.dumps({"keys": list(self.keys), "pairs": list(self.pairs), "base_rows": self.base_rows,
                           "run_rows": self.run_rows, "label": self.label, "key_base_rows": self.key_base_rows,
                           "key_run_rows": self.key_run_rows, "raw": list(self.raw)}, sort_keys=True)

    @staticmethod
    def parse(number: int, text: str) -> Version:
        facts = json.loads(text)
        keys = facts["keys"]  # one table's name (or none) before the keys had runs
        return Version(number, tuple(keys) if isinstance(keys, list) else (keys,) if keys else (),
                       tuple(facts["pairs"]), int(facts["base_rows"]), int(facts["run_rows"]), facts.get("label"),
                       int(facts.get("key_base_rows", 0)), int(facts.get("key_run_rows", 0)),
                       tuple(facts.get("raw", ())))


class BulkViewRunner:
    """A reduce view over table-held state, stepped by the caller (module docstring)."""

    def __init__(self, spark: SparkSession, reducer: str | SparkReducer, key_type: str,
                 value_type: str, root: str, sink: Sink, *, value_column_type: str | None = None,
                 with_work: bool = False, work_by: Column | None = None, **_: Any) -> None:
        """As :class:`~spark_impl.reduce.view_runner.ViewRunner` (its streaming options,
        ``polling_delay`` and the like, have nothing to set here)."""
        r = builtin_reducer(reducer, value_type) if isinstance(reducer, str) else reducer
        self.spark, self.reducer, self.sink = spark, r, sink
        self.root = root.rstrip("/")
        self.fs = file_system(spark, self.root)
        self.key_type, self.value_type = key_type, value_type
        buckets = int(spark.conf.get("spark.sql.shuffle.partitions") or 1)
        self.accumulation: Accumulation = accumulation_for(r, value_type, key_type, buckets)
        self.columns = [name for name, _ in self.accumulation.columns]
        column_type = value_column_type or ("string" if value_type == JSON_TEXT else value_type)
        self.schema = f"k {key_type}, v {column_type}, w bigint"
        #: whether a batch's own files may be a run: the pairs hold values as the batch's column
        #: has them (an accumulation casts a value to its pair type at most)
        self._raw_runs = self.accumulation.pair_value_type == column_type
        self.with_work, self.work_by = with_work, work_by
        #: the last step's work counters, per value of ``work_by`` (else under ``None``)
        self.work: dict[object, dict[str, int]] = {}
        self.refusal: Refused | None = None
        self.progress: dict[str, Any] | None = None  # no streaming query: no progress report
        self.state = f"{self.root}/state"
        self.fs.mkdirs(self.state)
        self.version = self._committed()
        self.steps = self.version.number
        self.last_batch = LastBatch()

    # --- the committed state ---------------------------------------------------------------

    def _committed(self) -> Version:
        numbers = [int(name[:-5]) for name in self.fs.names(self.state)
                   if name.endswith(".json") and name[:-5].isdigit()]
        if not numbers:
            return Version(0, (), (), 0, 0)
        number = max(numbers)
        text = self.fs.read_text(f"{self.state}/{number:06d}.json")
        assert text is not None, f"{self.state}: manifest {number} listed but unreadable"
        return Version.parse(number, text)

    def committed(self) -> bool:
        """Whether a step has been committed (before one, the view is empty)."""
        return self.version.number > 0

    @property
    def label(self) -> int | None:
        """The label of the step that committed the state in force (None: none given, or no step)."""
        return self.version.label

    def _keys(self, at: DataFrame | None = None) -> DataFrame:
        """The keys table ``k, n, <accumulator columns>``: each key's newest entry in the base
        and the runs, the keys of size 0 (gone) left out. With runs, ``at`` (a frame ``k``)
        narrows the tables to those keys before their entries are compared (Spark chooses the
        join: a small batch's keys are broadcast); the base alone is read whole."""
        if len(self.version.keys) == 1:
            return self._newest(self.version.keys)  # a base: one entry per live key
        return self._newest(self.version.keys, at).where(F.col("n") > 0)

    def _newest(self, names: tuple[str, ...], at: DataFrame | None = None) -> DataFrame:
        """Each key's newest entry in the keys tables ``names`` (oldest first), a key gone
        (size 0) included; with ``at``, of those keys alone (:meth:`_keys`)."""
        accumulator = ", ".join(f"{name} {kind}" for name, kind in self.accumulation.columns)
        schema = f"k {self.key_type}, n bigint, {accumulator}"
        if not names:
            return frame_of_rows(self.spark, [], schema)
        # the schema given: no job to infer it from the files' footers
        tables = [self.spark.read.schema(schema).parquet(f"{self.state}/{name}") for name in names]
        if len(tables) == 1:
            return tables[0]
        if at is not None:
            tables = [key_join(table, at, "left_semi") for table in tables]
        entry = F.struct("n", *self.columns)
        ordered = [table.select("k", F.lit(i).alias("o"), entry.alias("e")) for i, table in enumerate(tables)]
        newest = reduce(DataFrame.unionByName, ordered).groupBy("k").agg(F.max_by("e", "o").alias("e"))
        return newest.select("k", "e.*")

    def _pairs(self, folders: tuple[str, ...]) -> DataFrame | None:
        """The pair tables ``k, v, m`` of ``folders`` as one frame, one scan of those written
        and one of a batch's own files, read as the step read them (None: no table)."""
        written = [f"{self.state}/{folder}" for folder in folders if folder not in self.version.raw]
        raw = [f"{self.state}/{folder}" for folder in folders if folder in self.version.raw]
        scans = []
        if written:
            schema = f"k {self.key_type}, v {self.accumulation.pair_value_type}, m bigint"
            scans.append(self.spark.read.schema(schema).parquet(*written))
        if raw:
            rows = normalise_changes(self.spark.read.schema(self.schema).parquet(*raw))
            scans.append(rows.select("k", "v", F.col("w").alias("m")))
        return reduce(DataFrame.unionByName, scans) if scans else None

    # --- stepping ------------------------------------------------------------------------

    def step(self, rows: DataFrame, retry: Retry | None = None, label: int | None = None) -> None:
        """Apply one batch of ``k, v, w`` rows; a refusal (state kept) is first given to
        ``retry``, whose rows then run in the batch's place (None: the refusal is raised).
        ``label``: recorded with the version the step commits (:attr:`label`)."""
        self._stepped(rows, retry, label, source=None)

    def step_folder(self, folder: str) -> None:
        """:meth:`step` over a batch already written as Parquet ``k, v, w`` files in ``folder``
        (left where it is). A step that writes the batch as a run copies the folder's files
        instead of writing its rows again."""
        self._stepped(self.spark.read.schema(self.schema).parquet(folder), None, None, source=folder)

    def _stepped(self, rows: DataFrame, retry: Retry | None, label: int | None, source: str | None) -> None:
        """:meth:`step`; ``source``: the folder ``rows`` were read from, as they are (None: none)."""
        while True:
            self.refusal = None
            try:
                self._apply(rows, label, source)
                return
            except Refused as refused:
                self.refusal = refused
                kept = retry(refused) if retry is not None else None
                if kept is None:
                    raise
                rows, source = kept, None

    def _apply(self, rows: DataFrame, label: int | None, source: str | None) -> None:
        base = self.accumulation.prepared(normalise_changes(rows))
        seen = Observation()
        is_valid = F.col("invalid").isNull()
        base = base.observe(seen, F.count_if(~is_valid).alias("invalid"), F.count_if(is_valid).alias("valid"),
                            F.count_if(is_valid & (F.col("w") < 0)).alias("removals"),
                            F.min(F.when(is_valid, F.col("part"))).alias("first_part"),
                            F.max(F.when(is_valid, F.col("part"))).alias("last_part"))
        kept: list[DataFrame] = []

        def keep(frame: DataFrame) -> DataFrame:
            kept.append(frame.persist())
            return kept[-1]

        valid = base.where(is_valid)
        if not isinstance(self.reducer, GroupReducer):
            valid = keep(valid)  # a fold reads the batch up to three times (fold, refold, check)
        breaches = Observation() if self._checked_with_keys(rows) else None
        try:
            with self._failures_explained(base, valid):
                touched = self.accumulation.touched(valid, self._keys(at=valid.select("k")),
                                                    lambda keys: self._values_after(valid, keys), keep)
                lost = Observation()
                touched = keep(touched.observe(lost, F.count_if("lost").alias("lost"),
                                               F.count(F.lit(1)).alias("touched")))
                job = touched.select(F.lit(0).alias("_"))
                if breaches is not None:
                    found = self._single_part_pairs(valid, None).observe(
                        breaches, F.count_if(F.col("held") < F.col("removed")).alias("breaches"))
                    job = job.unionByName(found.where(F.col("held") < F.col("removed")).select(F.lit(0).alias("_")))
                job.write.format("noop").mode("overwrite").save()  # one job: every observation
            facts = seen.get
            if facts["invalid"]:
                refuse_invalid_row(base)
            if lost.get["lost"]:
                raise self.accumulation.overflow(touched, valid)
            touched_keys = int(lost.get["touched"])
            number = self.version.number + 1
            removals, several_parts = int(facts["removals"]), facts["first_part"] != facts["last_part"]
            checked = breaches is not None
            if breaches is not None and breaches.get["breaches"]:
                self._check(valid, several_parts=False, removals=removals)  # raises the refusal, named
                raise AssertionError(f"{self.state}: a breach the job counted and the check did not find")
            merged: tuple[str, int] | None = None
            if self.version.pairs and self._merge_due(int(facts["valid"])):
                if removals and several_parts:
                    self._check(valid, several_parts=True, removals=removals)
                merged = self._merged(valid, number, checked=bool(removals) and not several_parts and not checked)
            elif removals and not checked:
                self._check(valid, several_parts, removals)
            self.last_batch = LastBatch(int(facts["valid"]), bool(removals))
            if self.with_work:
                self.work = self.accumulation.work(valid, touched, self.work_by)
            self.sink(self._changes(touched), self.steps)
            raw = (source, int(facts["valid"])) if source is not None and self._raw_runs else None
            self._commit(number, touched, touched_keys, valid, label, merged, raw)
        finally:
            for frame in kept:
                frame.unpersist()
        self.steps += 1

    def _checked_with_keys(self, rows: DataFrame) -> bool:
        """Whether the batch ``rows`` is checked (Δ⁻ ⊆ C) in the job that computes its touched
        keys, its breaches observed there, rather than after it: when it is one part for sure
        (no ``part`` column), pairs are stored, and it is predicted to remove and to be written
        as a run (the last batch removed, and a batch its size would not be merged, whose
        merge checks it). Right, the step saves a job and a read of the batch (0.6-1.0 s of
        a 10^6-change step over 2·10^6 rows, 0.1-0.2 s of a small one); wrong, a batch that
        removes nothing reads the stored pairs for nothing, or one merged is checked twice."""
        last = self.last_batch
        return (last.removed and bool(self.version.pairs) and "part" not in rows.columns
                and not self._merge_due(last.rows))

    @contextmanager
    def _failures_explained(self, base: DataFrame, valid: DataFrame) -> Iterator[None]:
        """Computing the touched keys: a user's ⊖ may fail on a removal the check refuses (a
        value the key does not hold), so a failure is first explained by the batch's refusal,
        if it has one."""
        try:
            yield
        except Exception:
            if isinstance(self.reducer, GroupReducer):
                raise
            refuse_invalid_row(base)
            self._check(valid, several_parts=True, removals=None)
            raise

    def _pairs_of(self, pairs: DataFrame, count: int | None) -> DataFrame | None:
        """The stored rows ``k, v, m`` of the (key, value) pairs in ``pairs`` (a frame ``k, v``
        of ``count`` rows, if known), from the base and every run; up to
        :data:`BROADCAST_PAIRS` of them broadcast, so the stored rows are read, not shuffled;
        null keys and values are keys and values like any (None: no pair stored)."""
        stored = self._pairs(self.version.pairs)
        if stored is None:
            return None
        # a semi-join: a pair listed twice selects its rows once, so no distinct (and no shuffle)
        wanted = pairs.select(F.col("k").alias("_k"), F.col("v").alias("_v"))
        if count is not None and count <= BROADCAST_PAIRS:
            wanted = F.broadcast(wanted)
        same = stored["k"].eqNullSafe(wanted["_k"]) & stored["v"].eqNullSafe(wanted["_v"])
        return stored.join(wanted, same, "left_semi")

    def _pairs_at(self, keys: DataFrame) -> DataFrame | None:
        """The stored pairs ``k, v, m`` of the keys in ``keys`` (a frame ``k``), from the base
        and every run: the keys broadcast, so the pairs are read, not shuffled; a null key is
        a key like any (None: no pair stored)."""
        stored = self._pairs(self.version.pairs)
        if stored is None:
            return None
        return key_join(stored, F.broadcast(keys.distinct()), "left_semi")

    def _values_after(self, valid: DataFrame, keys: DataFrame) -> DataFrame:
        """The live pairs ``k, v, m`` of the keys in ``keys`` after the batch's ``valid`` rows."""
        pairs = key_join(valid, F.broadcast(keys.distinct()), "left_semi").select(
            "k", "v", F.col("w").alias("m"))
        stored = self._pairs_at(keys)
        if stored is not None:
            pairs = pairs.unionByName(stored)
        return pairs.groupBy("k", "v").agg(F.sum("m").alias("m")).where(F.col("m") > 0)

    def _check(self, valid: DataFrame, several_parts: bool, removals: int | None) -> None:
        """Δ⁻ ⊆ C: each pair the batch removes from occurs at least as often as it is removed,
        part by part in ``part`` order when the batch has ``several_parts``, each part's
        removals before its additions (SKIP-DEC-SPARK-PARTS, SKIP-DEF-10). The stored rows of
        the pairs it removes from (of every pair at the keys it removes from, with several parts)
        and the batch's summed in one aggregation per pair; ``removals``: the batch's removal
        rows, if known. Raises the first refusal, the first at each other key its ``others``."""
        if several_parts:
            steps = F.struct("part", F.col("w").alias("m"), "file")
            batch = valid.select("k", "v", F.lit(0).cast("bigint").alias("held"), steps.alias("step"))
            held_as = [F.lit(None).cast(batch.schema["step"].dataType).alias("step")]
            near = self._pairs_at(valid.where(F.col("w") < 0).select("k"))
            if near is not None:
                batch = batch.unionByName(near.select("k", "v", F.col("m").alias("held"), *held_as))
            per_pair = batch.groupBy("k", "v").agg(F.sum("held").alias("held"),
                                                   F.array_sort(F.collect_list("step")).alias("steps"))
            breach = lowest_level(F.col("held"), F.col("steps")) < 0
        else:
            per_pair = self._single_part_pairs(valid, removals)
            breach = F.col("held") < F.col("removed")
        # a refusal's facts: at most REFUSALS_NAMED rows, brought up only when the batch is refused
        found = per_pair.where(breach).orderBy("k", "v").limit(REFUSALS_NAMED).collect()
        said = self.accumulation.reported
        refusal = first_of_each_key([
            part_refusal(row["k"], row["v"], int(row["held"]), row["steps"], said) if several_parts
            else InvalidDelta(plain(row["k"]), said(row["v"]), int(row["held"]), int(row["removed"]), row["file"])
            for row in found])
        if refusal is not None:
            raise refusal

    def _single_part_pairs(self, valid: DataFrame, removals: int | None) -> DataFrame:
        """Per (key, value) the batch's ``valid`` rows remove from (one part): ``held``, its
        stored multiplicity, ``removed``, the batch's removals, and ``file``, the first file
        that removes it; ``removals``: the batch's removal rows, if known (:meth:`_pairs_of`)."""
        zero = F.lit(0).cast("bigint")
        removed = valid.where(F.col("w") < 0)
        batch = removed.select("k", "v", zero.alias("held"), (-F.col("w")).alias("removed"), "file")
        near = self._pairs_of(removed.select("k", "v"), removals)
        if near is not None:
            batch = batch.unionByName(near.select("k", "v", F.col("m").alias("held"), zero.alias("removed"),
                                                  F.lit(None).cast("string").alias("file")))
        return by_pair(batch).agg(F.sum("held").alias("held"), F.sum("removed").alias("removed"),
                                           F.first("file", ignorenulls=True).alias("file"))

    def _changes(self, touched: DataFrame) -> DataFrame:
        """Exactly the keys whose entry differs: ``key, present, accumulator``."""
        present = F.col("n") > 0
        return touched.where("changed").select(F.col("k").alias("key"), present.alias("present"),
                                               F.when(present, self.accumulation.accumulator()).alias("accumulator"))

    # --- committing ------------------------------------------------------------------------

    def _merge_due(self, batch_rows: int) -> bool:
        """Whether the runs, with a batch of ``batch_rows`` rows, pass their share of the base."""
        return self.version.run_rows + batch_rows > max(RUNS_MIN, RUNS_SHARE * self.version.base_rows)

    def _merged(self, valid: DataFrame, number: int, checked: bool) -> tuple[str, int]:
        """The stored pairs and the batch's ``valid`` rows merged into a new base of live pairs
        (one row each), written as ``base-NNNNNN``: its name and rows. One aggregation per pair;
        with ``checked`` it is also the single-part check Δ⁻ ⊆ C (each pair held at least as
        often as the batch removes it), and a breach raises the refusal :meth:`_check` names."""
        zero = F.lit(0).cast("bigint")
        removed = F.when(F.col("w") < 0, -F.col("w")).otherwise(zero)
        rows = valid.select("k", "v", zero.alias("held"), removed.alias("removed"), F.col("w").alias("m"))
        stored = self._pairs(self.version.pairs)
        if stored is not None:
            rows = rows.unionByName(stored.select("k", "v", F.col("m").alias("held"), zero.alias("removed"), "m"))
        per_pair = by_pair(rows).agg(F.sum("held").alias("held"), F.sum("removed").alias("removed"),
                                              F.sum("m").alias("m"))
        counted = Observation()
        live = per_pair.observe(counted, F.count_if(F.col("held") < F.col("removed")).alias("breaches"),
                                F.count_if(F.col("m") > 0).alias("rows")).where(F.col("m") > 0)
        name = f"base-{number:06d}"
        self._write(live.select("k", "v", "m"), name)
        facts = counted.get
        if checked and facts["breaches"]:
            self._delete(name)
            self._check(valid, several_parts=False, removals=None)  # raises the refusal, named
            raise AssertionError(f"{self.state}: a breach the merge counted and the check did not find")
        return name, int(facts["rows"] or 0)

    def _commit(self, number: int, touched: DataFrame, touched_keys: int, valid: DataFrame,
                label: int | None, merged: tuple[str, int] | None, raw: tuple[str, int] | None = None) -> None:
        """Write version ``number``: the touched keys' entries as a run of the keys table (or,
        once its runs would pass :data:`RUNS_SHARE` of its base, a new base with them replaced),
        and the batch's run appended (or the new base ``merged`` already written, the runs
        gone), then its manifest; then the tables the old version alone used are deleted.
        ``raw``: the folder the batch was read from as it is, and its valid rows: the run is a
        copy of its files when no compaction takes the run in."""
        old = self.version
        keys, key_base_rows, key_run_rows = self._keys_written(number, touched, touched_keys)
        pairs: tuple[str, ...]
        raw_runs: tuple[str, ...] = ()
        if merged is not None:
            (base_name, base_rows), total_runs = merged, 0
            pairs = (base_name,)
        else:
            # no pairs yet (the first step, a load): the checked batch's pairs are all live, a base
            run_name = f"pairs-{number:06d}" if old.pairs else f"base-{number:06d}"
            # the batch's rows as they are: every reader sums a pair's rows, a merge consolidates them
            run = valid.select("k", "v", F.col("w").alias("m"))
            runs, run_rows_before = old.pairs[1:], old.run_rows
            copied: tuple[str, ...] = ()
            if _compacted(len(runs), run_rows_before):  # the runs and the batch compacted into one run
                older = self._pairs(runs)
                assert older is not None
                run = by_pair(run.unionByName(older)).agg(F.sum("m").alias("m")).where(F.col("m") != 0)
                runs, run_rows_before = (), 0
                run_rows = self._write(run, run_name, counted=True)
            elif raw is not None:
                (source, run_rows), copied = raw, (run_name,)
                self._delete(run_name)  # an earlier attempt's copy
                self.fs.copy(source, f"{self.state}/{run_name}")
            else:
                run_rows = self._write(run, run_name, counted=True)
            if not old.pairs:
                pairs, base_rows, total_runs = (run_name,), run_rows, 0
            else:
                pairs, base_rows, total_runs = (old.pairs[0], *runs, run_name), old.base_rows, run_rows_before + run_rows
            raw_runs = (*(name for name in pairs if name in old.raw), *copied)
        self._install(old, Version(number, keys, pairs, base_rows, total_runs, label, key_base_rows, key_run_rows,
                                   raw_runs))

    def _keys_written(self, number: int, touched: DataFrame, touched_keys: int) -> tuple[tuple[str, ...], int, int]:
        """The keys tables of version ``number`` and their base's and runs' rows: the touched
        keys' entries (size 0: the key is gone) as a run, a step costing O(touched keys) here;
        or, past the runs' share or when the step touched more than :data:`KEY_RUN_SHARE` of
        the keys, a new base of every live key's newest entry."""
        old = self.version
        entries = touched.select("k", "n", *self.columns)
        runs = old.key_run_rows + touched_keys
        small = touched_keys <= max(RUNS_MIN, KEY_RUN_SHARE * old.key_base_rows)
        if old.keys and small and runs <= max(RUNS_MIN, RUNS_SHARE * old.key_base_rows):
            name = f"keyrun-{number:06d}"
            older = old.keys[1:]
            if not _compacted(len(older), old.key_run_rows):
                self._write(entries, name)
                return (*old.keys, name), old.key_base_rows, runs
            # the runs and this step's entries compacted into one run (a key gone kept: the base may hold it)
            compacted = key_join(self._newest(older), touched.select("k"), "left_anti").unionByName(entries)
            rows = self._write(compacted, name, counted=True)
            return (old.keys[0], name), old.key_base_rows, rows
        name = f"keys-{number:06d}"
        kept = key_join(self._keys(), touched.select("k"), "left_anti")
        rows = self._write(kept.unionByName(entries.where(F.col("n") > 0)), name, counted=True)
        return (name,), rows, 0

    def _install(self, old: Version, version: Version) -> None:
        """Commit ``version`` (its tables written) by writing its manifest (aside, renamed into place)."""
        self.fs.write_text(f"{self.state}/{version.number:06d}.json", version.manifest())
        self.version = version
        self._release(old, version)

    def _write(self, rows: DataFrame, name: str, counted: bool = False) -> int:
        """``rows`` written as the table ``name`` (any earlier attempt's files replaced); with
        ``counted``, the rows written, counted in the same job (else 0)."""
        if not counted:
            rows.write.mode("overwrite").parquet(f"{self.state}/{name}")
            return 0
        seen = Observation()
        rows.observe(seen, F.count(F.lit(1)).alias("rows")).write.mode("overwrite").parquet(f"{self.state}/{name}")
        return int(seen.get["rows"] or 0)

    def _release(self, old: Version, new: Version) -> None:
        """Delete what only ``old`` used (best effort: leftovers are never read again)."""
        used = {*new.keys, *new.pairs}
        for name in [*old.keys, *old.pairs]:
            if name not in used:
                self._delete(name)
        if old.number > 0:
            self._delete(f"{old.number:06d}.json")

    def _delete(self, name: str) -> None:
        """Delete the table (or manifest) ``name``, best effort: a leftover is never read again."""
        try:
            self.fs.delete(f"{self.state}/{name}")
        except Exception as error:  # noqa: BLE001 (a leftover is harmless)
            log.warning("%s: could not delete %s (%s)", self.state, name, cause(error))

    # --- reading ---------------------------------------------------------------------------

    @property
    def accumulator_type(self) -> str:
        return self.accumulation.accumulator_type

    def read_view(self) -> DataFrame:
        """The whole view ``key, accumulator`` as of the last committed step."""
        return self._keys().select(F.col("k").alias("key"), self.accumulation.accumulator().alias("accumulator"))

    def stored_sizes(self) -> dict[str, int]:
        """``rows``: the distinct (key, value) pairs present; ``keys``: the keys of the view."""
        pairs = self._pairs(self.version.pairs)
        rows = 0 if pairs is None else pairs.groupBy("k", "v").agg(F.sum("m").alias("m")).where(
            F.col("m") > 0).count()
        return {"rows": rows, "keys": self._keys().count()}

    def live_groups(self) -> DataFrame:
        """The view's live groups as the rows ``kind, k, v, w, a0..`` that re-state them (a
        stream view's generation input, :meth:`~spark_impl.reduce.view_runner.ViewRunner.restate`):
        a ``key`` row per key (its size as ``w``), a ``pair`` row per live (key, value)."""
        none = F.lit(None)
        keys = self._keys().select(F.lit("key").alias("kind"), "k", none.cast(self.value_type).alias("v"),
                                   F.col("n").alias("w"), *self.columns)
        pairs = self._pairs(self.version.pairs)
        if pairs is None:
            return keys
        live = pairs.groupBy("k", "v").agg(F.sum("m").alias("w")).where(F.col("w") > 0)
        return keys.unionByName(live.select(F.lit("pair").alias("kind"), "k", "v", "w",
                                            *[none.cast(kind).alias(name) for name, kind in self.accumulation.columns]))

    def seed(self, live: DataFrame | None) -> None:
        """Replace the state by ``live`` (rows as :meth:`live_groups` gives them; None: empty),
        committed as the next version."""
        old, number = self.version, self.version.number + 1
        if live is None:
            version = Version(number, (), (), 0, 0)
        else:
            keys_name, base_name = f"keys-{number:06d}", f"base-{number:06d}"
            is_key = F.col("kind") == "key"
            keys = live.where(is_key).select("k", F.col("w").alias("n"), *self.columns)
            key_rows = self._write(keys, keys_name, counted=True)
            base = live.where(~is_key).select("k", "v", F.col("w").alias("m"))
            rows = self._write(base, base_name, counted=True)
            version = Version(number, (keys_name,), (base_name,), rows, 0, key_base_rows=key_rows)
        self._install(old, version)

    def stop(self) -> None:
        """Nothing runs between steps."""


def by_pair(rows: DataFrame) -> GroupedData:
    """``rows`` grouped by (key, value) after a shuffle by it, with no aggregation before the
    shuffle: a pair has a row or two among the stored rows and the batch's, so a partial
    aggregation would hash every row for nothing (a merge of 4·10^6 rows into 2·10^6 pairs
    took 1.4-1.8 s so, 2.0-2.8 s with it)."""
    return rows.repartition("k", "v").groupBy("k", "v")


def _compacted(runs: int, rows: int) -> bool:
    """Whether ``runs`` runs of ``rows`` rows in all are compacted into one (:data:`MAX_RUNS`)."""
    return runs >= MAX_RUNS and (rows <= COMPACT_ROWS or runs >= 4 * MAX_RUNS)
