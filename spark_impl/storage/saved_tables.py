"""Keyed tables saved as numbered versions under a folder, each version writing the tables'
changes since their bases and only the bases not saved before.

A :class:`~spark_impl.storage.keyed_tables.KeyedTables` is bases (rewritten only when a
table is compacted or rebuilt) plus one small overlay of changes. Saved the same way:

* ``base-M/NAME``: a table's base rows (Parquet), written by the first version ``M`` that
  held that base, and named again by every later version until the table gets a new base;
* ``v=N/overlay``: the overlay as version ``N`` leaves it (every change since the bases:
  at most :data:`~spark_impl.storage.keyed_tables.COMPACT_MAX` rows per table, and past
  ``COMPACT_MIN`` rows at most ``COMPACT_RATIO`` of its base);
* ``v=N/tables.json``: the manifest, written after both, naming each table's base folder
  and the overlay's bound per table. A version is complete once its manifest is there.

A folder is written by ``publish`` (aside, renamed, then marked: a folder half written by
a crash is written again, never read). A version saves the bases it has not saved yet and
its overlay, so a small update over a large state writes the overlay, not the tables; the
segment index is saved as one of the tables and read back as it is, not rebuilt.
:meth:`SavedTables.clean` deletes every version but the one named, and every base it
does not name.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pyspark.sql import DataFrame, SparkSession

from spark_impl.storage.files import FileSystem
from spark_impl.storage.keyed_tables import KeyedTables, Table

MANIFEST = "tables.json"
OVERLAY = "overlay"


class SavedTables:
    """The versions of one set of keyed tables under ``root``; ``publish(frame, folder)``
    writes a folder so that it is read only once complete."""

    def __init__(self, spark: SparkSession, fs: FileSystem, root: str,
                 publish: Callable[[DataFrame, str], None]) -> None:
        self.spark, self.fs, self.root, self.publish = spark, fs, root, publish
        #: per table name, the base last saved or loaded and its folder (relative to ``root``)
        self._bases: dict[str, tuple[Table, str]] = {}

    def version(self, n: int) -> str:
        return f"{self.root}/v={n}"

    def has(self, n: int) -> bool:
        """Whether version ``n`` is saved in this form (its manifest is there)."""
        return self.fs.exists(f"{self.version(n)}/{MANIFEST}")

    def save(self, state: KeyedTables, n: int) -> None:
        """Save ``state`` as version ``n``: the bases not saved yet, the overlay, the manifest."""
        folders = {}
        for name, table in state.tables.items():
            known = self._bases.get(name)
            if known is not None and known[0] is table:
                folders[name] = known[1]
                continue
            folder = f"base-{n}/{name}"
            self.publish(state.base_rows(name), f"{self.root}/{folder}")
            self._bases[name] = (table, folder)
            folders[name] = folder
        bounds = {name: state.overlay_rows[name] for name in state.tables if state.overlay_rows[name]}
        if state.overlay is not None and bounds:
            self.publish(state.overlay, f"{self.version(n)}/{OVERLAY}")
        manifest = {"bases": folders, "overlay_rows": bounds}
        self.fs.write_text(f"{self.version(n)}/{MANIFEST}", json.dumps(manifest, sort_keys=True))

    def load(self, n: int, shapes: KeyedTables) -> KeyedTables:
        """Version ``n``, its tables shaped as ``shapes`` (written anew where the engine keeps
        its tables: :meth:`KeyedTables.restored`)."""
        manifest = self._manifest(n)
        folders: dict[str, str] = manifest["bases"]
        if set(folders) != set(shapes.tables):
            raise ValueError(f"version {n} under {self.root} saves the tables {sorted(folders)}, "
                             f"not {sorted(shapes.tables)}")
        bases = {name: self.spark.read.parquet(f"{self.root}/{folder}") for name, folder in folders.items()}
        bounds: dict[str, int] = manifest["overlay_rows"]
        overlay = self.spark.read.parquet(f"{self.version(n)}/{OVERLAY}") if bounds else None
        state = KeyedTables.restored(shapes, bases, overlay, bounds)
        self._bases = {name: (state.tables[name], folder) for name, folder in folders.items()}
        return state

    def clean(self, n: int) -> None:
        """Delete every version but ``n``, and every base ``n`` does not name."""
        named = set(self._manifest(n)["bases"].values())
        for name in self.fs.names(self.root):
            if name.startswith("v=") and name != f"v={n}":
                self.fs.delete(f"{self.root}/{name}")
            elif name.startswith("base-"):
                kept = [table for table in self.fs.names(f"{self.root}/{name}") if f"{name}/{table}" in named]
                if not kept:
                    self.fs.delete(f"{self.root}/{name}")
                    continue
                for table in self.fs.names(f"{self.root}/{name}"):
                    if table not in kept:
                        self.fs.delete(f"{self.root}/{name}/{table}")

    def _manifest(self, n: int) -> Any:
        text = self.fs.read_text(f"{self.version(n)}/{MANIFEST}")
        if text is None:
            raise FileNotFoundError(f"no saved version {n} under {self.root}")
        return json.loads(text)
