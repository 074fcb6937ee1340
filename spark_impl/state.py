"""State kept between updates: materialised DataFrames with bounded lineage.

Every DataFrame an engine keeps across updates is cut from its lineage with
``localCheckpoint`` (``cache()`` alone lets the plan grow with every update
until planning dominates; measured in DESIGN.md). :class:`ZSetTable` keeps a
large weighted table as a checkpointed *base* plus a few small pending
deltas, merged into the base only when they grow past a fraction of it, so an
update writes in proportion to the change (a log-structured merge: reads scan
the base, writes touch only the pending part).
"""

from __future__ import annotations

from functools import reduce as fold_left

from pyspark.sql import DataFrame
from pyspark.sql import functions as F


def materialise(df: DataFrame) -> DataFrame:
    """Compute ``df`` once and cut its lineage (one Spark job)."""
    return df.localCheckpoint(eager=True)


def union_all(frames: list[DataFrame]) -> DataFrame:
    return fold_left(DataFrame.unionByName, frames)


class ZSetTable:
    """A Z-set over rows of ``columns``, weight column ``w``: base + pending deltas.

    ``base`` holds the consolidated rows (one per distinct row, ``w != 0``);
    ``pending`` the deltas added since, unconsolidated. Reads see their sum.
    Pending deltas are folded into an overlay every ``merge_every`` additions,
    and the overlay into the base once it exceeds ``compact_ratio`` of it.
    """

    def __init__(self, base: DataFrame, columns: list[str], base_rows: int,
                 merge_every: int = 8, compact_ratio: float = 0.1) -> None:
        self.columns = columns
        self.base = base
        self.base_rows = base_rows
        self.overlay: DataFrame | None = None
        self.overlay_rows = 0
        self.pending: list[DataFrame] = []
        self.pending_rows = 0
        self.merge_every = merge_every
        self.compact_ratio = compact_ratio

    @staticmethod
    def consolidate(df: DataFrame, columns: list[str]) -> DataFrame:
        return df.groupBy(*columns).agg(F.sum("w").alias("w")).where(F.col("w") != 0)

    def _parts(self) -> list[DataFrame]:
        parts = [self.base]
        if self.overlay is not None:
            parts.append(self.overlay)
        return parts + self.pending

    def all(self) -> DataFrame:
        """Every row with its total weight (consolidated)."""
        return self.consolidate(union_all(self._parts()), self.columns)

    def restricted(self, probe: DataFrame, on: list[str]) -> DataFrame:
        """The consolidated rows whose ``on`` columns match a row of the small ``probe``.

        The probe is broadcast; each part is scanned once (Spark has no index).
        """
        keys = F.broadcast(probe.select(*on).distinct())
        parts = [part.join(keys, on, "left_semi") for part in self._parts()]
        return self.consolidate(union_all(parts), self.columns)

    def add(self, delta: DataFrame, rows: int) -> None:
        """Add the Z-set ``delta`` (columns + ``w``; ``rows`` bounds its size)."""
        self.pending.append(delta.select(*self.columns, "w"))
        self.pending_rows += rows
        if len(self.pending) >= self.merge_every:
            self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        parts = ([self.overlay] if self.overlay is not None else []) + self.pending
        self.overlay_rows += self.pending_rows
        self.pending, self.pending_rows = [], 0
        if self.overlay_rows > self.compact_ratio * max(self.base_rows, 1):
            self.base = materialise(self.consolidate(union_all([self.base, *parts]), self.columns))
            self.base_rows = self.base.count()
            self.overlay, self.overlay_rows = None, 0
        else:
            self.overlay = materialise(self.consolidate(union_all(parts), self.columns))
