"""Apache Flink (PyFlink) on the reduce workload, in a process of its own (``python -m benchmarks.flink_peer``).

Run by the interpreter of Flink's own environment (``incspec engines install flink``), as
:mod:`benchmarks.pathway_peer` is by pathway's: it imports nothing of the project but
:mod:`benchmarks.workloads` and :mod:`benchmarks.measure` (numpy and pandas, both in that
environment). Reads a request on stdin: ``{"kind": "reduce", "workload": {...}, "variant": ...,
"schedule": [[batch, count], ...]}``; regenerates the same seeded stream, runs it, and prints one
JSON line: load time, per-batch seconds, stored sizes, peak RSS, Flink's version, the stream's digest.

* ``builtin``: ``SELECT k, SUM(v), COUNT(*) FROM changes GROUP BY k``, Flink's retracting
  built-ins;
* ``custom``: the same ``GROUP BY`` with a Python ``AggregateFunction`` whose accumulator is
  ``(sum, count)``, with ``retract`` (pathway's custom reducer with retraction).

**Input.** ``changes`` is a changelog: a streaming ``filesystem`` source in the ``debezium-json``
format (Flink's documented retraction input: ``"op": "c"`` is ``+I``, ``"op": "d"`` is ``-D``)
watching a folder (``source.monitor-interval`` :data:`MONITOR`). The load and each batch are one
JSON-lines file: the batch's removals (the rows as they were inserted, ``before``), then its
additions, then a **marker**, the ``+I`` of a fresh key ``-(i+1)`` never a real key (those are
``>= 0``). The file is written untimed into a staging folder (as the Spark engines' batches are
staged as Parquet before their clock starts) and handed to Flink by renaming it into the watched one.

**Output.** Flink itself keeps the stored sizes over the view, :data:`SIZES_SQL`: its keys
(the view's rows) and rows (``Σ COUNT(*)``, the live input rows), without the markers, and the
newest marker (the least key). With mini-batches (``table.exec.mini-batch``, :data:`MINI_BATCH`)
that single-row aggregate emits once per mini-batch rather than once per change, so the
driver reads a few rows per batch through Flink's ``collect`` iterator.

**A batch's time** runs from the rename (Flink's first chance to see its first row) until
the sizes carrying the batch's marker are read: at parallelism 1 every operator sees its input
in order, so they come after every result of the batch's rows. It includes Flink's discovery
of the file (at most one monitor interval, :data:`MONITOR`), parsing it, the aggregation,
at most one mini-batch interval, and the collect iterator's fetch (it polls the job): a
floor of about 0.1 to 0.2 s per batch on a 2-core machine, whatever the batch's size.

**Parallelism 1** (:data:`PARALLELISM`): one task per operator, so the markers keep their
place; on two cores the source, the aggregation and the Python worker (``custom``) still run
as separate threads (pathway runs with two threads).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from typing import Any

import pandas as pd

from benchmarks.measure import rss_peak_bytes
from benchmarks.workloads import Digest, ReduceWorkload

#: how often Flink's file source looks for a new batch file
MONITOR = "10ms"
#: the longest a Python bundle (``custom``'s aggregate) stays open (Flink's default: 1000 ms)
BUNDLE_MS = 1
#: the mini-batch interval: the sizes' aggregate emits once per mini-batch, not per change
MINI_BATCH = "10ms"
#: tasks per operator: 1 keeps each batch's marker behind the batch's rows
PARALLELISM = 1

INSERT = '{"before":null,"after":{"id":%d,"k":%d,"v":%d},"op":"c"}\n'
DELETE = '{"before":{"id":%d,"k":%d,"v":%d},"after":null,"op":"d"}\n'


def debezium_lines(frame: pd.DataFrame, template: str) -> str:
    """``frame``'s ``id, k, v`` rows as Debezium JSON lines of one kind (:data:`INSERT` or
    :data:`DELETE`)."""
    cols = (frame[c].tolist() for c in ("id", "k", "v"))
    return "".join(template % row for row in zip(*cols, strict=True))


def batch_text(removed: pd.DataFrame, added: pd.DataFrame, marker: int) -> str:
    """One step's file: removals, additions, then the marker ``+I`` of key ``marker``."""
    return debezium_lines(removed, DELETE) + debezium_lines(added, INSERT) + INSERT % (0, marker, 0)


def process_tree_rss_peak() -> int:
    """Peak RSS of this process plus each process under it (Flink's JVM, the Python workers),
    each its own VmHWM summed: an upper bound of the peak they held together."""
    total = rss_peak_bytes()
    pending = [os.getpid()]
    while pending:
        pid = pending.pop()
        try:
            with open(f"/proc/{pid}/task/{pid}/children") as f:
                children = [int(c) for c in f.read().split()]
        except OSError:
            continue
        for child in children:
            pending.append(child)
            try:
                with open(f"/proc/{child}/status") as status:
                    total += next((int(ln.split()[1]) * 1024 for ln in status if ln.startswith("VmHWM:")), 0)
            except OSError:
                pass
    return total


def _sum_count() -> Any:
    from pyflink.table import DataTypes  # type: ignore[import-not-found]
    from pyflink.table.udf import AggregateFunction, udaf  # type: ignore[import-not-found]

    class SumCount(AggregateFunction):  # type: ignore[misc]
        """``(Σ v, count)`` with ``retract``: pathway's custom reducer, in Flink's terms."""

        def create_accumulator(self) -> list[int]:
            return [0, 0]

        def accumulate(self, acc: list[int], v: int) -> None:
            acc[0] += v
            acc[1] += 1

        def retract(self, acc: list[int], v: int) -> None:
            acc[0] -= v
            acc[1] -= 1

        def get_value(self, acc: list[int]) -> list[int]:
            return [acc[0], acc[1]]

        def get_accumulator_type(self) -> Any:
            return DataTypes.ARRAY(DataTypes.BIGINT())

        def get_result_type(self) -> Any:
            return DataTypes.ARRAY(DataTypes.BIGINT())

    return udaf(SumCount(), func_type="general")


#: what the driver reads: the view's keys and rows (``Σ COUNT(*)``, the live input rows), both
#: without the markers, and the newest marker (the least key)
SIZES_SQL = ("SELECT COUNT(*) FILTER (WHERE k >= 0) AS keys, SUM(c) FILTER (WHERE k >= 0) AS live, "
             "MIN(k) AS marker FROM view")


def view_sql(variant: str) -> str:
    """The view's query over ``changes``: ``k, s, c`` (``sum_count`` is the custom aggregate)."""
    if variant == "builtin":
        return "SELECT k, SUM(v) AS s, COUNT(*) AS c FROM changes GROUP BY k"
    if variant == "custom":
        return ("SELECT k, r[1] AS s, r[2] AS c FROM "
                "(SELECT k, sum_count(v) AS r FROM changes GROUP BY k)")
    raise ValueError(f"unknown variant {variant!r} (builtin, custom)")


class Feeder:
    """Hands step files to Flink (written untimed into ``root/staging``, then renamed into the
    watched ``root/watched``) and reads the sizes' changelog (:data:`SIZES_SQL`, ``results``:
    Flink's collect iterator) up to each step's marker."""

    def __init__(self, root: str, results: Iterator[Any]) -> None:
        self.staging = os.path.join(root, "staging")
        self.watched = os.path.join(root, "watched")
        os.makedirs(self.staging, exist_ok=True)
        self.results = results
        self.steps = 0
        self.sizes = (0, 0)

    def stage(self, removed: pd.DataFrame, added: pd.DataFrame) -> str:
        """Write one step's file untimed, its marker the step's number; its name."""
        self.steps += 1
        name = f"step-{self.steps:07d}.json"
        with open(os.path.join(self.staging, name), "w") as f:
            f.write(batch_text(removed, added, -self.steps))
        return name

    def hand(self, name: str) -> float:
        """Hand a staged step to Flink; seconds until the sizes carry its marker."""
        from pyflink.common.types import RowKind  # type: ignore[import-not-found]

        start = time.perf_counter()
        os.rename(os.path.join(self.staging, name), os.path.join(self.watched, name))
        for row in self.results:
            if row.get_row_kind() in (RowKind.INSERT, RowKind.UPDATE_AFTER) and row[2] == -self.steps:
                elapsed = time.perf_counter() - start
                self.sizes = (int(row[0]), int(row[1] or 0))
                os.remove(os.path.join(self.watched, name))  # read: the source keeps no handle on it
                return elapsed
        raise RuntimeError(f"Flink's results ended before step {self.steps}'s marker")


def _run(request: dict[str, Any]) -> dict[str, Any]:
    from importlib.metadata import version

    from pyflink.datastream import StreamExecutionEnvironment  # type: ignore[import-not-found]
    from pyflink.table import StreamTableEnvironment

    if request["kind"] != "reduce":
        raise ValueError("the Flink peer runs the reduce workload only")
    schedule = [(int(b), int(n)) for b, n in request["schedule"]]
    spec = ReduceWorkload(**request["workload"])
    stream = spec.stream()
    digest = Digest()
    root = tempfile.mkdtemp(prefix="flink-peer-")
    job: Any = None
    try:
        env = StreamExecutionEnvironment.get_execution_environment()
        env.set_parallelism(PARALLELISM)
        t_env = StreamTableEnvironment.create(env)
        config = t_env.get_config()
        config.set("table.exec.resource.default-parallelism", str(PARALLELISM))
        config.set("python.fn-execution.bundle.time", str(BUNDLE_MS))
        config.set("table.exec.mini-batch.enabled", "true")
        config.set("table.exec.mini-batch.allow-latency", MINI_BATCH)
        config.set("table.exec.mini-batch.size", "100000")
        watched = os.path.join(root, "watched")
        os.makedirs(watched)
        t_env.execute_sql(
            "CREATE TABLE changes (id BIGINT, k BIGINT, v BIGINT) WITH ('connector' = 'filesystem', "
            f"'path' = 'file://{watched}', 'format' = 'debezium-json', "
            f"'source.monitor-interval' = '{MONITOR}')")
        if request["variant"] == "custom":
            t_env.create_temporary_function("sum_count", _sum_count())
        t_env.create_temporary_view("view", t_env.sql_query(view_sql(request["variant"])))
        result = t_env.sql_query(SIZES_SQL).execute()
        job = result.get_job_client()
        results = result.collect()
        feeder = Feeder(root, results)
        initial = digest.add(stream.initial())
        name = feeder.stage(initial.iloc[:0], initial)
        out: dict[str, Any] = {"load_s": feeder.hand(name), "batches": []}
        for size, count in schedule:
            samples = []
            for _ in range(count):
                batch = digest.add(stream.batch(size))
                name = feeder.stage(batch[batch["w"] < 0], batch[batch["w"] > 0])
                samples.append(feeder.hand(name))
            out["batches"].append({"batch": size, "samples_s": samples})
        keys, rows = feeder.sizes
        out["stored"] = {"rows": float(rows), "keys": float(keys)}
        out["rss_peak_bytes"] = process_tree_rss_peak()
        out["version"] = version("apache-flink")
        out["digest"] = digest.hexdigest()
        out["setup"] = {"parallelism": PARALLELISM, "monitor_interval": MONITOR, "bundle_ms": BUNDLE_MS}
        return out
    finally:
        if job is not None:
            try:
                job.cancel().result()
            except Exception:  # the job may have failed already: its error is what was raised
                pass
        shutil.rmtree(root, ignore_errors=True)


def main() -> int:
    request = json.loads(sys.stdin.read())
    print(json.dumps(_run(request)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
