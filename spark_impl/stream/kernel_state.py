"""The state a kernel keeps for one group, as JSON values in named slots.

A kernel (:mod:`spark_impl.stream.kernels`) sees its group's state through
:class:`Store`: two value slots (``a``, ``b``), two maps (``m``, ``n``: JSON text
key to JSON value) and two lists (``l``, ``r``). In a streaming query the slots
are the state variables of ``transformWithStateInPandas`` (value, map and list
state in the state store, :class:`HandleStore`); :class:`MemoryStore` is the same
contract over dicts, which the operator's own tests use to run a kernel without
Spark. Every value crosses as canonical JSON text (``spark_impl.values``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal, Protocol

from spark_impl.values import decode, encode

Value = Any
ValueSlot = Literal["a", "b"]
MapSlot = Literal["m", "n"]
ListSlot = Literal["l", "r"]


class Store(Protocol):
    """One group's state (STREAM-DEF-3.16: the processor's ``S``, split in slots)."""

    def get(self, slot: ValueSlot) -> Value | None: ...

    def put(self, slot: ValueSlot, value: Value) -> None: ...

    def map_get(self, slot: MapSlot, key: str) -> Value | None: ...

    def map_put(self, slot: MapSlot, key: str, value: Value) -> None: ...

    def map_remove(self, slot: MapSlot, key: str) -> None: ...

    def list_all(self, slot: ListSlot) -> list[Value]: ...

    def list_extend(self, slot: ListSlot, values: Iterable[Value]) -> None: ...

    def list_replace(self, slot: ListSlot, values: Iterable[Value]) -> None: ...


class MemoryStore:
    """:class:`Store` over dicts (one group; for running kernels without Spark)."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}
        self.maps: dict[str, dict[str, str]] = {"m": {}, "n": {}}
        self.lists: dict[str, list[str]] = {"l": [], "r": []}

    def get(self, slot: ValueSlot) -> Value | None:
        text = self.values.get(slot)
        return None if text is None else decode(text)

    def put(self, slot: ValueSlot, value: Value) -> None:
        self.values[slot] = encode(value)

    def map_get(self, slot: MapSlot, key: str) -> Value | None:
        text = self.maps[slot].get(key)
        return None if text is None else decode(text)

    def map_put(self, slot: MapSlot, key: str, value: Value) -> None:
        self.maps[slot][key] = encode(value)

    def map_remove(self, slot: MapSlot, key: str) -> None:
        self.maps[slot].pop(key, None)

    def list_all(self, slot: ListSlot) -> list[Value]:
        return [decode(t) for t in self.lists[slot]]

    def list_extend(self, slot: ListSlot, values: Iterable[Value]) -> None:
        self.lists[slot].extend(encode(v) for v in values)

    def list_replace(self, slot: ListSlot, values: Iterable[Value]) -> None:
        self.lists[slot] = [encode(v) for v in values]

    def size(self) -> int:
        """State rows held (values, map entries, list entries)."""
        return len(self.values) + sum(map(len, self.maps.values())) + sum(map(len, self.lists.values()))


class HandleStore:
    """:class:`Store` over the state variables of a ``transformWithStateInPandas``
    processor (state store rows; RocksDB provider). Declared once per operator
    instance; the handle scopes every call to the group being processed."""

    def __init__(self, handle: Any) -> None:
        text = "t string"
        self.values = {s: handle.getValueState(f"v{s}", text) for s in ("a", "b")}
        self.maps = {s: handle.getMapState(f"m{s}", "k string", text) for s in ("m", "n")}
        self.lists = {s: handle.getListState(f"l{s}", text) for s in ("l", "r")}

    def get(self, slot: ValueSlot) -> Value | None:
        state = self.values[slot]
        return decode(state.get()[0]) if state.exists() else None

    def put(self, slot: ValueSlot, value: Value) -> None:
        self.values[slot].update((encode(value),))

    def map_get(self, slot: MapSlot, key: str) -> Value | None:
        row = self.maps[slot].getValue((key,))
        return None if row is None else decode(row[0])

    def map_put(self, slot: MapSlot, key: str, value: Value) -> None:
        self.maps[slot].updateValue((key,), (encode(value),))

    def map_remove(self, slot: MapSlot, key: str) -> None:
        self.maps[slot].removeKey((key,))

    def list_all(self, slot: ListSlot) -> list[Value]:
        state = self.lists[slot]
        return [decode(row[0]) for row in state.get()] if state.exists() else []

    def list_extend(self, slot: ListSlot, values: Iterable[Value]) -> None:
        rows = [(encode(v),) for v in values]
        if rows:
            self.lists[slot].appendList(rows)

    def list_replace(self, slot: ListSlot, values: Iterable[Value]) -> None:
        rows = [(encode(v),) for v in values]
        if rows:
            self.lists[slot].put(rows)
        else:
            self.lists[slot].clear()
