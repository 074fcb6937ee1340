"""Reducers that are not sums, kept per key in the state store and folded on the executors.

min/max (Skip's ``remove`` declines on the extremum) and user reducers
``(initial, add, remove)`` cannot be a native aggregation: their new
accumulator depends on the old one through Python code. They run as one
``transformWithStateInPandas`` operator (the Structured Streaming state store,
RocksDB provider) whose grouping key is a *hash bucket* of the key, not the key:
Python is called once per bucket with a pandas frame of every change of the
bucket in the micro-batch, and reads and writes the state entries of each touched
key and (key, value) pair with map-state lookups and updates (grouping by key would
cost a Python call per key: SKIP-DEC-SPARK-STATE).

The state is one entry per (key, value), never a key's whole multiset in one entry
(STATE_LAYOUT 2; the layout is recorded with the checkpoint, next to the bucket count:
:mod:`spark_impl.reduce.fold_buckets`). Three map states of the bucket:

* ``keys``: ``k -> (acc, n, d)``, the accumulator (canonical JSON text), the size ``n`` of
  the key's multiset and ``d``, its count of distinct values;
* ``pairs``: ``(k, v) -> (m, slot)``, the multiplicity ``m > 0`` of value ``v`` (JSON text)
  and the slot it holds in the key's index (a pair whose multiplicity reaches 0 is
  removed);
* ``slots``: ``(k, i) -> v`` for ``i < d``: the key's values, densely numbered, so a key's
  values are enumerated by ``d`` lookups (a map state iterates the whole bucket, not one key).

A touch of key ``k`` reads and writes ``k``'s ``keys`` entry and the ``pairs`` entries of
the values the batch touches, plus a bounded number of ``slots`` entries per value that
appears or disappears (a disappearing value's slot is filled by the key's last one):
the cost does not depend on ``|C(k)|``. The pairs serve the two things a fold cannot do
from the accumulator alone:

* refuse a delta whose Δ⁻ is not contained in C (SKIP-DEF-8): the whole
  micro-batch fails (:class:`InvalidDeltaError`), so nothing of it is committed;
* recompute a key whose ``remove`` declined (returned ``None``) from ``initial``
  and ``add`` over its values after the delta (SKIP-DEC-PARTIAL): only then are all of
  the key's pairs read, ``2d`` lookups, O(|C(k)|) on a declined remove alone.

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
    MapState,
    StatefulProcessor,
    StatefulProcessorHandle,
    TimerValues,
)

from spark_impl.values import decode, encode

#: the state's layout, recorded with the checkpoint (:mod:`spark_impl.reduce.fold_buckets`):
#: 1 kept a key's multiset as one JSON text, 2 keeps one entry per (key, value)
STATE_LAYOUT = 2

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
        k = f"k {self.key_type}"
        self.keys = handle.getMapState("keys", k, "acc string, n bigint, d bigint")
        self.pairs = handle.getMapState("pairs", f"{k}, v string", "m bigint, slot bigint")
        self.slots = handle.getMapState("slots", f"{k}, i bigint", "v string")

    def handleInputRows(self, key: Any, rows: Iterator[pd.DataFrame],
                        timerValues: TimerValues) -> Iterator[pd.DataFrame]:
        # grouped in plain Python: a pandas group per key costs more overhead than the
        # key's state calls
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
        entry = self.keys.getValue((k,))
        old_acc = entry[0] if entry is not None else None
        n = int(entry[1]) if entry is not None else 0
        values = _Multiset(self.pairs, self.slots, k, int(entry[2]) if entry is not None else 0)
        acc = decode(old_acc) if old_acc is not None else self.initial
        calls = 0
        # the parts in order (one, mostly); a stable sort keeps each part's rows in order
        for _, part in itertools.groupby(sorted(changes, key=_part_of), key=_part_of):
            removed, added, first_file = tally(part)
            for v, count in sorted(removed.items()):
                if count > values.count(v):
                    raise InvalidDeltaError(_plain_key(k), decode(v), values.count(v), count,
                                            first_file.get(v))
            for v, count in removed.items():  # C • Δ: the multiset after the part
                values.change(v, -count)
            for v, count in added.items():
                values.change(v, count)
            n += sum(added.values()) - sum(removed.values())
            acc, part_calls = self._fold(acc, removed, added, values)
            calls += part_calls
        distinct = values.write()
        if n == 0:
            if entry is not None:
                self.keys.removeKey((k,))
            return (k, old_acc is not None, False, None, 0, calls)
        new_acc = encode(acc)
        self.keys.updateValue((k,), (new_acc, n, distinct))
        return (k, new_acc != old_acc, True, new_acc, n, calls)

    def _fold(self, acc: Any, removed: dict[str, int], added: dict[str, int],
              after: _Multiset) -> tuple[Any, int]:
        """SKIP-DEF-10 on one part (:func:`fold_part`); a declined remove recomputes the key
        from its values ``after`` the delta, the one place all its pairs are read."""
        acc, calls, declined = fold_part(self.remove, self.add, acc, removed, added)
        if declined:  # SKIP-DEC-PARTIAL
            return refold(self.initial, self.add, after.all(), calls)
        return acc, calls

    def close(self) -> None:
        pass


Add = Callable[[Any, Any], Any]


def fold_part(remove: Callable[[Any, Any], Any | None], add: Add, acc: Any,
              removed: dict[str, int], added: dict[str, int]) -> tuple[Any, int, bool]:
    """SKIP-DEF-10 on one part of a key's delta: ⊖ each removed value, then ⊕ each added
    one (values as JSON text, each in text order, as often as its count). Returns the
    accumulator, the ⊕/⊖ calls made, and whether a ⊖ declined (returned ``None``): then the
    accumulator is ``None`` and the key must be recomputed (:func:`refold`) from its values
    after the delta."""
    calls = 0
    for v, count in sorted(removed.items()):
        value = decode(v)
        for _ in range(count):
            calls += 1
            result = remove(acc, value)
            if result is None:
                return None, calls, True
            acc = result
    acc, calls = refold(acc, add, added, calls)
    return acc, calls, False


def refold(acc: Any, add: Add, values: dict[str, int], calls: int) -> tuple[Any, int]:
    """⊕ over ``values`` (JSON text: multiplicity) from ``acc``, in text order; ``calls``
    counted on from those already made. From ``initial``: a key recomputed from its values."""
    for v, count in sorted(values.items()):
        value = decode(v)
        for _ in range(count):
            calls += 1
            acc = add(acc, value)
    return acc, calls


#: one part of a key's delta, tallied (:func:`tally`): its removals and additions per value
Tally = tuple[dict[str, int], dict[str, int]]


def skip_update(initial: Any, add: Add, remove: Callable[[Any, Any], Any | None], acc: Any,
                parts: list[Tally], held: dict[str, int] | None) -> tuple[Any, int, bool]:
    """SKIP-DEF-10 on one key: its delta's ``parts`` (each tallied, in part order), each
    part's removals then additions (:func:`fold_part`), from ``acc``. ``held``: the key's
    values before the delta (JSON text: multiplicity), which a declined ⊖ recomputes the key
    from (its values after that part, :func:`refold`); None: no values at hand, so the update
    stops at the first decline. Returns the accumulator, the calls made, and whether it
    stopped so."""
    calls = 0
    for removed, added in parts:
        if held is not None:  # the key's values after this part
            for v, count in removed.items():
                held[v] = held.get(v, 0) - count
            for v, count in added.items():
                held[v] = held.get(v, 0) + count
        acc, made, declined = fold_part(remove, add, acc, removed, added)
        calls += made
        if declined:
            if held is None:
                return None, calls, True
            acc, calls = refold(initial, add, {v: m for v, m in held.items() if m > 0}, calls)
    return acc, calls, False


class _Multiset:
    """One key's multiset during its update: the pairs read on first use and kept here,
    written back once by :meth:`write` (only those that changed)."""

    def __init__(self, pairs: MapState, slots: MapState, k: Any, distinct: int) -> None:
        self.pairs, self.slots, self.k, self.distinct = pairs, slots, k, distinct
        #: each value read: its stored ``(m, slot)``, ``None`` if not stored
        self.stored: dict[str, tuple[int, int] | None] = {}
        #: each value read: its multiplicity now
        self.now: dict[str, int] = {}
        #: every stored value has been read (by :meth:`all`)
        self.complete = False

    def count(self, v: str) -> int:
        if v not in self.now:
            found = None if self.complete else self.pairs.getValue((self.k, v))
            self.stored[v] = (int(found[0]), int(found[1])) if found is not None else None
            self.now[v] = int(found[0]) if found is not None else 0
        return self.now[v]

    def change(self, v: str, by: int) -> None:
        self.now[v] = self.count(v) + by

    def all(self) -> dict[str, int]:
        """The key's whole multiset now: each stored value read by its slot (O(|C(k)|))."""
        if not self.complete:
            for i in range(self.distinct):
                found = self.slots.getValue((self.k, i))
                assert found is not None, f"slot {i} of key {self.k!r} is missing"
                self.count(found[0])
            self.complete = True
        return {v: m for v, m in self.now.items() if m > 0}

    def write(self) -> int:
        """Write the changed pairs back, a value gone removed with its slot (the hole filled
        by a new value, else by the key's last one); returns the distinct count after."""
        gone = {v: record[1] for v, record in self.stored.items()
                if record is not None and self.now[v] == 0}
        new = sorted(v for v, record in self.stored.items() if record is None and self.now[v] > 0)
        size = self.distinct - len(gone) + len(new)
        holes = sorted(gone.values())
        slot_of = {v: record[1] for v, record in self.stored.items()
                   if record is not None and self.now[v] > 0}
        placed: dict[int, str] = {}
        for v, i in zip(new, holes + list(range(self.distinct, size)), strict=False):
            slot_of[v], placed[i] = i, v
        left = holes[len(new):]  # holes no new value filled; the last values move into them
        high = [i for i in range(size, self.distinct) if i not in set(left)]
        for hole, i in zip([h for h in left if h < size], high, strict=True):
            found = self.slots.getValue((self.k, i))
            assert found is not None, f"slot {i} of key {self.k!r} is missing"
            self.count(found[0])
            slot_of[found[0]], placed[hole] = hole, found[0]
        for v in sorted(gone):
            self.pairs.removeKey((self.k, v))
        for i in range(size, self.distinct):
            self.slots.removeKey((self.k, i))
        for i, v in sorted(placed.items()):
            self.slots.updateValue((self.k, i), (v,))
        for v, i in sorted(slot_of.items()):
            if self.stored[v] != (self.now[v], i):
                self.pairs.updateValue((self.k, v), (self.now[v], i))
        return size


def _refuse_invalid(frame: pd.DataFrame) -> None:
    """Fail the micro-batch on the frame's invalid row of the first part holding one."""
    invalid = frame[frame["invalid"].notna()]
    if len(invalid):
        first = invalid.sort_values(["part", "invalid"]).iloc[0]
        raise InvalidRowError(str(first["invalid"]), first["file"])


def _part_of(change: Change) -> str:
    return change[0]


def tally(part: Iterable[Change]) -> tuple[dict[str, int], dict[str, int], dict[str, Any]]:
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
