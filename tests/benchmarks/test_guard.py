"""The stored-size guard refuses data that is not what the generator says it is.

The old reduce generator (``k = i mod K``, ``v = 7919·i mod 1000``) gives each
key a single distinct value: its 10^6 nominal rows are 10^5 stored rows.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
import pandas as pd
import pytest

from benchmarks import guard, harness
from benchmarks.engines import OracleReduce, Table
from benchmarks.workloads import Bound, Intent, KeySkew, ReduceWorkload


def old_generator(rows: int, keys: int) -> tuple[np.ndarray, np.ndarray]:
    """The degenerate generator the benchmarks used to run on."""
    i = np.arange(rows, dtype=np.int64)
    return i % keys, (i * 7919) % 1000


def test_guard_refuses_the_old_generator_at_its_own_proportions() -> None:
    k, v = old_generator(1_000_000, 100_000)
    measured = guard.measure_rows(k, v)
    assert measured == {"rows": 100_000.0, "keys": 100_000.0}  # one distinct value per key
    intent = ReduceWorkload(1_000_000, 100_000).intent()  # what those parameters mean
    with pytest.raises(guard.StoredSizeMismatch) as refused:
        guard.check("old-generator", intent, measured)
    assert "stored rows = 100,000, expected exactly 1,000,000" in str(refused.value)


def test_guard_accepts_what_the_generators_make() -> None:
    skews: tuple[KeySkew, ...] = ("uniform", "zipf")
    for skew in skews:
        spec = ReduceWorkload(200_000, 20_000, skew)
        frame = spec.stream().initial()
        guard.check(skew, spec.intent(), guard.measure_rows(frame["k"].to_numpy(), frame["v"].to_numpy()))


def test_guard_names_what_is_missing_or_out_of_bounds() -> None:
    intent = Intent({"rows": 10}, {"rows": Bound.exactly(10), "keys": Bound(2, 3)})
    with pytest.raises(guard.StoredSizeMismatch) as refused:
        guard.check("e", intent, {"keys": 5})
    assert refused.value.problems == [
        "rows: not reported by the engine (expected exactly 10)",
        "stored keys = 5, expected in [2.0, 3.0] (nominal: rows=10)",
    ]
    guard.check("e", intent, {"rows": 10, "keys": 5}, only=("rows",))  # keys not asked
    guard.check("e", intent, {"rows": 10, "keys": 3})


def test_engines_must_agree_on_what_they_store() -> None:
    guard.check_agree("b", "a", {"rows": 5, "keys": 2}, {"rows": 5, "keys": 2})
    with pytest.raises(guard.StoredSizeMismatch, match="stored keys = 3, but a stores 2"):
        guard.check_agree("b", "a", {"rows": 5, "keys": 3}, {"rows": 5, "keys": 2})


class OldWorkload(ReduceWorkload):
    """The old generator behind the workload interface, claiming ``rows`` rows."""

    def stream(self) -> Any:
        spec = self

        class Stream:
            def initial(self) -> pd.DataFrame:
                k, v = old_generator(spec.rows, spec.keys)
                return pd.DataFrame({"id": np.arange(spec.rows), "k": k, "v": v})

            def batch(self, size: int) -> pd.DataFrame:
                raise AssertionError("a refused workload is never timed")

        return Stream()


def test_a_run_on_the_old_generator_is_refused_and_reports_no_timing() -> None:
    workload = OldWorkload(20_000, 1_000)
    runner = OracleReduce(incremental=True)
    table = Table(workload.stream().initial(), "unused.parquet")
    log: list[str] = []
    rec = harness.measure_inprocess("reduce", runner, workload, [(100, 3)], lambda: runner.load(table),
                                    None, harness.Agreement(), log.append)
    assert rec["status"] == "refused"
    assert rec["batches"] == []
    assert "stored rows = 1,000, expected exactly 20,000" in rec["reason"]
    assert any(line.strip().startswith("REFUSED") for line in log)


def test_a_run_on_a_sound_workload_reports_timings_and_stored_sizes() -> None:
    workload = ReduceWorkload(5_000, 500)
    runner = OracleReduce(incremental=True)
    table = Table(workload.stream().initial(), "unused.parquet")
    rec = harness.measure_inprocess("reduce", runner, workload, [(100, 2), (1_000, 2)],
                                    lambda: runner.load(table), None, harness.Agreement(), lambda _: None)
    assert rec["status"] == "ok", rec.get("reason")
    assert [b["batch"] for b in rec["batches"]] == [100, 1_000]
    assert all(len(b["samples_s"]) == 2 and b["min_s"] <= b["median_s"] <= b["max_s"] for b in rec["batches"])
    assert rec["stored"]["rows"] == rec["stored_end"]["rows"] == 5_000


def test_two_engines_on_the_same_stream_store_the_same_and_are_checked() -> None:
    workload = ReduceWorkload(5_000, 500)
    agreement = harness.Agreement()
    for incremental in (True, False):
        runner = OracleReduce(incremental)
        table = Table(workload.stream().initial(), "unused.parquet")
        rec = harness.measure_inprocess("reduce", runner, workload, [(200, 2)], partial(runner.load, table),
                                        None, agreement, lambda _: None)
        assert rec["status"] == "ok", rec.get("reason")
    assert agreement.first == "oracle-incremental"
    with pytest.raises(guard.StoredSizeMismatch):
        agreement.check("liar", {**agreement.sizes, "keys": agreement.sizes["keys"] + 1})


class KeysOnly:
    """An engine that stores keys and no ``(k, v)`` rows (as Spark's native aggregation does):
    the oracle, reporting its keys only, plus ``lie`` at the end."""

    holds = ("keys",)
    role = "floor"

    def __init__(self, lie: int = 0) -> None:
        self.inner = OracleReduce(incremental=True)
        self.name, self.lie, self.batches = "keys-only", lie, 0

    def load(self, table: Table) -> None:
        self.inner.load(table)

    def apply(self, batch: Any) -> None:
        self.inner.apply(batch)
        self.batches += 1

    def settle(self) -> None:
        pass

    def stored(self) -> dict[str, float]:
        return {"keys": self.inner.stored()["keys"] + (self.lie if self.batches else 0)}


@pytest.mark.parametrize("lie", [0, 1])
def test_an_engine_holding_keys_only_is_checked_on_its_keys(lie: int) -> None:
    """Not asked for rows it does not hold; its keys checked against the generator's live keys
    after the batches (one key too many is refused), and against the engines before it."""
    workload = ReduceWorkload(5_000, 500)
    table = Table(workload.stream().initial(), "unused.parquet")
    agreement = harness.Agreement()
    first = OracleReduce(incremental=True)
    assert harness.measure_inprocess("reduce", first, workload, [(200, 2)], partial(first.load, table),
                                     None, agreement, lambda _: None)["status"] == "ok"
    runner = KeysOnly(lie)
    rec = harness.measure_inprocess("reduce", runner, workload, [(200, 2)], partial(runner.load, table),
                                    None, agreement, lambda _: None)
    if lie:
        assert rec["status"] == "refused" and "stored keys" in rec["reason"] and "generator holds" in rec["reason"]
    else:
        assert rec["status"] == "ok", rec.get("reason")
        assert set(rec["stored_end"]) == {"keys"} and rec["stored_end"]["keys"] == agreement.sizes["keys"]
