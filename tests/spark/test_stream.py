"""The Spark stream processors against the reference: streaming queries, one
micro-batch per batch, many cuts of one input per query."""

from __future__ import annotations

import json
import os
import tempfile
import time
from typing import Any

import pytest

from conformance.protocols import EngineError
from reference.streams.named import run_named
from tests.spark.stream_inputs import INPUTS, cuts

pytestmark = pytest.mark.spark

#: the keyed processors, whose groups are keys rather than runs
KEYED: list[tuple[str, dict[str, Any]]] = [
    ("join", {}), ("join_partitioned", {"partitions": 1}), ("join_partitioned", {"partitions": 2}),
    ("join_partitioned", {"partitions": 8}), ("distinct", {}), ("split_merge", {"partitions": 1}),
    ("split_merge", {"partitions": 8}), ("pairs", {}),
]
EDGES = [["L", [1, 2]], ["R", [2, 3]], ["L", [2, 4]], ["R", [4, 4]], ["L", [3, 1]], ["R", [1, 2]],
         ["L", [4, 4]], ["R", [2, 4]], ["R", ["a", 1]], ["L", [0, "a"]], ["R", ["a", 2]], ["L", [5, 2]]]


@pytest.mark.heavy
def test_every_processor_and_cut_matches_the_reference_in_one_query(spark: Any) -> None:
    from spark_impl.stream.runner import Job, SparkStreams

    jobs = [Job(name, params, batches) for name, (params, items) in sorted(INPUTS.items())
            for batches in cuts(items)]
    engine = SparkStreams(spark)
    outputs = engine.run_many(jobs)
    for job, out in zip(jobs, outputs, strict=True):
        assert out == run_named(job.processor, job.params, job.batches), job
    assert engine.last is not None
    assert engine.last.micro_batches == max(len(job.batches) for job in jobs)


@pytest.mark.parametrize("shuffle_partitions", [1, 2, 8])
@pytest.mark.heavy
def test_keyed_processors_give_the_same_output_on_1_2_and_8_partitions(spark: Any,
                                                                        shuffle_partitions: int) -> None:
    """Theorem 3.51 on Spark: a keyed processor's groups are spread over 1, 2 or
    8 partitions of the stateful operator, and the output is the same (that of the
    reference); the partitioned join is the join for k = 1, 2, 8."""
    from spark_impl.stream.runner import Job, SparkStreams

    jobs = []
    for name, params in KEYED:
        items = EDGES if name in ("join", "join_partitioned", "pairs") else [e[1] for e in EDGES]
        jobs += [Job(name, params, batches) for batches in cuts(items)]
    outputs = SparkStreams(spark, shuffle_partitions=shuffle_partitions).run_many(jobs)
    for job, out in zip(jobs, outputs, strict=True):
        assert out == run_named(job.processor, job.params, job.batches), job
    joins = [out for job, out in zip(jobs, outputs, strict=True) if job.processor.startswith("join")]
    assert all(out == joins[0] for out in joins) and len(joins[0]) > 0


def test_the_public_api_runs_one_micro_batch_per_batch(spark: Any) -> None:
    """``named_processor`` over a file source with one file per batch: as many
    micro-batches as batches (an empty batch included), and the reference's output."""
    from spark_impl.stream import named_processor, output_of

    batches: list[list[Any]] = [[[0, "a"], [2, "c"]], [], ["tick", [1, "b"]], [[3, "d"]], [[3, "d"], "tick"]]
    folder = tempfile.mkdtemp()
    source, pos = os.path.join(folder, "in"), 0
    os.makedirs(source)
    for j, batch in enumerate(batches):
        path = os.path.join(source, f"{j:03d}.json")
        with open(path, "w", encoding="utf-8") as out:
            for item in batch:
                out.write(json.dumps({"pos": pos, "item": json.dumps(item)}) + "\n")
                pos += 1
        os.utime(path, (time.time() - 100 + j,) * 2)
    session = spark.newSession()
    items = session.readStream.schema("pos bigint, item string").option("maxFilesPerTrigger", 1).json(source)
    query = (named_processor("tcp_receiver")(items).writeStream.format("memory").queryName("tcp_api_test")
             .option("checkpointLocation", os.path.join(folder, "ckpt")).trigger(availableNow=True).start())
    query.awaitTermination()
    assert len({p.batchId for p in query.recentProgress}) == len(batches)
    rows = [(r["part"], r["ord"], r["value"]) for r in session.sql("SELECT * FROM tcp_api_test").collect()]
    assert output_of("tcp_receiver", {}, rows) == run_named("tcp_receiver", {}, batches)


def test_the_state_store_holds_what_the_receiver_buffers(spark: Any) -> None:
    """Spark's count of state rows (the figure the benchmark reports) sees the
    packets the receiver holds ahead of the next number, and their removal."""
    from spark_impl.stream.runner import Job, run_jobs

    ahead = [[i, i] for i in range(1, 41)]
    batches: list[list[Any]] = [ahead, [[0, 0]], ["tick"]]
    outcome = run_jobs(spark, [Job("tcp_receiver", {}, batches)])
    assert outcome.outputs == [run_named("tcp_receiver", {}, batches)]
    rows = [p["stateOperators"][0]["numRowsTotal"] for p in outcome.progress]
    assert rows == [1 + 40, 1, 1]


def test_malformed_items_and_unknown_processors_are_refused(spark: Any) -> None:
    from spark_impl.protocol.stream import SparkStreamEngine

    engine = SparkStreamEngine(spark)
    for name, batches in (("prefix_sum", [[1, "two"]]), ("no_such_processor", [[1]]),
                          ("tcp_receiver", [["tock"]])):
        with pytest.raises(EngineError) as refused:
            engine.run(name, {}, batches)
        assert refused.value.error_class == "malformed-input"
