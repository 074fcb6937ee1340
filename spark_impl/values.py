"""JSON values on Spark: one canonical string per value.

The protocols carry JSON values (arrays as tuples). Where Spark only needs to
compare or group values (keys, elements of a set, values of a multiset) they
travel as their canonical JSON text: equal values have equal text, so Spark's
string equality and hashing are the value's. Numeric reducers get their own
typed columns (see :mod:`spark_impl.reduce.reducer_kinds`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any


class FrozenDict(dict[str, Any]):
    """A JSON object that can be a key or a set element (hashable, by content)."""

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(encode(self))


def _plain(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():  # 1.0 is the number 1
        return int(value)
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def encode(value: Any) -> str:
    """The canonical JSON text of ``value`` (tuples as arrays, sorted object keys)."""
    kind = type(value)  # an integer or a tuple of them (not bool): its digits, ~5 times faster
    if kind is int:
        return str(value)
    if kind is tuple and all(type(v) is int for v in value):
        return "[" + ",".join(map(str, value)) + "]"
    return json.dumps(_plain(value), sort_keys=True, separators=(",", ":"), allow_nan=False)


def _freeze(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return FrozenDict({k: _freeze(v) for k, v in value.items()})
    return value


#: a JSON integer literal: its value is ``int`` of its text (the fast path of :func:`decode`)
_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]*)")
#: a JSON array of integer literals, no space (canonical): a tuple of them (another fast path)
_INTEGERS = re.compile(r"\[-?(?:0|[1-9][0-9]*)(?:,-?(?:0|[1-9][0-9]*))*\]")


def decode(text: str) -> Any:
    """The value of a canonical JSON text, with arrays as tuples (hashable)."""
    if _INTEGER.fullmatch(text):  # most values; ~10 times faster than the JSON parser
        return int(text)
    if _INTEGERS.fullmatch(text):  # a sum-and-count accumulator and the like
        return tuple(int(part) for part in text[1:-1].split(","))
    return _freeze(json.loads(text))
