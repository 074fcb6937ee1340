"""The stream kernels without Spark: each named processor's per-batch step over
an in-memory store, against the reference on generated cuts, with the work of
a batch and the state it leaves counted."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.streams.named import run_named
from spark_impl.errors import SparkEngineError
from spark_impl.stream.assemble import assemble
from spark_impl.stream.kernel_state import MemoryStore
from spark_impl.stream.kernels import Kernel, kernel
from spark_impl.values import decode, encode
from tests.spark.stream_inputs import INPUTS


class CountingStore(MemoryStore):
    """A memory store that counts the state rows read or written (the work)."""

    def __init__(self) -> None:
        super().__init__()
        self.touched = 0

    def get(self, slot: Any) -> Any:
        self.touched += 1
        return super().get(slot)

    def put(self, slot: Any, value: Any) -> None:
        self.touched += 1
        super().put(slot, value)

    def map_get(self, slot: Any, key: str) -> Any:
        self.touched += 1
        return super().map_get(slot, key)

    def map_put(self, slot: Any, key: str, value: Any) -> None:
        self.touched += 1
        super().map_put(slot, key, value)

    def map_remove(self, slot: Any, key: str) -> None:
        self.touched += 1
        super().map_remove(slot, key)

    def list_all(self, slot: Any) -> list[Any]:
        out = super().list_all(slot)
        self.touched += 1 + len(out)
        return out

    def list_extend(self, slot: Any, values: Iterable[Any]) -> None:
        values = list(values)
        self.touched += len(values)
        super().list_extend(slot, values)

    def list_replace(self, slot: Any, values: Iterable[Any]) -> None:
        values = list(values)
        self.touched += 1 + len(values)
        super().list_replace(slot, values)


def run_kernel(k: Kernel, batches: list[list[Any]], stores: dict[str, CountingStore] | None = None) -> Any:
    """The kernel over ``batches`` as the operator runs it: items grouped by key, one step per group and batch."""
    stores = {} if stores is None else stores
    rows: list[tuple[int, int, str | None]] = []
    pos = 0
    for batch in batches:
        groups: dict[str, list[tuple[int, Any]]] = {}
        for item in batch:
            element = k.parse(decode(encode(item)))
            groups.setdefault(k.key(element), []).append((pos, element))
            pos += 1
        for key, items in groups.items():
            rows += k.step(stores.setdefault(key, CountingStore()), items)
    return assemble(k.shape, rows)


@st.composite
def cut_input(draw: st.DrawFn) -> tuple[str, dict[str, Any], list[list[Any]]]:
    name = draw(st.sampled_from(sorted(INPUTS)))
    params, items = INPUTS[name]
    marks = sorted(draw(st.lists(st.integers(0, len(items)), max_size=len(items) + 2)))
    bounds = [0, *marks, len(items)]
    return name, params, [items[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


@given(cut_input())
def test_kernels_match_the_reference_on_every_cut(case: tuple[str, dict[str, Any], list[list[Any]]]) -> None:
    name, params, batches = case
    assert run_kernel(kernel(name, params), batches) == run_named(name, params, batches)


def test_every_named_processor_has_a_kernel() -> None:
    from reference.streams.named import names
    from spark_impl.stream import PROCESSORS

    assert PROCESSORS == names() == tuple(sorted(INPUTS))


def packets(n: int, window: int) -> list[Any]:
    """Packets 0..n-1, each block of ``window`` sent in reverse order (a reordering net)."""
    out: list[Any] = []
    for start in range(0, n, window):
        out += [[i, f"d{i}"] for i in reversed(range(start, min(n, start + window)))]
    return out


@pytest.mark.parametrize("window", [1, 4, 16])
def test_tcp_receiver_state_is_bounded_by_the_reordering_and_work_by_the_batch(window: int) -> None:
    """The receiver's state is the next number and the packets ahead of it: at most
    ``window - 1`` are held, however long the stream; a batch's state work is
    in proportion to its items and its output (a packet is stored, fetched and
    removed at most once)."""
    items = packets(400, window)
    batches = [items[i:i + 10] for i in range(0, len(items), 10)]
    store = CountingStore()
    k = kernel("tcp_receiver", {})
    rows: list[tuple[int, int, str | None]] = []
    pos = 0
    for batch in batches:
        before = store.touched
        out = k.step(store, [(pos + j, k.parse(x)) for j, x in enumerate(batch)])
        rows += out
        pos += len(batch)
        assert store.size() <= 1 + (window - 1)
        assert store.touched - before <= 2 + 3 * len(batch) + 3 * len(out)
    assert assemble("tcp", rows) == run_named("tcp_receiver", {}, batches)


def test_set_difference_state_holds_two_strata_only() -> None:
    """Strata of 5 positives and 5 negatives each: the state never holds more than
    the current and the previous stratum's entries (plus their log)."""
    stratum = [["+", 1], ["-", 1], ["+", 2], ["-", 3], ["+", 4], ["-", 4], ["+", 5], ["-", 6], ["+", 7], ["-", 7]]
    items: list[Any] = []
    for s in range(50):
        items += [[sign, x + 10 * (s % 3)] for sign, x in stratum] + ["tick"]
    batches = [items[i:i + 7] for i in range(0, len(items), 7)]
    store = CountingStore()
    k = kernel("set_difference_ticks", {})
    pos = 0
    for batch in batches:
        k.step(store, [(pos + j, k.parse(x)) for j, x in enumerate(batch)])
        pos += len(batch)
        assert store.size() <= 1 + 2 * 2 * 10  # stratum number, entries of two strata and their log
    assert store.touched <= 10 * len(items)
    assert run_kernel(k, batches) == run_named("set_difference_ticks", {}, batches)


def test_malformed_items_and_parameters_are_refused() -> None:
    for name, params, item in (("prefix_sum", {}, "x"), ("full_adder", {}, [1, 2]), ("join", {}, ["L", [1]]),
                               ("set_difference_ticks", {}, ["*", 1]), ("tcp_receiver", {}, ["a", 1]),
                               ("transitive_closure_loop", {}, [[1, 2, 3]])):
        with pytest.raises(SparkEngineError) as refused:
            kernel(name, params).parse(item)
        assert refused.value.error_class == "malformed-input"
    for name, params in (("map_inc", {"k": "1"}), ("split_merge", {"partitions": 0}), ("full_adder", {"carry": 2}),
                         ("unknown", {})):
        with pytest.raises(SparkEngineError):
            kernel(name, params)
