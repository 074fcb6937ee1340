"""``incspec pipeline``: maintain views over change batches on Spark, exactly once.

    incspec pipeline --input DIR --output DIR --view reduce:sum [--view reach] \\
                     [--checkpoint DIR] [--master URL] [--snapshot-every N]

Input: change batches, one file per batch, applied in file-name order; JSON
lines (``.json``/``.jsonl``), CSV (``.csv``, with a header) or Parquet
(``.parquet``). Rows:

* a reduce view reads ``key``, ``value``, ``weight`` (``+n`` adds the value n
  times, ``-n`` removes it; a missing weight is ``+1``);
* a reachability view (``reach``) reads ``kind`` (``edge`` or ``root``),
  ``src``, ``dst`` (``src`` is the root for ``root`` rows) and ``weight``
  (``+1`` adds, ``-1`` removes).

A file feeds every view whose columns it has (``key``: reduce, ``kind``:
reach). Output (Parquet), per view ``NAME`` (``reduce-sum``, ``reach``):
``OUTPUT/NAME/view`` (the view after the last batch) and
``OUTPUT/NAME/changes/batch=<file stem>`` (what each batch changed:
reduce ``key, present, accumulator``; reach ``node, added``).

Exactly once: after a batch's outputs are written, the engines' state is
snapshotted (every ``--snapshot-every`` batches) and the batch is recorded as
committed in ``CHECKPOINT/committed.json`` (written atomically by rename). A
restart loads the last snapshot and replays the committed batches after it
(deterministic, their outputs rewritten identically), then goes on: a crash
at any point loses no batch and applies none twice. A batch refused as
invalid (it removes a value not there) stops the pipeline with exit status 3,
nothing of it applied.

The master is ``--master``, else ``$INCSPEC_SPARK_MASTER``, else ``local[2]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: test hook: "STEM:PHASE" makes the process die (os._exit) at that point of that batch
CRASH_ENV = "INCSPEC_PIPELINE_CRASH_AT"
FORMATS = {".json": "json", ".jsonl": "json", ".csv": "csv", ".parquet": "parquet"}


def _crash_point(stem: str, phase: str) -> None:
    if os.environ.get(CRASH_ENV) == f"{stem}:{phase}":
        print(f"pipeline: crashing at {stem}:{phase} ({CRASH_ENV})", flush=True)
        os._exit(17)


def _atomic_write_text(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _replace_dir(df: Any, target: Path) -> None:
    """Write ``df`` as Parquet to ``target``, replacing it (write aside, then swap)."""
    tmp = target.with_name(target.name + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    df.write.mode("overwrite").parquet(str(tmp))
    if target.exists():
        shutil.rmtree(target)
    os.replace(tmp, target)


@dataclass
class ViewSpec:
    kind: str  # "reduce" | "reach"
    reducer: str = ""

    @property
    def name(self) -> str:
        return f"reduce-{self.reducer}" if self.kind == "reduce" else "reach"

    @staticmethod
    def parse(text: str) -> ViewSpec:
        if text == "reach":
            return ViewSpec("reach")
        kind, _, reducer = text.partition(":")
        if kind != "reduce" or reducer not in ("sum", "count", "min", "max"):
            raise argparse.ArgumentTypeError(f"a view is reduce:sum|count|min|max or reach, got {text!r}")
        return ViewSpec("reduce", reducer)


class ReduceView:
    """A reduce view over ``key, value, weight`` rows."""

    def __init__(self, spark: Any, spec: ViewSpec) -> None:
        self.spark, self.spec = spark, spec
        self.engine: Any = None

    def accepts(self, columns: Sequence[str]) -> bool:
        return "key" in columns and "value" in columns

    def _ensure(self, key_type: str, value_type: str) -> Any:
        from spark_impl.reduce_engine import IncrementalReduce
        from spark_impl.reducers import (
            SparkReducer,
            count_reducer,
            max_reducer,
            min_reducer,
            sum_reducer,
        )

        if self.engine is None:
            make: dict[str, Callable[[str], SparkReducer]] = {
                "sum": sum_reducer, "count": count_reducer, "min": min_reducer, "max": max_reducer}
            self.engine = IncrementalReduce(self.spark, make[self.spec.reducer](value_type), key_type, value_type)
        return self.engine

    def apply(self, batch: Any) -> Any:
        from pyspark.sql import functions as F

        weight = F.col("weight").cast("bigint") if "weight" in batch.columns else F.lit(1).cast("bigint")
        delta = batch.select(F.col("key").alias("k"), F.col("value").alias("v"), weight.alias("w"))
        types = dict(delta.dtypes)
        engine = self._ensure(types["k"], types["v"])
        changes = engine.apply(delta)
        rows = [(c.key, c.present, None if not c.present else _scalar(c.accumulator)) for c in changes]
        return self.spark.createDataFrame(rows, f"key {engine.key_type}, present boolean, "
                                                f"accumulator {engine._acc_type()}")

    def view(self) -> Any:
        engine = self.engine
        return engine.view().select(F_col("k", "key"), F_col("a0", "accumulator"))

    def snapshot(self, path: Path) -> None:
        if self.engine is None:
            return
        _replace_dir(self.engine.view(), path / "acc")
        _replace_dir(self.engine.store.all(), path / "store")
        _atomic_write_text(path / "types.json", json.dumps(
            {"key": self.engine.key_type, "value": self.engine.value_type}))

    def restore(self, path: Path) -> None:
        from spark_impl.state import ZSetTable, materialise

        if not (path / "types.json").exists():
            return
        types = json.loads((path / "types.json").read_text())
        engine = self._ensure(types["key"], types["value"])
        engine.acc_base = materialise(self.spark.read.parquet(str(path / "acc")))
        engine.acc_base_rows = engine.acc_base.count()
        engine.overlay = {}
        store = materialise(self.spark.read.parquet(str(path / "store")))
        engine.store = ZSetTable(store, ["k", "v"], store.count())


def F_col(name: str, alias: str) -> Any:
    from pyspark.sql import functions as F

    return F.col(name).alias(alias)


def _scalar(accumulator: tuple[Any, ...]) -> Any:
    return accumulator[0] if accumulator else None


class ReachView:
    """A reachability view over ``kind, src, dst, weight`` rows."""

    def __init__(self, spark: Any, spec: ViewSpec) -> None:
        self.spark, self.spec = spark, spec
        self.engine: Any = None
        self.node_type = "string"

    def accepts(self, columns: Sequence[str]) -> bool:
        return "kind" in columns and "src" in columns

    def _ensure(self, node_type: str) -> Any:
        from spark_impl.fixpoint_engine import IncrementalReachability

        if self.engine is None:
            self.node_type = node_type
            self.engine = IncrementalReachability(self.spark, node_type)
        return self.engine

    def apply(self, batch: Any) -> Any:
        rows = batch.collect()  # a batch of graph edits is small next to the graph
        node_type = dict(batch.dtypes)["src"]
        engine = self._ensure(node_type)
        change: dict[str, list[Any]] = {"add_roots": [], "remove_roots": [], "add_edges": [], "remove_edges": []}
        for r in rows:
            w = int(r["weight"]) if "weight" in batch.columns and r["weight"] is not None else 1
            sign = "add" if w > 0 else "remove"
            if r["kind"] == "root":
                change[f"{sign}_roots"].append(r["src"])
            else:
                change[f"{sign}_edges"].append((r["src"], r["dst"]))
        delta = engine.apply(**change)
        out = [(n, True) for n in sorted(delta.added, key=repr)] + \
              [(n, False) for n in sorted(delta.removed, key=repr)]
        return self.spark.createDataFrame(out, f"node {node_type}, added boolean")

    def view(self) -> Any:
        return self.engine.current()

    def snapshot(self, path: Path) -> None:
        if self.engine is None:
            return
        for name in ("roots", "edges", "live"):
            _replace_dir(getattr(self.engine, name).all(), path / name)
        _atomic_write_text(path / "types.json", json.dumps({"node": self.node_type}))

    def restore(self, path: Path) -> None:
        from spark_impl.state import ZSetTable, materialise

        if not (path / "types.json").exists():
            return
        engine = self._ensure(json.loads((path / "types.json").read_text())["node"])
        columns = {"roots": ["node"], "edges": ["src", "dst"], "live": ["node", "rank"]}
        for name, cols in columns.items():
            table = materialise(self.spark.read.parquet(str(path / name)))
            setattr(engine, name, ZSetTable(table, cols, table.count()))


def batch_files(input_dir: Path) -> list[Path]:
    return sorted(p for p in input_dir.iterdir() if p.suffix in FORMATS and not p.name.startswith("."))


def read_batch(spark: Any, path: Path) -> Any:
    fmt = FORMATS[path.suffix]
    if fmt == "csv":
        return spark.read.option("header", True).option("inferSchema", True).csv(str(path))
    return spark.read.format(fmt).load(str(path))


def run(spark: Any, input_dir: Path, output: Path, checkpoint: Path, specs: list[ViewSpec],
        snapshot_every: int = 1, log: Any = print) -> int:
    """Process every batch file not yet committed; returns an exit status."""
    from spark_impl.reduce_engine import InvalidDelta

    output.mkdir(parents=True, exist_ok=True)
    checkpoint.mkdir(parents=True, exist_ok=True)
    views = [ReduceView(spark, s) if s.kind == "reduce" else ReachView(spark, s) for s in specs]
    marker = checkpoint / "committed.json"
    committed: list[str] = json.loads(marker.read_text())["batches"] if marker.exists() else []
    pointer = checkpoint / "snapshot.json"
    snap: dict[str, Any] = json.loads(pointer.read_text()) if pointer.exists() else {"dir": "", "batches": []}
    snapshot_at: list[str] = list(snap["batches"])
    if len(snapshot_at) > len(committed):
        committed = list(snapshot_at)
    if snap["dir"]:
        for view in views:
            view.restore(checkpoint / str(snap["dir"]) / view.spec.name)
    replay = committed[len(snapshot_at):]
    files = batch_files(input_dir)
    done = set(snapshot_at)
    pending = [p for p in files if p.stem not in done]
    if replay:
        log(f"pipeline: restored the snapshot after {len(snapshot_at)} batch(es); "
            f"replaying {len(replay)} committed batch(es)")
    total = len(files)
    for path in pending:
        start = time.perf_counter()
        stem = path.stem
        batch = read_batch(spark, path).cache()
        rows = batch.count()
        summary = []
        try:
            for view in views:
                if not view.accepts(batch.columns):
                    continue
                changes = view.apply(batch)
                _replace_dir(changes, output / view.spec.name / "changes" / f"batch={stem}")
                summary.append(f"{view.spec.name}: {changes.count()} change(s)")
                _crash_point(stem, "changes")
        except InvalidDelta as refused:
            log(f"pipeline: batch {stem} refused: {refused}")
            return 3
        batch.unpersist()
        for view in views:
            if view.engine is not None:
                _replace_dir(view.view(), output / view.spec.name / "view")
        _crash_point(stem, "view")
        committed = committed if stem in committed else [*committed, stem]
        position = committed.index(stem) + 1
        if position % snapshot_every == 0 or path == pending[-1]:
            # A new snapshot directory, then the pointer to it (one atomic rename):
            # a crash leaves either the old pointer or the new one, never a mix.
            name = f"snapshot-{position:06d}"
            if (checkpoint / name).exists():
                shutil.rmtree(checkpoint / name)
            for view in views:
                view.snapshot(checkpoint / name / view.spec.name)
            _crash_point(stem, "snapshot")
            _atomic_write_text(pointer, json.dumps({"dir": name, "batches": committed}))
            for old in checkpoint.glob("snapshot-*"):
                if old.name != name:
                    shutil.rmtree(old)
        _atomic_write_text(marker, json.dumps({"batches": committed}))
        _crash_point(stem, "commit")
        log(f"pipeline: batch {position}/{total} {path.name}: {rows} row(s); "
            f"{'; '.join(summary) or 'no view reads it'} ({time.perf_counter() - start:.2f} s)")
    log(f"pipeline: {len(committed)} batch(es) committed")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="incspec pipeline", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--input", type=Path, required=True)
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--checkpoint", type=Path, help="default: OUTPUT/_checkpoint")
    parser.add_argument("--view", type=ViewSpec.parse, action="append", required=True)
    parser.add_argument("--master", help="Spark master URL (default $INCSPEC_SPARK_MASTER or local[2])")
    parser.add_argument("--snapshot-every", type=int, default=1)
    args = parser.parse_args(argv)
    from spark_impl.session import build_session

    spark = build_session(args.master, app_name="incspec-pipeline")
    checkpoint = args.checkpoint or args.output / "_checkpoint"
    return run(spark, args.input, args.output, checkpoint, args.view, max(1, args.snapshot_every))


if __name__ == "__main__":
    sys.exit(main())
