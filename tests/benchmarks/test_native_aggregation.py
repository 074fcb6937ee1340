"""The reduce benchmark's floor: Spark's own streaming aggregation fed as the engine is
(benchmarks/native_aggregation.py, issue 33)."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import pytest

from benchmarks import harness
from benchmarks.engines import SparkNative, SparkReduce, Table
from benchmarks.workloads import ReduceWorkload

pytestmark = [pytest.mark.spark, pytest.mark.heavy]  # two engines' loads and batches: ~30 s


def test_the_native_floor_stores_the_keys_the_engine_stores_and_refuses_nothing(spark: Any, tmp_path: Path) -> None:
    """Both runners over the same stream: the engine's stored rows and keys, the floor's keys,
    each checked against the generator and each other by the harness; then a batch removing a
    value no key holds, which the engine refuses (SKIP-DEF-8), is taken by the floor, which
    keeps no multiset to check it against."""
    from spark_impl.reduce.maintained_view import InvalidDelta

    workload = ReduceWorkload(2_000, 200)
    frame = workload.stream().initial()
    path = str(tmp_path / "table.parquet")
    frame.drop(columns=["id"]).to_parquet(path, index=False)
    table, agreement = Table(frame, path), harness.Agreement()
    engine, floor = SparkReduce(spark, "builtin", str(tmp_path / "engine")), SparkNative(spark, str(tmp_path / "floor"))
    records = [harness.measure_inprocess("reduce", runner, workload, [(100, 1)], partial(runner.load, table),
                                         None, agreement, lambda _: None) for runner in (engine, floor)]
    assert [r["status"] for r in records] == ["ok", "ok"], [r.get("reason") for r in records]
    assert set(records[0]["stored_end"]) == {"rows", "keys"}
    assert records[1]["stored_end"] == {"keys": records[0]["stored_end"]["keys"]}

    absent = spark.createDataFrame([(0, 10**12, -1)], "k bigint, v bigint, w bigint")
    with pytest.raises(InvalidDelta):
        engine.engine.apply(absent)
    floor.engine.apply(absent)  # taken: key 0's size and sum move, nothing is checked
    engine.engine.stop()
    floor.engine.stop()
