"""The ``stream`` area: :class:`conformance.protocols.StreamEngine` on Spark.

:class:`SparkStreamEngine` runs one case cut as a streaming query of its own;
:func:`run_stream_lockstep` runs every cut of every stream case in *one* query
(:mod:`spark_impl.streams.runner`: runs tagged and grouped apart, micro-batch
``j`` holding batch ``j`` of every cut). The engine's refusals
(:class:`spark_impl.errors.SparkEngineError`) become the suite's ``EngineError``.
"""

from __future__ import annotations

import traceback
from collections.abc import Mapping, Sequence
from typing import Any

from pyspark.sql import SparkSession

from conformance.protocols import CaseResult, EngineError, Value
from spark_impl.errors import SparkEngineError
from spark_impl.stream_engine import SparkStreams
from spark_impl.streams.runner import Job, run_jobs


def _json(value: Any) -> Any:
    return [_json(v) for v in value] if isinstance(value, list | tuple) else value


class SparkStreamEngine:
    def __init__(self, spark: SparkSession) -> None:
        self.streams = SparkStreams(spark)

    def run(self, processor: str, params: Mapping[str, Value],
            batches: Sequence[Sequence[Value]]) -> Sequence[Value]:
        try:
            out = self.streams.run(processor, params, batches)
        except SparkEngineError as refused:
            raise EngineError(refused.error_class, refused.message) from None
        return tuple(out)


def run_stream_lockstep(spark: SparkSession, cases: Sequence[Any]) -> list[CaseResult]:
    """Every ``run`` step of every case as one job of one streaming query; each
    step observes its own output (or its refusal), as a separate run would."""
    jobs: list[Job] = []
    places: list[tuple[int, int]] = []
    observations: list[list[dict[str, Any]]] = []
    for i, case in enumerate(cases):
        observations.append([])
        setup = case.setup
        for j, step in enumerate(case.steps):
            observations[i].append({"error": "malformed-input"})
            if step.op != "run":
                continue
            jobs.append(Job(setup["processor"], _json(setup.get("params", {})),
                            [list(b) for b in step.args.get("batches", ())]))
            places.append((i, j))
    try:
        outcome = run_jobs(spark, jobs)
    except Exception as exc:  # noqa: BLE001 - a failed query is every stream case's result
        message = "".join(traceback.format_exception_only(exc)).strip()
        return [CaseResult(c.id, "errored", message=message) for c in cases]
    for (i, j), out in zip(places, outcome.outputs, strict=True):
        observations[i][j] = ({"error": out.error_class} if isinstance(out, SparkEngineError)
                              else {"output": _json(out)})
    return [CaseResult(c.id, "result", tuple(observations[i])) for i, c in enumerate(cases)]
