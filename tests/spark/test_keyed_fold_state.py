"""The fold reducers' state: one entry per (key, value), so a touch costs what it touches
(SKIP-DEC-SPARK-STATE; issue 32, finding 8).

The processor (:class:`~spark_impl.reduce.keyed_fold.KeyedFold`) runs here on an
instrumented handle: its map states are dictionaries that record every entry read and
written, so the tests count what a micro-batch reads and writes, not how long it takes.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.spark

pd = pytest.importorskip("pandas")


class RecordingMap:
    """A map state (the PySpark API's ``getValue``/``updateValue``/``removeKey``/``containsKey``)
    over a dictionary, recording each operation and the entry it touched."""

    def __init__(self, name: str, log: list[tuple[str, str, tuple[Any, ...], Any]]) -> None:
        self.name, self.log, self.entries = name, log, {}  # type: ignore[var-annotated]

    def getValue(self, key: tuple[Any, ...]) -> Any:  # noqa: N802 (the PySpark API's name)
        value = self.entries.get(key)
        self.log.append(("read", self.name, key, value))
        return value

    def containsKey(self, key: tuple[Any, ...]) -> bool:  # noqa: N802
        self.log.append(("read", self.name, key, None))
        return key in self.entries

    def updateValue(self, key: tuple[Any, ...], value: tuple[Any, ...]) -> None:  # noqa: N802
        self.log.append(("write", self.name, key, value))
        self.entries[key] = value

    def removeKey(self, key: tuple[Any, ...]) -> None:  # noqa: N802
        self.log.append(("remove", self.name, key, None))
        self.entries.pop(key, None)


class RecordingHandle:
    def __init__(self) -> None:
        self.log: list[tuple[str, str, tuple[Any, ...], Any]] = []
        self.maps: dict[str, RecordingMap] = {}

    def getMapState(self, name: str, key_schema: str, value_schema: str,  # noqa: N802
                    ttl: int | None = None) -> RecordingMap:
        return self.maps.setdefault(name, RecordingMap(name, self.log))


def processor(reducer: str = "min") -> tuple[Any, RecordingHandle]:
    from spark_impl.reduce.maintained_view import _fold_processor
    from spark_impl.reduce.reducer_kinds import builtin_reducer

    fold = _fold_processor(builtin_reducer(reducer, "bigint"), "string")  # type: ignore[arg-type]
    handle = RecordingHandle()
    fold.init(handle)  # type: ignore[arg-type]  # the recording stand-in
    return fold, handle


def run(fold: Any, handle: RecordingHandle, rows: list[tuple[str, int, int]]
        ) -> tuple[list[tuple[str, str, tuple[Any, ...], Any]], dict[str, Any]]:
    """One micro-batch of one bucket: ``(k, v, w)`` rows; the state operations it made and
    its output rows by key."""
    handle.log.clear()
    frame = pd.DataFrame({"k": [k for k, _, _ in rows], "part": [""] * len(rows),
                          "v": [json.dumps(v) for _, v, _ in rows], "w": [w for _, _, w in rows],
                          "file": [None] * len(rows), "invalid": [None] * len(rows)})
    out = list(fold.handleInputRows(("bucket",), iter([frame]), None))
    emitted = {r["k"]: r for r in out[0].to_dict("records")} if out else {}
    return list(handle.log), emitted


def shape(log: list[tuple[str, str, tuple[Any, ...], Any]]) -> Counter[tuple[str, str]]:
    return Counter((op, name) for op, name, _, _ in log)


def longest_field(log: list[tuple[str, str, tuple[Any, ...], Any]]) -> int:
    fields = [f for _, _, key, value in log for f in (*key, *(value or ()))]
    return max(len(str(f)) for f in fields)


@pytest.mark.spec("SKIP-DEC-SPARK-STATE", evidence="example")
@pytest.mark.parametrize("touch", ["add a value", "remove a value (not the minimum)",
                                   "remove a value's last copy", "add to a value present"])
def test_a_touch_of_a_hot_key_reads_and_writes_the_same_entries_whatever_its_size(touch: str) -> None:
    """The hot key holds 10, then 2000, distinct values: a micro-batch touching one of them
    reads and writes as many entries of each state in both cases, none of them holding more
    than a value's text (before: the key's whole multiset, one JSON text of every value,
    was read and rewritten)."""
    seen = []
    for size in (10, 2000):
        fold, handle = processor()
        run(fold, handle, [("hot", 10_000 + i, 1 + i % 2) for i in range(size)] + [("cold", 1, 1)])
        batch = {"add a value": [("hot", 99_999, 1)],
                 "remove a value (not the minimum)": [("hot", 10_003, -2)],
                 "remove a value's last copy": [("hot", 10_002, -1)],
                 "add to a value present": [("hot", 10_004, 1)]}[touch]
        log, emitted = run(fold, handle, batch)
        assert emitted["hot"]["n"] == sum(1 + i % 2 for i in range(size)) + sum(w for _, _, w in batch)
        assert longest_field(log) <= 12, log
        seen.append(shape(log))
    assert seen[0] == seen[1]


@pytest.mark.spec("SKIP-DEC-SPARK-STATE", evidence="example")
def test_a_declined_remove_reads_its_own_key_s_pairs_only() -> None:
    """Removing a key's minimum declines (SKIP-DEC-PARTIAL): the key is refolded from its
    values, read from the state, those of the key only (2 entries a distinct value), not
    the bucket's other keys."""
    fold, handle = processor()
    run(fold, handle, [("hot", 100 + i, 1) for i in range(500)] + [("cold", v, 1) for v in (1, 5, 9)])
    log, emitted = run(fold, handle, [("cold", 1, -1)])
    assert emitted["cold"]["acc"] == "5" and emitted["cold"]["calls"] == 1 + 2  # ⊖ declined, 2 ⊕
    assert {key[0] for _, _, key, _ in log} == {"cold"}
    assert sum(1 for op, _, _, _ in log if op == "read") <= 1 + 2 * 3 + 2


def check_layout(handle: RecordingHandle, expected: dict[str, Counter[int]]) -> None:
    """The state is the multiset, pair by pair, its slots numbered densely per key."""
    maps = handle.maps
    pairs = {(k, json.loads(v)): int(m) for (k, v), (m, _) in maps["pairs"].entries.items()}
    assert pairs == {(k, v): m for k, c in expected.items() for v, m in c.items() if m > 0}
    for k, c in expected.items():
        live = {v for v, m in c.items() if m > 0}
        if not live:
            assert (k,) not in maps["keys"].entries
            continue
        _, n, d = maps["keys"].entries[(k,)]
        assert (n, d) == (sum(c.values()), len(live))
        slots = {i: json.loads(v) for (key, i), (v,) in maps["slots"].entries.items() if key == k}
        assert sorted(slots) == list(range(d)) and set(slots.values()) == live
        for v in live:
            assert maps["pairs"].entries[(k, json.dumps(v))][1] == next(
                i for i, sv in slots.items() if sv == v)


changes = st.lists(st.tuples(st.sampled_from("ab"), st.integers(0, 5), st.integers(-2, 2)),
                   max_size=8)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["min", "max"]), st.lists(changes, min_size=1, max_size=6))
def test_random_batches_keep_one_entry_per_pair_and_the_fold_exact(reducer: str,
                                                                   batches: list[Any]) -> None:
    """Batches adding and removing values (an invalid one skipped): after each, the state
    holds exactly the pairs of positive multiplicity (a pair or key at 0 is deleted), each
    key's slots 0..d-1, and the accumulator is the fold of the multiset."""
    fold, handle = processor(reducer)
    current: dict[str, Counter[int]] = {}
    for batch in [[change for change in b if change[2] != 0] for b in batches]:
        removed: Counter[tuple[str, int]] = Counter()
        after = {k: Counter(c) for k, c in current.items()}
        for k, v, w in batch:
            after.setdefault(k, Counter())[v] += w
            removed[k, v] += max(-w, 0)
        if not batch or any(r > current.get(k, Counter())[v] for (k, v), r in removed.items()):
            continue  # removals come first (SKIP-DEF-10): refused (another test), state kept
        _, emitted = run(fold, handle, batch)
        current = after
        check_layout(handle, current)
        for k, row in emitted.items():
            live = [v for v, m in current[k].items() if m > 0]
            assert row["present"] == bool(live)
            if live:
                assert json.loads(row["acc"]) == (min(live) if reducer == "min" else max(live))


def test_an_invalid_delta_is_refused_with_the_multiplicity_available() -> None:
    from spark_impl.reduce.keyed_fold import InvalidDeltaError

    fold, handle = processor()
    run(fold, handle, [("a", 3, 2)])
    with pytest.raises(InvalidDeltaError, match='"available": 2, "removed": 3'):
        run(fold, handle, [("a", 3, -3)])
