"""The ``stream`` area: :class:`conformance.protocols.StreamEngine` on Spark."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pyspark.sql import SparkSession

from conformance.protocols import Value
from spark_impl.protocol import speaks_suite_errors
from spark_impl.stream_engine import SparkStreams


@speaks_suite_errors
class SparkStreamEngine:
    def __init__(self, spark: SparkSession) -> None:
        self.streams = SparkStreams(spark)

    def run(self, processor: str, params: Mapping[str, Value],
            batches: Sequence[Sequence[Value]]) -> Sequence[Value]:
        out = self.streams.run(processor, params, batches)
        return tuple(out)
