"""A named processor as a Structured Streaming stateful operator.

The plan of :func:`apply_processors` over a streaming DataFrame of items
``(spec, run, pos, item)``:

1. ``mapInPandas`` parses each item and computes its group (the kernel's
   ``key``: the run for a sequential processor, the join key for a join, the
   value for ``distinct``);
2. ``groupBy(spec, run, key).transformWithStateInPandas(...)``: Spark shuffles the
   rows by the grouping key (so a keyed processor is partitioned by key,
   STREAM-THM-3.51) and, per micro-batch, calls the kernel once per group with
   that group's rows and its state in the state store (RocksDB provider);
3. the output rows ``(run, part, ord, value)`` stream out in append mode.

``spec`` is the processor's name and parameters as JSON, so one query can run
many processors (and many runs of each: ``run`` tags them) side by side; runs
never share a group, so each run's output is that of a query of its own.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import Any

import pandas as pd
from pyspark.sql import DataFrame
from pyspark.sql.streaming.stateful_processor import StatefulProcessor

from spark_impl.stream.kernel_state import HandleStore
from spark_impl.stream.kernels import Kernel, kernel
from spark_impl.values import decode, encode

Value = Any

ROCKSDB = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"
PROVIDER = "spark.sql.streaming.stateStore.providerClass"
CHANGELOG = "spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled"
#: the state's row count (``numRowsTotal``), which the engines' sessions turn off (spark_impl/session.py)
COUNT_ROWS = "spark.sql.streaming.stateStore.rocksdb.trackTotalNumberOfRows"

#: the items a processor reads: ``item`` is the canonical JSON text of one input item
INPUT_SCHEMA = "spec string, run string, pos bigint, item string"
KEYED_SCHEMA = "spec string, run string, key string, pos bigint, item string"
#: what it emits: ``value`` the JSON text of an output element, null for a marker
OUTPUT_SCHEMA = "run string, part bigint, ord bigint, value string"


def spec_of(name: str, params: Mapping[str, Value]) -> str:
    """The ``spec`` column of a processor: its name and parameters as canonical JSON."""
    return encode({"processor": name, "params": dict(params)})


@lru_cache(maxsize=256)
def kernel_of(spec: str) -> Kernel:
    parsed = json.loads(spec)
    return kernel(parsed["processor"], parsed["params"])


def _keyed(frames: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
    for frame in frames:
        keys = [kernel_of(s).key(kernel_of(s).parse(decode(item)))
                for s, item in zip(frame["spec"], frame["item"], strict=True)]
        yield frame.assign(key=keys)[["spec", "run", "key", "pos", "item"]]


class NamedProcessorOperator(StatefulProcessor):
    """The ``transformWithStateInPandas`` processor: one kernel step per group and
    micro-batch, its state in the state variables of :class:`HandleStore`."""

    def init(self, handle: Any) -> None:
        self.store = HandleStore(handle)

    def handleInputRows(self, key: Any, rows: Iterator[pd.DataFrame],
                        timerValues: Any = None) -> Iterator[pd.DataFrame]:
        spec, run = key[0], key[1]
        step = kernel_of(spec)
        frame = pd.concat(list(rows), ignore_index=True).sort_values("pos", kind="stable")
        items = [(int(p), step.parse(decode(t))) for p, t in zip(frame["pos"], frame["item"], strict=True)]
        out = step.step(self.store, items)
        if not out:  # an empty frame trips pyspark's Arrow conversion: emit nothing
            return
        yield pd.DataFrame({"run": [run] * len(out), "part": [o[0] for o in out],
                            "ord": [o[1] for o in out], "value": [o[2] for o in out]},
                           columns=["run", "part", "ord", "value"])

    def close(self) -> None:
        pass


def apply_processors(items: DataFrame) -> DataFrame:
    """The output stream of the processors named in ``items``' ``spec`` column
    (``items`` has :data:`INPUT_SCHEMA`'s columns). The session must use the
    RocksDB state store provider (:data:`PROVIDER`) for the state variables."""
    keyed = items.select("spec", "run", "pos", "item").mapInPandas(_keyed, KEYED_SCHEMA)
    return keyed.groupBy("spec", "run", "key").transformWithStateInPandas(
        NamedProcessorOperator(), OUTPUT_SCHEMA, "Append", "None")
