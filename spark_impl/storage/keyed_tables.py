"""Durable keyed state on Spark: partitioned bases plus one small overlay of changes.

A :class:`KeyedTables` holds a few named tables. Each table is a set of rows
identified by its ``key`` columns (with optional ``value`` columns), stored
as one or more *bases*, each hash partitioned by its own columns (the edges
of a graph by source and by target) and sorted by them within each
partition: the layout survives :meth:`DataFrame.checkpoint`, so a join on
those columns shuffles only the other side. A base is written with a
*reliable* checkpoint (files in the session's checkpoint directory, a Hadoop
path) and cached as a read accelerator. The cache keeps each batch's least
and greatest value per column, and sorted rows make those ranges narrow: a
join whose probe's keys lie in a known :class:`Span` filters the base to it,
and Spark skips the cached batches outside it (a probe of a few keys reads a
few batches, not the table).

The changes since the bases were written live in one *overlay* shared by all
the tables: a row per changed key, tagged with its table, carrying the key's
new values and ``present`` (false: the key was deleted). A table now is its
base minus the overlay's keys plus the overlay's present rows: an anti-join
whose hashed side is the overlay's keys (``shuffle_hash``: the small side is
shuffled to the base's partitions, the base is not), cheap while the overlay
is small; past a share of its base it is merged into new bases.

:meth:`with_changes` never mutates: it returns new tables whose overlay (one
reliable write for all the tables) and, past the compaction threshold, new
bases are already written. An engine that swaps its tables at the end of an
update makes the update visible all at once; an update that fails half-way
leaves the old tables in force. Neither ``cache`` nor ``localCheckpoint``
holds anything that must outlive an update: only checkpoint files do.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from pyspark import StorageLevel
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from spark_impl.storage.frames import session_partitions, union_all, union_coalesced
from spark_impl.storage.scratch import once

#: a table's overlay rows are merged into new bases past this share of its base ...
COMPACT_RATIO = 0.05
#: ... once it holds at least this many rows (below, a rewrite costs more than it saves)
COMPACT_MIN = 2_000
#: ... and always past this many (the overlay is the hashed side of every read's anti-join: it must stay small)
COMPACT_MAX = 100_000


def write_reliably(df: DataFrame) -> DataFrame:
    """``df`` computed once, written to the reliable checkpoint directory (its
    partitioning kept), and cached for the reads that follow."""
    df.persist(StorageLevel.MEMORY_AND_DISK)
    try:
        out = df.checkpoint(eager=True)
    finally:
        df.unpersist()
    return out.persist(StorageLevel.MEMORY_AND_DISK)


def partitions(df: DataFrame) -> int:
    """The session's shuffle partition count: the one layout every keyed table shares."""
    return session_partitions(df)


@dataclass(frozen=True)
class Table:
    """One table: its key and value columns and its bases, one per layout."""

    key: tuple[str, ...]
    values: tuple[str, ...]
    layouts: tuple[tuple[str, ...], ...]  # the partitioning columns of each base
    bases: tuple[DataFrame, ...]
    base_rows: int

    @property
    def columns(self) -> tuple[str, ...]:
        return self.key + self.values

    @classmethod
    def build(cls, rows: DataFrame, key: tuple[str, ...], values: tuple[str, ...] = (),
              layouts: tuple[tuple[str, ...], ...] = ()) -> Table:
        """A table whose rows are ``rows`` (one per key), partitioned and written here."""
        layouts = layouts or (key,)
        rows = rows.select(*key, *values)
        bases = tuple(write_reliably(rows.repartition(partitions(rows), *cols).sortWithinPartitions(*cols))
                      for cols in layouts)
        return cls(key, values, layouts, bases, bases[0].count())

    @classmethod
    def empty(cls, schema: DataFrame, key: tuple[str, ...], values: tuple[str, ...] = (),
              layouts: tuple[tuple[str, ...], ...] = ()) -> Table:
        """An empty table shaped like ``schema`` (nothing written: nothing to lose)."""
        layouts = layouts or (key,)
        base = schema.select(*key, *values).limit(0)
        return cls(key, values, layouts, tuple(base for _ in layouts), 0)


#: integer span ends are multiples of blocks of at least this many ids (:meth:`Span.around`)
SPAN_GRID = 1024
_BIGINT_MIN, _BIGINT_MAX = -(2**63), 2**63 - 1


@dataclass(frozen=True)
class Span:
    """The least and greatest value of a probe's join column, as the driver
    learnt them (from the batch it was given, or from the aggregates of the
    job that computed the probe): a join may read the base between them only."""

    low: Any
    high: Any

    @classmethod
    def around(cls, low: Any, high: Any) -> Span:
        """A span holding ``low`` to ``high``, integer ends widened to a grid.

        Spark writes a plan's integer literals into the code it generates, and
        its cache of generated classes is keyed by their source, so a join
        whose span differs from the last one's compiles its stages anew (a
        cascade down a chain moves one node further each round). Widened to multiples of a block of
        :data:`SPAN_GRID` or more ids (a power of two, at least the span's
        width), nearby spans share their ends and their code; the wider read
        costs nothing measurable (the cache skips batches of ten thousand rows
        at a time, wider than a block). Strings are not widened (Spark keeps
        them out of the generated code)."""
        if not (type(low) is int and type(high) is int):  # bool is an int, and no node type
            return cls(low, high)
        block = max(SPAN_GRID, 1 << (high - low).bit_length())
        wide = cls(low // block * block, (high // block + 1) * block - 1)
        # not widened past Spark's bigint (a literal beyond it is no bigint)
        return cls(max(wide.low, min(low, _BIGINT_MIN)), min(wide.high, max(high, _BIGINT_MAX)))

    @classmethod
    def of(cls, values: Sequence[Any]) -> Span | None:
        """The span of ``values`` (the batch's own, in the driver); ``None``
        when there are none or they do not compare (then nothing is pruned).
        Python orders ints and strings as Spark does (strings by code point,
        which is the order of their UTF-8 bytes)."""
        try:
            return cls.around(min(values), max(values)) if values else None
        except TypeError:
            return None


@dataclass(frozen=True)
class Patched:
    """A stored table as an update sees it: its ``base`` (hash partitioned by
    the layout's columns) with small patches, applied in order: :meth:`without`
    takes out the rows of some keys, :meth:`plus` puts rows in.

    Joins go into the parts. The union of a base and a patch has no
    partitioning, so a join on it would shuffle the whole base every round;
    joined part by part, the base meets the small probe where it lies (the
    probe is shuffled to the base's partitions) and only small frames are
    shuffled and unioned.
    """

    base: DataFrame
    key: tuple[str, ...]
    removed: tuple[DataFrame, ...] = ()  # key columns; each applies to the base
    added: tuple[DataFrame, ...] = ()  # whole rows, already without later removals

    def without(self, keys: DataFrame) -> Patched:
        """The table less the rows whose key is a row of ``keys``."""
        gone = keys.select(*self.key)
        # each added frame computed once: a table patched every round (the live set during a
        # cascade down a chain) would otherwise stack one anti-join per round on it, each a
        # hash table the task holds to its end; the frame is computed when first read, so a
        # table read between removals (every cascade round reads the live set) has one
        # anti-join per task, one never read has them all
        return replace(self, removed=merged_patches(self.removed + (gone,)),
                       added=tuple(once(_anti(rows, gone, self.key)) for rows in self.added))

    def plus(self, rows: DataFrame) -> Patched:
        """The table with ``rows`` put in (their keys not in it, or taken out before)."""
        return replace(self, added=merged_patches(self.added + (rows.select(*self.base.columns),)))

    def frame(self) -> DataFrame:
        """Every row (a scan of the base: bulk paths and observations only)."""
        kept = self.base
        for gone in self.removed:
            kept = _anti(kept, gone, self.key)
        return union_all([kept, *self.added])

    def join(self, probe: DataFrame, on: Sequence[str], how: str = "inner", span: Span | None = None) -> DataFrame:
        """The table joined with a small ``probe`` on the columns ``on``
        (``inner`` or ``left_semi``; ``probe`` one row per ``on`` value for
        ``inner``), the base not shuffled; with the ``span`` of the probe's
        first column, the base is read between its ends only."""
        if how not in ("inner", "left_semi"):
            raise ValueError(f"a patched table joins inner or left_semi, not {how}")
        small = (once(probe) if self.added else probe).hint("shuffle_hash")
        base = self.base if span is None else self.base.where(F.col(on[0]).between(span.low, span.high))
        hits = base.join(small, list(on), how)
        for gone in self.removed:
            hits = _anti(hits, gone, self.key)
        return union_all([hits, *(rows.join(small, list(on), how) for rows in self.added)])

    def matching(self, probe: DataFrame, on: Sequence[str], span: Span | None = None) -> DataFrame:
        """The rows whose ``on`` columns are a row of ``probe``."""
        return self.join(probe.select(*on).distinct(), on, "left_semi", span)


#: a table keeps at most this many patches of each kind; more are merged into one
MAX_PATCHES = 2


def merged_patches(patches: tuple[DataFrame, ...]) -> tuple[DataFrame, ...]:
    """``patches``, merged into one computed frame once there are more than
    :data:`MAX_PATCHES`: an update of many rounds (a cascade down a long chain)
    patches a table every round, and unmerged every join would carry one
    anti-join per round (plans, stages and time growing with the round number).
    Merged, a join reads at most that many small frames whatever the round;
    the merged frame keeps the session's partition count (a union's partitions
    are its parts' together, so merging the merged frame again would grow it
    by a part's partitions each round, and every later stage that read it
    would run that many more tasks). ``coalesce`` joins partitions without a
    shuffle."""
    if len(patches) <= MAX_PATCHES:
        return patches
    return (once(union_coalesced(list(patches))),)


def _anti(rows: DataFrame, keys: DataFrame, key: Sequence[str]) -> DataFrame:
    """``rows`` less those whose ``key`` is a row of the (small) ``keys``."""
    return rows.join(keys.hint("shuffle_hash"), list(key), "left_anti")


@dataclass(frozen=True)
class KeyedTables:
    """Named tables sharing one overlay ``(table, <every table's columns>, present)``."""

    tables: Mapping[str, Table]
    overlay: DataFrame | None
    overlay_rows: Mapping[str, int]  # an upper bound per table
    written: DataFrame | None = None  # the cached frame the overlay reads

    @classmethod
    def of(cls, tables: Mapping[str, Table]) -> KeyedTables:
        return cls(dict(tables), None, {name: 0 for name in tables})

    @classmethod
    def restored(cls, shapes: KeyedTables, bases: Mapping[str, DataFrame], overlay: DataFrame | None,
                 overlay_rows: Mapping[str, int]) -> KeyedTables:
        """Tables shaped as ``shapes`` (their keys, values and layouts) whose bases are
        ``bases`` (a table's rows, read back from where they were saved) and whose overlay is
        ``overlay``, with its bound per table: each written here, as :meth:`Table.build`
        and :meth:`with_changes` write them."""
        tables = {name: Table.build(bases[name], t.key, t.values, t.layouts) for name, t in shapes.tables.items()}
        bounds = {name: overlay_rows.get(name, 0) for name in tables}
        if overlay is None or not any(bounds.values()):
            return cls(tables, None, {name: 0 for name in tables})
        written = write_reliably(overlay)
        return cls(tables, written, bounds, written)

    def base_rows(self, name: str) -> DataFrame:
        """The rows of the table's base, without the overlay's changes (what :meth:`restored`
        takes back)."""
        t = self.tables[name]
        return t.bases[0].select(*t.columns)

    def _changes(self, name: str) -> DataFrame | None:
        if self.overlay is None or not self.overlay_rows[name]:
            return None
        return self.overlay.where(F.col("table") == name)

    def patched(self, name: str, layout: int = 0) -> Patched:
        """The table now: its base of the given layout, patched by the overlay."""
        t = self.tables[name]
        table = Patched(t.bases[layout], t.key)
        changes = self._changes(name)
        if changes is None:
            return table
        return table.without(changes.select(*t.key)).plus(changes.where("present").select(*t.columns))

    def current(self, name: str, layout: int = 0) -> DataFrame:
        """The table's rows now, read from its base of the given layout."""
        return self.patched(name, layout).frame()

    def rows(self, name: str) -> int:
        """An upper bound on the table's row count."""
        return self.tables[name].base_rows + self.overlay_rows[name]

    def _columns(self) -> list[tuple[str, str]]:
        """Every column of every table, with its type, in a fixed order."""
        seen: dict[str, str] = {}
        for t in self.tables.values():
            for name, kind in t.bases[0].dtypes:
                seen.setdefault(name, kind)
        return sorted(seen.items())

    def _tagged(self, name: str, changes: DataFrame) -> DataFrame:
        have = set(self.tables[name].columns)
        return changes.select(F.lit(name).alias("table"), *(
            F.col(c) if c in have else F.lit(None).cast(kind).alias(c) for c, kind in self._columns()),
            F.col("present"))

    def with_changes(self, changes: Mapping[str, tuple[DataFrame, int]]) -> KeyedTables:
        """New tables with ``changes`` applied: per table, a frame of key + values
        + ``present`` (one row per key) and a bound on its rows. Written here
        (one reliable write of the overlay, and the bases of compacted tables)."""
        parts: list[DataFrame] = []
        bounds = dict(self.overlay_rows)
        for name, t in self.tables.items():
            old = self._changes(name)
            new = changes.get(name)
            if new is not None and new[1]:
                bounds[name] += new[1]
                if old is not None:
                    parts.append(old.join(new[0].select(*t.key).hint("shuffle_hash"), list(t.key), "left_anti"))
                parts.append(self._tagged(name, new[0]))
            elif old is not None:
                parts.append(old)
        if not parts:
            return self
        overlay = write_reliably(union_coalesced(parts))
        merged = KeyedTables(self.tables, overlay, bounds, overlay)
        tables = dict(self.tables)
        compacted = False
        for name, t in self.tables.items():
            n = bounds[name]
            if n > COMPACT_MAX or (n > COMPACT_MIN and n > COMPACT_RATIO * t.base_rows):
                tables[name] = Table.build(merged.current(name), t.key, t.values, t.layouts)
                bounds[name] = 0
                compacted = True
        if not compacted:
            return merged
        kept = [n for n in tables if bounds[n]]  # table names, a handful
        if not kept:
            overlay.unpersist()
            return KeyedTables(tables, None, bounds)
        return KeyedTables(tables, overlay.where(F.col("table").isin(kept)), bounds, overlay)

    def replaced(self, tables: Mapping[str, Table]) -> KeyedTables:
        """These tables with ``tables`` (written) in place of their namesakes,
        whose pending changes go; the others keep theirs (nothing written)."""
        merged = {**self.tables, **tables}
        bounds = {name: 0 if name in tables else self.overlay_rows[name] for name in merged}
        kept = [name for name in merged if bounds[name]]  # table names, a handful: not data
        if self.overlay is None or not kept:
            return KeyedTables(merged, None, bounds)
        return KeyedTables(merged, self.overlay.where(F.col("table").isin(kept)), bounds, self.written)

    def release(self, successor: KeyedTables) -> None:
        """Drop the cached copies of the parts ``successor`` no longer uses."""
        for name, t in self.tables.items():
            if t is not successor.tables[name]:
                for base in t.bases:
                    base.unpersist()
        if self.written is not None and self.written is not successor.written:
            self.written.unpersist()

