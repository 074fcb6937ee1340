"""The Spark implementation as the conformance suite sees it (``--impl spark``).

The suite finds it through the ``incspec.implementations`` entry point ``spark``
(``pyproject.toml``). One SparkSession serves every case (created on first use);
each case gets fresh engines, so no state crosses cases. The reduce and fixpoint
cases run in lockstep (:mod:`spark_impl.protocol.lockstep`: one dataflow per area),
and cases run :data:`CONCURRENCY` at a time: Spark schedules jobs from several
driver threads, so cases overlap their job latency.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from conformance.api import handshake
from conformance.protocols import (
    FixpointEngine,
    Handshake,
    LockstepEngine,
    ReduceEngine,
    StreamEngine,
    ZSetEngine,
)

if TYPE_CHECKING:  # Spark is imported when a session is first needed
    from spark_impl.protocol.reduce import RunnerPath

VERSION = "0.1.0"
#: concurrent cases (or lockstep batches); job latency, not CPU, is what they overlap
CONCURRENCY = 6


class SparkImplementation:
    """Handshake and per-case engine factories, sharing one SparkSession."""

    concurrency = CONCURRENCY
    #: no limit per case by default: a case waits on Spark job latency, which depends on the
    #: machine's load, so a limit would make a case's outcome depend on it (``--timeout`` sets one)
    case_timeout = None

    def __init__(self, reduce_path: RunnerPath = "stream") -> None:
        """``reduce_path``: where group reducers keep their state (another than ``stream``:
        the reduce area alone; ``--impl spark_impl.conformance_adapter:bulk_implementation``,
        ``...:adaptive_implementation``)."""
        self.reduce_path = reduce_path
        self._spark: Any = None
        self._starting = threading.Lock()  # one session, however many cases ask at once

    @property
    def spark(self) -> Any:
        with self._starting:
            if self._spark is None:
                from spark_impl.session import build_session

                self._spark = build_session(app_name="incspec-conformance", small_data=True)
        return self._spark

    def handshake(self) -> Handshake:
        import pyspark

        # every feature of the suite's features list
        name = "incspec-spark" if self.reduce_path == "stream" else f"incspec-spark ({self.reduce_path} path)"
        return handshake(name, f"{VERSION} (pyspark {pyspark.__version__})", areas=self.areas())

    def areas(self) -> tuple[str, ...]:
        if self.reduce_path != "stream":
            return ("reduce",)
        return ("reduce", "fixpoint", "zset", "stream")

    def reduce_engine(self) -> ReduceEngine | None:
        from spark_impl.protocol.reduce import SparkReduceEngine

        return SparkReduceEngine(self.spark, path=self.reduce_path)

    def fixpoint_engine(self) -> FixpointEngine | None:
        from spark_impl.protocol.fixpoint import SparkFixpointEngine

        return SparkFixpointEngine(self.spark)

    def zset_engine(self) -> ZSetEngine | None:
        from spark_impl.protocol.zset import SparkZSetEngine

        return SparkZSetEngine(self.spark)

    def stream_engine(self) -> StreamEngine | None:
        from spark_impl.protocol.stream import SparkStreamEngine

        return SparkStreamEngine(self.spark)

    def lockstep_engine(self, area: str) -> LockstepEngine | None:
        from spark_impl.protocol.lockstep import SparkLockstepFixpoint, SparkLockstepReduce

        if area == "reduce":
            return SparkLockstepReduce(self.spark, self.reduce_path)
        if area == "fixpoint":
            return SparkLockstepFixpoint(self.spark)
        if area == "stream":
            from spark_impl.protocol.stream import SparkLockstepStream

            return SparkLockstepStream(self.spark)
        return None


implementation = SparkImplementation()
#: the same, its group reducers' views on the bulk path (the reduce area only)
bulk_implementation = SparkImplementation("bulk")
#: the same, its group reducers' views on the path each step's cost model chooses
adaptive_implementation = SparkImplementation("adaptive")
