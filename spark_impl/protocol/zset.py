"""The ``zset`` area: :class:`conformance.protocols.ZSetEngine` on Spark."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pyspark.sql import SparkSession

from conformance.protocols import EngineError, Value, WeightedRows
from spark_impl.driver_rows import frame_of_rows
from spark_impl.protocol import decode, encode, speaks_suite_errors
from spark_impl.zset.dataflow import SCHEMA, Program, ZSetDataflow


@speaks_suite_errors
class SparkZSetEngine:
    """One case's dataflow: ``build`` a program, then ``step`` version by version."""

    def __init__(self, spark: SparkSession) -> None:
        self.spark = spark
        self.flow: ZSetDataflow | None = None

    def build(self, program: Mapping[str, Value]) -> None:
        self.flow = ZSetDataflow(self.spark, Program.from_json(_plain(program)))

    @property
    def work(self) -> Mapping[str, int]:
        """The work counters of the last step (see ``spark_impl.zset.dataflow._Step``)."""
        return {} if self.flow is None else dict(self.flow.work)

    def step(self, inputs: Mapping[str, WeightedRows]) -> WeightedRows:
        if self.flow is None:
            raise EngineError("malformed-input", "no program built")
        frames = {}
        for name, rows in inputs.items():
            try:
                data = [(encode(e), int(w)) for e, w in rows]
            except (TypeError, ValueError) as exc:
                raise EngineError("malformed-input", f"input {name!r}: {exc}") from None
            frames[name] = frame_of_rows(self.spark, data, SCHEMA)
        out = self.flow.step(frames)
        return sorted(((decode(r["e"]), int(r["w"])) for r in out.collect()), key=lambda p: encode(p[0]))


def _plain(value: Any) -> Any:
    """A frozen JSON value (tuples, frozen objects) as plain dicts and lists."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value
