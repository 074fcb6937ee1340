"""The ``stream`` area: :class:`conformance.protocols.StreamEngine` on Spark.

:class:`SparkStreamEngine` runs one case cut as a streaming query of its own;
:class:`SparkLockstepStream` runs the cuts of a lockstep round of every stream case
in *one* query. The engine's refusals (:class:`spark_impl.errors.SparkEngineError`)
become the suite's ``EngineError``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pyspark.sql import SparkSession

from conformance.protocols import CaseTag, EngineError, Value
from spark_impl.errors import SparkEngineError
from spark_impl.protocol import speaks_suite_errors, untyped
from spark_impl.stream.runner import Job, SparkStreams, run_jobs


def _json(value: Any) -> Any:
    return [_json(v) for v in value] if isinstance(value, list | tuple) else value


@speaks_suite_errors
class SparkStreamEngine:
    def __init__(self, spark: SparkSession) -> None:
        self.streams = SparkStreams(spark)

    def run(self, processor: str, params: Mapping[str, Value],
            batches: Sequence[Sequence[Value]]) -> Sequence[Value]:
        return tuple(self.streams.run(processor, untyped(params), untyped(batches)))


class SparkLockstepStream:
    """Stream cases in lockstep (:class:`conformance.protocols.LockstepStreamEngine`):
    the ``run`` steps of every case of a round as jobs of *one* streaming query
    (:mod:`spark_impl.stream.runner`: runs tagged and grouped apart, micro-batch ``j``
    holding batch ``j`` of every run), each observing its own output or refusal."""

    work_per_case = False

    def __init__(self, spark: SparkSession) -> None:
        self.spark = spark

    def admits(self, ops: Sequence[str]) -> bool:
        return bool(ops) and all(op == "run" for op in ops)

    def run(self, batch: Mapping[CaseTag, tuple[str, Mapping[str, Value], Sequence[Sequence[Value]]]]
            ) -> dict[CaseTag, Sequence[Value] | EngineError]:
        tags = list(batch)
        jobs = [Job(processor, _json(untyped(params)), [list(b) for b in untyped(batches)])
                for processor, params, batches in (batch[i] for i in tags)]
        outcome = run_jobs(self.spark, jobs)
        return {i: (EngineError(out.error_class, out.message) if isinstance(out, SparkEngineError)
                    else tuple(out))
                for i, out in zip(tags, outcome.outputs, strict=True)}
