"""Reducers that are not sums, kept per key in the state store and folded on the executors.

min/max (Skip's ``remove`` declines on the extremum) and user reducers
``(initial, add, remove)`` cannot be a native aggregation: their new
accumulator depends on the old one through Python code. They run as one
``transformWithStateInPandas`` operator (the Structured Streaming state store,
RocksDB provider) whose grouping key is a *hash bucket* of the key, not the key:
Python is called once per bucket with a pandas frame of every change of the
bucket in the micro-batch, and reads and writes each touched key's state with
one map-state lookup and one update (grouping by key would cost a Python call
per key: SKIP-DEC-SPARK-STATE).

Per key the state holds the accumulator (canonical JSON text), the size ``n`` of
the key's multiset and the multiset itself (value JSON text -> multiplicity),
which serves the two things a fold cannot do from the accumulator alone:

* refuse a delta whose Δ⁻ is not contained in C (SKIP-DEF-8): the whole
  micro-batch fails (:class:`InvalidDeltaError`), so nothing of it is committed;
* recompute a key whose ``remove`` declined (returned ``None``) from ``initial``
  and ``add`` over its values after the delta (SKIP-DEC-PARTIAL).

The update of a key follows SKIP-DEF-10: its removals first, then its
additions, each value as many times as its weight; a micro-batch of several
parts (column ``part``) is that update once per part, in part order. The operator emits one row
per touched key whose view entry changed: ``(k, present, acc, n, calls)``, with
``calls`` the ⊕/⊖ applications made (work counters, SKIP-THM-3).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pandas as pd
from pyspark.sql.streaming.stateful_processor import (
    StatefulProcessor,
    StatefulProcessorHandle,
    TimerValues,
)

from spark_impl.values import decode, encode

#: the marker a refused micro-batch's exception carries, followed by a JSON object
INVALID_MARKER = "INCSPEC-INVALID-DELTA:"

#: one change row of a key: ``(part, value as JSON text, weight, file)``
Change = tuple[str, str, int, Any]


class InvalidDeltaError(ValueError):
    """Raised on an executor: Δ⁻(k) ⊄ C(k). Its text carries the facts as JSON
    (the value decoded from the canonical JSON text it is stored as)."""

    def __init__(self, key: Any, value: Any, available: int, removed: int, file: str | None) -> None:
        facts = {"key": key, "value": value, "available": available, "removed": removed,
                 "file": file}
        super().__init__(INVALID_MARKER + json.dumps(facts, default=str) + ":END")


class InvalidRowError(ValueError):
    """Raised on an executor: a change row that is no change (its column ``invalid`` says why)."""

    def __init__(self, detail: str, file: str | None) -> None:
        facts = {"detail": detail, "file": file}
        super().__init__(INVALID_MARKER + json.dumps(facts) + ":END")


def output_schema(key_type: str) -> str:
    return f"k {key_type}, changed boolean, present boolean, acc string, n bigint, calls bigint"


class KeyedFold(StatefulProcessor):
    """The per-bucket stateful processor of a fold reducer."""

    def __init__(self, initial: Any, add: Callable[[Any, Any], Any],
                 remove: Callable[[Any, Any], Any | None], key_type: str) -> None:
        self.initial, self.add, self.remove, self.key_type = initial, add, remove, key_type

    def init(self, handle: StatefulProcessorHandle) -> None:
        self.state = handle.getMapState("entries", f"k {self.key_type}",
                                        "acc string, n bigint, vals string")

    def handleInputRows(self, key: Any, rows: Iterator[pd.DataFrame],
                        timerValues: TimerValues) -> Iterator[pd.DataFrame]:
        # grouped in plain Python: a pandas group per key costs more overhead than the
        # key's two state calls
        by_key: dict[Any, list[Change]] = {}
        for frame in rows:
            _refuse_invalid(frame)
            columns = (frame[c].tolist() for c in ("k", "part", "v", "w", "file"))
            for k, part, v, w, file in zip(*columns, strict=True):
                by_key.setdefault(k, []).append((part, v, int(w), file))
        out = [self._update(k, by_key[k]) for k in sorted(by_key)]
        if out:
            yield pd.DataFrame(out, columns=["k", "changed", "present", "acc", "n", "calls"])

    def _update(self, k: Any, changes: list[Change]) -> tuple[Any, ...]:
        entry = self.state.getValue((k,))
        old_acc = entry[0] if entry is not None else None
        values: dict[str, int] = json.loads(entry[2]) if entry is not None else {}
        acc = decode(old_acc) if old_acc is not None else self.initial
        calls = 0
        # the parts in order (one, mostly); a stable sort keeps each part's rows in order
        for _, part in itertools.groupby(sorted(changes, key=_part_of), key=_part_of):
            removed, added, first_file = _tally(part)
            for v, count in sorted(removed.items()):
                if count > values.get(v, 0):
                    raise InvalidDeltaError(_plain_key(k), decode(v), values.get(v, 0), count,
                                            first_file.get(v))
            for v, count in removed.items():  # C • Δ: the multiset after the part
                values[v] -= count
                if values[v] == 0:
                    del values[v]
            for v, count in added.items():
                values[v] = values.get(v, 0) + count
            acc, part_calls = self._fold(acc, removed, added, values)
            calls += part_calls
        n = sum(values.values())
        if n == 0:
            if entry is not None:
                self.state.removeKey((k,))
            return (k, old_acc is not None, False, None, 0, calls)
        new_acc = encode(acc)
        self.state.updateValue((k,), (new_acc, n, json.dumps(values, sort_keys=True)))
        return (k, new_acc != old_acc, True, new_acc, n, calls)

    def _fold(self, acc: Any, removed: dict[str, int], added: dict[str, int],
              after: dict[str, int]) -> tuple[Any, int]:
        """SKIP-DEF-10: ⊖ each removed value, then ⊕ each added one; if a ⊖ declines,
        the key is recomputed from ``initial`` over its values ``after`` the delta."""
        calls = 0
        for v, count in sorted(removed.items()):
            value = decode(v)
            for _ in range(count):
                calls += 1
                result = self.remove(acc, value)
                if result is None:  # SKIP-DEC-PARTIAL
                    return self._refold(after, calls)
                acc = result
        for v, count in sorted(added.items()):
            value = decode(v)
            for _ in range(count):
                calls += 1
                acc = self.add(acc, value)
        return acc, calls

    def _refold(self, values: dict[str, int], calls: int) -> tuple[Any, int]:
        acc = self.initial
        for v, count in sorted(values.items()):
            value = decode(v)
            for _ in range(count):
                calls += 1
                acc = self.add(acc, value)
        return acc, calls

    def close(self) -> None:
        pass


def _refuse_invalid(frame: pd.DataFrame) -> None:
    """Fail the micro-batch on the frame's invalid row of the first part holding one."""
    invalid = frame[frame["invalid"].notna()]
    if len(invalid):
        first = invalid.sort_values(["part", "invalid"]).iloc[0]
        raise InvalidRowError(str(first["invalid"]), first["file"])


def _part_of(change: Change) -> str:
    return change[0]


def _tally(part: Iterable[Change]) -> tuple[dict[str, int], dict[str, int], dict[str, Any]]:
    """A part's removals and additions per value (JSON text), and the file of each
    value's first removal."""
    removed: dict[str, int] = {}
    added: dict[str, int] = {}
    first_file: dict[str, Any] = {}
    for _, v, w, file in part:
        side = added if w > 0 else removed
        side[v] = side.get(v, 0) + abs(w)
        if w < 0:
            first_file.setdefault(v, file)
    return removed, added, first_file


def _plain_key(k: Any) -> Any:
    return k.item() if hasattr(k, "item") else k
