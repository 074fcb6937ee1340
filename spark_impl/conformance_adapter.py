"""The Spark implementation as the conformance suite sees it (``--impl spark``).

The suite resolves ``spark`` to ``spark_impl.conformance_adapter:implementation``.
One SparkSession serves every case (created on first use); each case gets fresh
engines, so no state crosses cases.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from conformance.protocols import (
    CaseResult,
    FixpointEngine,
    Handshake,
    ReduceEngine,
    StreamEngine,
    ZSetEngine,
)

VERSION = "0.1.0"


class SparkImplementation:
    """Handshake and per-case engine factories, sharing one SparkSession."""

    def __init__(self) -> None:
        self._spark: Any = None

    @property
    def spark(self) -> Any:
        if self._spark is None:
            from spark_impl.session import build_session

            self._spark = build_session(app_name="incspec-conformance")
        return self._spark

    def handshake(self) -> Handshake:
        import pyspark

        return Handshake(
            name="incspec-spark",
            version=f"{VERSION} (pyspark {pyspark.__version__})",
            language="python",
            areas=self.areas(),
            features=("declining-remove", "ill-formed-reducers", "ranks", "work-counters", "iterate", "nested-iterate"),
        )

    @staticmethod
    def areas() -> tuple[str, ...]:
        return ("reduce", "fixpoint", "zset", "stream")

    def reduce_engine(self) -> ReduceEngine | None:
        from spark_impl.protocol.reduce import SparkReduceEngine

        return SparkReduceEngine(self.spark)

    def fixpoint_engine(self) -> FixpointEngine | None:
        from spark_impl.protocol.fixpoint import SparkFixpointEngine

        return SparkFixpointEngine(self.spark)

    def zset_engine(self) -> ZSetEngine | None:
        from spark_impl.protocol.zset import SparkZSetEngine

        return SparkZSetEngine(self.spark)

    def stream_engine(self) -> StreamEngine | None:
        from spark_impl.protocol.stream import SparkStreamEngine

        return SparkStreamEngine(self.spark)

    def engine(self, area: str) -> Any:
        factories = {"reduce": self.reduce_engine, "fixpoint": self.fixpoint_engine,
                     "zset": self.zset_engine, "stream": self.stream_engine}
        return factories[area]() if area in factories else None

    def run_cases(self, cases: Sequence[Any]) -> Sequence[CaseResult]:
        """Many cases at once, concurrently on the one session (see :mod:`spark_impl.batch_runner`)."""
        from spark_impl.batch_runner import run_cases

        _ = self.spark  # start the session once, before the workers race to it
        return run_cases(self.engine, cases, spark=self.spark)


implementation = SparkImplementation()
