"""One engine on one workload: load, guard, timed batches, memory; a result record.

Every engine of a workload is fed the same seeded stream (a fresh
:class:`~benchmarks.workloads.ReduceStream` / ``GraphStream`` per engine: same
rows, same batches, in the same order), loads the same Parquet table, and is
checked by the guard twice: after the load against the generator's intent,
after the last batch against the generator's own count of live rows or edges
and against the first engine that ran (same data, same stored sizes).
"""

from __future__ import annotations

import statistics
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from benchmarks import guard
from benchmarks.measure import (
    JobCounter,
    JvmHeap,
    load_average,
    reset_rss_peak,
    rss_peak_bytes,
    summary,
)
from benchmarks.workloads import Digest, GraphWorkload, Intent, ReduceWorkload

Schedule = list[tuple[int, int]]  # (changes per batch, batches)


@dataclass
class Agreement:
    """Stored sizes at the end of a workload's first engine, which the others must match."""

    first: str | None = None
    sizes: dict[str, float] = field(default_factory=dict)

    def check(self, engine: str, sizes: dict[str, float]) -> None:
        if self.first is None:
            self.first, self.sizes = engine, dict(sizes)
        else:
            guard.check_agree(engine, self.first, sizes, self.sizes)


def _record(bench: str, engine: str, role: str, workload: ReduceWorkload | GraphWorkload) -> dict[str, Any]:
    return {"bench": bench, "engine": engine, "role": role, "workload": workload.describe(),
            "size": workload.rows if isinstance(workload, ReduceWorkload) else workload.edges,
            "status": "ok", "load_average": load_average(), "batches": []}


def _batch_entry(size: int, samples: list[float], jobs: list[int] | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {"batch": size, "samples_s": samples, **summary(samples)}
    if samples:
        entry["changes_per_s"] = size / entry["median_s"]
    if jobs:
        entry["jobs"] = jobs
    return entry


def _jobs_note(jobs: list[int]) -> str:
    return f", jobs/batch median {statistics.median(jobs):g}" if jobs else ""


def _conserved(intent: Intent) -> tuple[str, ...]:
    return tuple(n for n in ("rows", "edges") if n in intent.expected)


def measure_inprocess(bench: str, runner: Any, workload: ReduceWorkload | GraphWorkload,
                      schedule: Schedule, load: Callable[[], None], heap: JvmHeap | None,
                      agreement: Agreement, log: Callable[[str], None],
                      budget_s: float = float("inf"), jobs: JobCounter | None = None) -> dict[str, Any]:
    """Time ``load()`` then each batch of ``schedule`` through ``runner.apply`` (and count
    the Spark jobs each batch ran, untimed, given a ``jobs`` counter).

    Once the batches have taken ``budget_s`` seconds in all, the series stops
    (checked between batches): the record says ``truncated`` and keeps the
    batches measured; it is then not compared with the other engines, which
    ran further along the stream."""
    rec = _record(bench, runner.name, runner.role, workload)
    intent = workload.intent()
    stream: Any = workload.stream()
    try:
        if heap is not None:
            heap.reset()
        reset_rss_peak()
        start = time.perf_counter()
        load()
        rec["load_s"] = time.perf_counter() - start
        retained = [heap.retained_bytes()] if heap is not None else []
        holds: tuple[str, ...] | None = getattr(runner, "holds", None)  # default: all it is asked
        rec["stored"] = runner.stored()
        guard.check(runner.name, intent, rec["stored"], only=holds)
        log(f"    {runner.name:<20} load {rec['load_s']:7.2f} s   stored {_sizes(rec['stored'])}")
        spent = 0.0
        for size, count in schedule:
            samples: list[float] = []
            batch_jobs: list[int] = []
            for _ in range(count):
                if spent > budget_s:
                    rec["truncated"] = f"time budget of {budget_s:.0f} s spent"
                    break
                batch = stream.batch(size)
                if hasattr(runner, "stage"):  # untimed: the input as the runner reads it
                    batch = runner.stage(batch)
                before = jobs.mark() if jobs is not None else 0
                start = time.perf_counter()
                runner.apply(batch)
                samples.append(time.perf_counter() - start)
                if jobs is not None:
                    batch_jobs.append(jobs.mark() - before)
                spent += samples[-1]
                runner.settle()
            if not samples:
                break
            rec["batches"].append(_batch_entry(size, samples, batch_jobs))
            log(f"    {runner.name:<20} batch {size:>9,}: median {summary(samples)['median_s'] * 1e3:9.1f} ms"
                f"  (min {min(samples) * 1e3:.1f}, max {max(samples) * 1e3:.1f}, n={len(samples)}"
                f"{_jobs_note(batch_jobs)})")
        rec["memory"] = {"rss_peak_bytes": rss_peak_bytes()}
        if heap is not None:
            retained.append(heap.retained_bytes())
            rec["memory"].update(jvm_heap_peak_bytes=heap.peak_bytes(), jvm_heap_max_bytes=heap.max_bytes(),
                                 jvm_heap_retained_bytes=max(retained))
        rec["stored_end"] = runner.stored()
        _check_end(runner.name, intent, rec["stored_end"], stream,
                   agreement if "truncated" not in rec else Agreement(), holds)
        if "truncated" in rec:
            log(f"    {runner.name:<20} truncated: {rec['truncated']}")
    except guard.StoredSizeMismatch as exc:
        rec.update(status="refused", reason=str(exc), batches=[])
        log(f"    REFUSED {exc}")
    except Exception as exc:  # an engine failing is a result too: recorded, never hidden
        rec.update(status="error", reason=f"{type(exc).__name__}: {exc}",
                   traceback=traceback.format_exc(limit=8))
        log(f"    ERROR {runner.name}: {type(exc).__name__}: {str(exc)[:300]}")
    finally:
        stop(runner)
    return rec


def stop(runner: Any) -> None:
    """Stop what ``runner`` leaves running (a streaming query), so that nothing of it runs
    while the next engine is measured."""
    if hasattr(runner, "stop"):
        runner.stop()


def measure_peer(bench: str, peer: Any, workload: ReduceWorkload | GraphWorkload, schedule: Schedule,
                 agreement: Agreement, log: Callable[[str], None]) -> dict[str, Any]:
    """A peer that times itself in a child process (pathway): same guard, same record."""
    rec = _record(bench, peer.name, peer.role, workload)
    intent = workload.intent()
    try:
        out = peer.run(workload, schedule)
        rec["load_s"] = out["load_s"]
        rec["stored_end"] = out["stored"]
        rec["memory"] = {"rss_peak_bytes": out.get("rss_peak_bytes")}
        rec["peer_version"] = out.get("version")
        rec["batches"] = [_batch_entry(b["batch"], b["samples_s"]) for b in out["batches"]]
        stream: Any = workload.stream()
        digest = Digest()  # replay the generator: what it holds at the end, what it handed out
        digest.add(stream.initial())
        for size, count in schedule:
            for _ in range(count):
                batch = stream.batch(size)
                for frame in ((batch,) if isinstance(batch, pd.DataFrame) else (batch.removed, batch.added)):
                    digest.add(frame)
        if out.get("digest") != digest.hexdigest():
            raise guard.StoredSizeMismatch(peer.name, ["the child process generated different data "
                                                       "(stream digests differ)"])
        _check_end(peer.name, intent, rec["stored_end"], stream, agreement)
        log(f"    {peer.name:<20} load {rec['load_s']:7.2f} s   stored at end {_sizes(rec['stored_end'])}")
        for b in rec["batches"]:
            log(f"    {peer.name:<20} batch {b['batch']:>9,}: median {b['median_s'] * 1e3:9.1f} ms"
                f"  (min {b['min_s'] * 1e3:.1f}, max {b['max_s'] * 1e3:.1f}, n={len(b['samples_s'])})")
    except guard.StoredSizeMismatch as exc:
        rec.update(status="refused", reason=str(exc), batches=[])
        log(f"    REFUSED {exc}")
    except Exception as exc:
        rec.update(status="error", reason=f"{type(exc).__name__}: {exc}")
        log(f"    ERROR {peer.name}: {type(exc).__name__}: {str(exc)[:300]}")
    return rec


def _check_end(engine: str, intent: Intent, stored: dict[str, float], stream: Any,
               agreement: Agreement, holds: tuple[str, ...] | None = None) -> None:
    """After the batches: the conserved size (rows, edges) as the generator holds it live, or,
    for an engine that does not hold it (``holds``: the sizes it does), each size it holds that
    the generator counts (a native aggregation's keys); then the same sizes as the engines
    before it."""
    conserved = tuple(n for n in _conserved(intent) if holds is None or n in holds)
    guard.check(engine, intent, stored, only=conserved)
    for name in conserved or tuple(n for n in holds or () if hasattr(stream, f"live_{n}")):
        held = getattr(stream, f"live_{name}")()
        if stored.get(name) != held:
            raise guard.StoredSizeMismatch(engine, [f"stored {name} = {stored.get(name)}, but the generator "
                                                    f"holds {held:,} live after the batches"])
    agreement.check(engine, stored)


def _sizes(sizes: dict[str, float]) -> str:
    return ", ".join(f"{k}={v:,.0f}" for k, v in sizes.items())
