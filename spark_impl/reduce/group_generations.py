"""Generations of a group reducer's state: how its emptied groups leave (SKIP-DEC-SPARK-STATE).

A group reducer's state is Spark's native streaming aggregation, one group per key and per
(key, value). Spark drops an aggregation's group only by watermark eviction, which needs an
event-time column among the grouping columns. So the grouping key holds a *generation* ``g``:
an event-time column, the same instant on every row of a query (:func:`generation_time`),
under a watermark of :data:`WATERMARK_DELAY`. Generation ``n`` is ``n + 1`` days after the
epoch (a query's watermark starts at the epoch, and Spark drops a row at or before it as late).

To **compact** a view is to write its live groups (multiplicity above 0) of its newest
generation ``n``, as of its last committed micro-batch, as rows of generation ``n + 1`` into
a folder of its own (:meth:`Generations.write`), and to run the query from then on with
generation ``n + 1``. The next micro-batch aggregates those rows, with the changes it brings,
into groups of generation ``n + 1`` (the rows re-state a group, they are no change: the
changes derived from the micro-batch, and the Δ⁻ ⊆ C check, are those of the changes it
brings); its event time moves the watermark to a day less the delay past generation ``n``, and
the micro-batch after it evicts every group of generation ``n``, the emptied ones with the
live ones the new generation holds. The state's readers take its newest generation.

The folder written last is the generation in force: a folder is written aside and renamed
into place, so a crash leaves either no new generation or a whole one; a query built after
the rename reads it, whichever process builds it.

**The watermark only while a generation awaits eviction.** While a watermark is defined on a
grouping column, Spark's aggregation looks for groups to evict at the end of *every*
micro-batch by iterating over every group of the state store, whether the watermark moved or
not: O(state) a micro-batch, which a small batch over a large view cannot afford (measured:
a 100-change micro-batch over 2.2·10^5 groups read 30 MB of state through the iterator,
0.3-0.5 s of removal time, none removed). So a view's plan holds the watermark only while it
is *evicting* (:meth:`Generations.evicting`): from a compaction until a committed micro-batch
ran under a watermark past the older generation, which that micro-batch evicted. Spark
records the watermark each micro-batch runs under in its planned offsets
(:func:`~spark_impl.storage.query_log.batch_metadata`); a micro-batch of rows of the new
generation sets it, the next evicts. Which micro-batch that is cannot be counted from the
compaction: the new generation's folder may be read alone (no rows when no group was live:
no watermark) or with the next input file. Its query then starts again without the watermark
(which Spark keeps recording, unmoved): a state checkpoint may be run with and without one
(the grouping columns, the generation among them, are the same).

When (:meth:`GroupCounts.due`): once the groups emptied since the last compaction (an upper
bound of the emptied groups held) reach the live groups, and at least ``floor``. Between two
compactions the state then holds fewer emptied groups than ``max(live, floor)``, plus the
previous generation until it is evicted; a compaction costs O(live groups) and follows at
least as many removals that emptied a group: amortised, O(1) a change.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StructType

from spark_impl.errors import SparkEngineError
from spark_impl.storage.files import FileSystem
from spark_impl.storage.query_log import batch_metadata, last_committed

#: the generation column of a group view's grouping key
GENERATION = "g"
#: the watermark's delay: under a day, so the watermark a generation's rows set passes every
#: older generation and none of its own
WATERMARK_DELAY = "1 hour"
#: a day: generation ``n`` is the instant ``n + 1`` days after the epoch
GENERATION_SECONDS = 86_400
#: the fewest emptied groups that make a compaction due (a view's default)
COMPACTION_FLOOR = 100_000

_FOLDER = re.compile(r"^gen-(\d{6,})$")


def generation_time(generation: int) -> Column:
    """Generation ``generation`` as the event time of a row (a timestamp)."""
    return F.timestamp_seconds(F.lit((generation + 1) * GENERATION_SECONDS))


def generation_number(time: Column) -> Column:
    """The generation whose event time is ``time`` (:func:`generation_time` inverted)."""
    return F.floor(F.unix_seconds(time) / GENERATION_SECONDS) - 1


def newest_generation(state: DataFrame) -> DataFrame:
    """The rows of ``state`` (columns of the grouping key, ``g`` among them) in the newest
    generation it holds: the groups of an older one are compacted into it, or emptied."""
    newest = state.agg(F.max(GENERATION).alias("newest")).first()
    if newest is None or newest["newest"] is None:
        return state.limit(0)
    return state.where(F.col(GENERATION) == F.lit(newest["newest"]))


@dataclass
class GroupCounts:
    """The groups a view holds with multiplicity above 0 (``live``), and the groups emptied
    since its last compaction (``emptied``), kept from each micro-batch's counts."""

    live: int = 0
    emptied: int = 0

    def add(self, filled: int, emptied: int) -> None:
        """A committed micro-batch filled ``filled`` groups (from 0 to above) and emptied
        ``emptied`` (from above 0 to 0)."""
        self.live += filled - emptied
        self.emptied += emptied

    def due(self, floor: int) -> bool:
        return self.emptied >= max(self.live, floor)


class Generations:
    """A group view's generation folders under ``root`` (``gen-NNNNNN``, Parquet files of
    rows ``kind, k, v, w, a0..``) for the query checkpointed in ``checkpoint``: the
    generation in force, and the next one written. ``root`` is made when the view's plan is
    (:meth:`stream`): a checkpoint with committed micro-batches and no ``root`` was written by
    a version without generations, which is refused."""

    def __init__(self, spark: SparkSession, fs: FileSystem, root: str, checkpoint: str) -> None:
        self.spark, self.fs = spark, fs
        self.root, self.checkpoint = root.rstrip("/"), checkpoint.rstrip("/")

    @property
    def current(self) -> int:
        """The newest generation written (0: none yet)."""
        numbers = [int(m.group(1)) for name in self.fs.names(self.root) if (m := _FOLDER.match(name))]
        return max(numbers, default=0)

    def stream(self, schema: StructType) -> DataFrame:
        """Every generation folder's rows, as a stream (each folder read once)."""
        if not self.fs.exists(self.root):
            if last_committed(self.fs, self.checkpoint) is not None:
                raise SparkEngineError("malformed-input", (
                    f"the checkpoint {self.checkpoint} keeps a sum or count view's state without "
                    "generations (written by an earlier version, whose emptied groups stayed in "
                    f"the state): this version cannot read it (no {self.root}); start a new "
                    "checkpoint and load the input again"))
            self.fs.mkdirs(self.root)
        return self.spark.readStream.schema(schema).parquet(f"{self.root}/gen-*/*.parquet")

    def write(self, rows: DataFrame) -> int:
        """Write ``rows`` (the live groups re-stated) as the next generation; returns it."""
        generation = self.current + 1
        name = f"gen-{generation:06d}"
        aside = f"{self.root}/.staging-{name}"
        self.fs.delete(aside)
        rows.write.mode("overwrite").parquet(aside)
        self.fs.rename(aside, f"{self.root}/{name}")
        return generation

    def evicting(self) -> bool:
        """Whether the view's plan must hold the watermark: a generation after the first was
        written and no committed micro-batch ran under a watermark at or past the older
        generation's instant (Spark evicts a group whose event time is at or before it)."""
        generation = self.current
        if generation == 0:
            return False
        committed = last_committed(self.fs, self.checkpoint)
        metadata = None if committed is None else batch_metadata(self.fs, self.checkpoint, committed)
        watermark_ms = int(metadata.get("batchWatermarkMs", 0)) if metadata else 0
        older_generation_ms = generation * GENERATION_SECONDS * 1000  # generation_time(generation - 1)
        return watermark_ms < older_generation_ms
