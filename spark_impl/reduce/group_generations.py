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
is *evicting* (:meth:`Generations.evicting`): from a compaction until the second micro-batch
committed after it (the first reads the new generation's rows, which set the watermark; the
second evicts the old generation). Each generation folder records the last micro-batch
committed when it was written (``_AFTER_BATCH``) for this. Its query then starts again without
the watermark: a state checkpoint may be run with and without one (the grouping columns, the
generation among them, are the same).

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

#: the generation column of a group view's grouping key
GENERATION = "g"
#: the watermark's delay: under a day, so the watermark a generation's rows set passes every
#: older generation and none of its own
WATERMARK_DELAY = "1 hour"
#: a day: generation ``n`` is the instant ``n + 1`` days after the epoch
GENERATION_SECONDS = 86_400
#: the fewest emptied groups that make a compaction due (a view's default)
COMPACTION_FLOOR = 100_000

#: in a generation folder: the last micro-batch committed when it was written
AFTER_BATCH = "_AFTER_BATCH"

_FOLDER = re.compile(r"^gen-(\d{6,})$")


def latest_batch(fs: FileSystem, folder: str) -> int | None:
    """The largest micro-batch id among a checkpoint log's files (``offsets``, ``commits``)."""
    ids = [int(name) for name in fs.names(folder) if name.isdigit()]
    return max(ids) if ids else None


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
            if any(name.isdigit() for name in self.fs.names(f"{self.checkpoint}/commits")):
                raise SparkEngineError("malformed-input", (
                    f"the checkpoint {self.checkpoint} keeps a sum or count view's state without "
                    "generations (written by an earlier version, whose emptied groups stayed in "
                    f"the state): this version cannot read it (no {self.root}); start a new "
                    "checkpoint and load the input again"))
            self.fs.mkdirs(self.root)
        return self.spark.readStream.schema(schema).parquet(f"{self.root}/gen-*/*.parquet")

    def write(self, rows: DataFrame, after_batch: int) -> int:
        """Write ``rows`` (the live groups re-stated, as of committed micro-batch
        ``after_batch``) as the next generation; returns it."""
        generation = self.current + 1
        name = f"gen-{generation:06d}"
        aside = f"{self.root}/.staging-{name}"
        self.fs.delete(aside)
        rows.write.mode("overwrite").parquet(aside)
        self.fs.write_text(f"{aside}/{AFTER_BATCH}", str(after_batch))
        self.fs.rename(aside, f"{self.root}/{name}")
        return generation

    def evicting(self) -> bool:
        """Whether the view's plan must hold the watermark: a generation was written and the
        micro-batch that evicts the one before it (the second committed after the writing)
        is not committed yet. A folder written without the record (by an earlier version)
        counts as evicting."""
        generation = self.current
        if generation == 0:
            return False
        written = self.fs.read_text(f"{self.root}/gen-{generation:06d}/{AFTER_BATCH}")
        committed = latest_batch(self.fs, f"{self.checkpoint}/commits")
        return written is None or committed is None or committed < int(written) + 2
