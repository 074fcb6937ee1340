"""pathway on a benchmark workload, in a process of its own (``python -m benchmarks.pathway_peer``).

Reads a request on stdin: ``{"kind": "reduce"|"graph", "workload": {...},
"variant": ..., "schedule": [[batch, count], ...]}``; regenerates the same
seeded stream (:mod:`benchmarks.workloads`), runs it, and prints one JSON line:
load time, per-batch seconds, stored sizes, peak RSS, pathway's version.

* reduce, ``builtin``: ``groupby(k).reduce(sum(v), count())``;
  ``custom``: a :class:`pathway.BaseCustomAccumulator` ``(sum, count)`` with
  ``retract`` (pathway's custom reducer with retraction);
* graph, ``iterate``: ``pw.iterate`` of ``reach = distinct(roots ∪ succ(reach))``.

Rows enter through a Python connector keyed by row id (a deletion retracts
exactly the inserted row), one commit per batch. A batch's time runs from
handing its first row to the connector to the end of its output time (the
subscribed sink's ``on_time_end``): ingestion through Python is part of it,
as it is for the Spark engines (a pandas batch turned into a DataFrame).
Every batch inserts rows with fresh, larger ids than any it deletes, so a
ticker (``sum(id)`` over the input, concatenated to the output) changes in
every batch and each batch ends one output time.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from typing import Any

from benchmarks.measure import rss_peak_bytes
from benchmarks.workloads import Digest, GraphWorkload, ReduceWorkload

TICK = -1  # the ticker's key: never a real key or node (those are >= 0)


def _run(request: dict[str, Any]) -> dict[str, Any]:
    import pathway as pw

    schedule = [(int(b), int(n)) for b, n in request["schedule"]]
    is_reduce = request["kind"] == "reduce"
    spec: ReduceWorkload | GraphWorkload = (ReduceWorkload(**request["workload"]) if is_reduce
                                            else GraphWorkload(**request["workload"]))
    stream: Any = spec.stream()
    done = threading.Event()
    digest = Digest()
    out: dict[str, Any] = {"batches": []}
    live = {"rows": 0, "ticker_n": 0}
    cols = ("id", "k", "v") if is_reduce else ("id", "src", "dst")
    names = ("rid", *cols[1:])  # pathway reserves ``id`` for its own row pointer

    class Feeder(pw.io.python.ConnectorSubject):
        def _send(self, frame: Any, sign: int) -> None:
            send = self.next if sign > 0 else self.delete
            a, b, c = names
            for x, y, z in zip(*(frame[col].tolist() for col in cols), strict=True):
                send(**{a: x, b: y, c: z})

        def _commit_and_wait(self) -> None:
            self.commit()
            if not done.wait(timeout=3600):
                raise TimeoutError("pathway produced no output time for a batch")
            done.clear()

        def run(self) -> None:
            initial = digest.add(stream.initial())
            start = time.perf_counter()
            self._send(initial, 1)
            self._commit_and_wait()
            out["load_s"] = time.perf_counter() - start
            for size, count in schedule:
                samples = []
                for _ in range(count):
                    batch = stream.batch(size)
                    if is_reduce:
                        digest.add(batch)
                    else:
                        digest.add(batch.removed)
                        digest.add(batch.added)
                    start = time.perf_counter()
                    if is_reduce:
                        self._send(batch[batch["w"] < 0], -1)
                        self._send(batch[batch["w"] > 0], 1)
                    else:
                        self._send(batch.removed, -1)
                        self._send(batch.added, 1)
                    self._commit_and_wait()
                    samples.append(time.perf_counter() - start)
                out["batches"].append({"batch": size, "samples_s": samples})

        @property
        def _deletions_enabled(self) -> bool:
            return True

    if is_reduce:
        class Row(pw.Schema):
            rid: int = pw.column_definition(primary_key=True)
            k: int
            v: int
    else:
        class Row(pw.Schema):  # type: ignore[no-redef]
            rid: int = pw.column_definition(primary_key=True)
            src: int
            dst: int

    table = pw.io.python.read(Feeder(), schema=Row, autocommit_duration_ms=None)
    ticker = table.reduce(s=pw.reducers.sum(table.rid), n=pw.reducers.count())  # type: ignore[no-untyped-call]
    tick = ticker.select(a=TICK, b=ticker.s, c=ticker.n)
    if is_reduce:
        main = _reduce_view(pw, table, request["variant"])
    else:
        main = _reach_view(pw, table, stream.roots())
    both = pw.Table.concat_reindex(main, tick)

    def on_change(key: Any, row: dict[str, Any], time: int, is_addition: bool) -> None:
        if row["a"] == TICK:
            if is_addition:
                live["ticker_n"] = int(row["c"])
        else:
            live["rows"] += 1 if is_addition else -1

    pw.io.subscribe(both, on_change=on_change, on_time_end=lambda t: done.set())
    pw.run(monitoring_level=pw.MonitoringLevel.NONE)
    if is_reduce:
        out["stored"] = {"rows": float(live["ticker_n"]), "keys": float(live["rows"])}
    else:
        out["stored"] = {"edges": float(live["ticker_n"]), "live": float(live["rows"])}
    out["rss_peak_bytes"] = rss_peak_bytes()
    out["version"] = pw.__version__
    out["digest"] = digest.hexdigest()
    return out


def _reduce_view(pw: Any, table: Any, variant: str) -> Any:
    if variant == "builtin":
        view = table.groupby(table.k).reduce(table.k, s=pw.reducers.sum(table.v), c=pw.reducers.count())
        return view.select(a=view.k, b=view.s, c=view.c)

    class SumCount(pw.BaseCustomAccumulator):  # type: ignore[misc]
        def __init__(self, s: int, c: int) -> None:
            self.s, self.c = s, c

        @classmethod
        def from_row(cls, row: list[Any]) -> SumCount:
            return cls(row[0], 1)

        def update(self, other: SumCount) -> None:
            self.s += other.s
            self.c += other.c

        def retract(self, other: SumCount) -> None:
            self.s -= other.s
            self.c -= other.c

        def compute_result(self) -> tuple[int, int]:
            return (self.s, self.c)

        def serialize(self) -> tuple[int, int]:  # a pathway value: no pickling
            return (self.s, self.c)

        @classmethod
        def deserialize(cls, val: Any) -> SumCount:
            return cls(int(val[0]), int(val[1]))

    view = table.groupby(table.k).reduce(table.k, r=pw.reducers.udf_reducer(SumCount)(table.v))
    return view.select(a=view.k, b=view.r[0], c=view.r[1])


def _reach_view(pw: Any, edges: Any, roots: list[int]) -> Any:
    import pandas as pd

    root_table = pw.debug.table_from_pandas(pd.DataFrame({"node": roots}))

    def step(reach: Any, edges: Any, roots: Any) -> dict[str, Any]:
        succ = reach.join(edges, reach.node == edges.src).select(node=edges.dst)
        both = pw.Table.concat_reindex(roots, succ)
        return {"reach": both.groupby(both.node).reduce(both.node)}

    seed = root_table.groupby(root_table.node).reduce(root_table.node)
    reach = pw.iterate(step, reach=pw.iterate_universe(seed), edges=edges, roots=root_table).reach
    return reach.select(a=reach.node, b=0, c=0)


def main() -> int:
    request = json.loads(sys.stdin.read())
    print(json.dumps(_run(request)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
