"""The named functions of the Z-set dataflow language, re-implemented for Spark.

The suite's vocabulary (map functions, filter predicates, aggregates of
``reduce``); elements are JSON values (arrays as tuples). A function applied to
an element of the wrong shape raises :class:`ElementError` (error class
``malformed-input``), whose text the engine recognises when it surfaces from a
Spark task.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

MARKER = "incspec-malformed-input"


class ElementError(ValueError):
    def __init__(self, message: str) -> None:
        super().__init__(f"{MARKER}: {message}")


def _int(x: Any, fn: str) -> int:
    if type(x) is not int:
        raise ElementError(f"{fn} expects an int, got {x!r}")
    return x


def _pair(x: Any, fn: str) -> tuple[Any, Any]:
    if not (isinstance(x, tuple) and len(x) == 2):
        raise ElementError(f"{fn} expects a pair, got {x!r}")
    return (x[0], x[1])


MAP_FUNCTIONS: Mapping[str, Callable[[Any], Any]] = {
    "inc": lambda x: _int(x, "inc") + 1,
    "double": lambda x: 2 * _int(x, "double"),
    "neg": lambda x: -_int(x, "neg"),
    "mod3": lambda x: _int(x, "mod3") % 3,
    "key_mod3": lambda x: (_int(x, "key_mod3") % 3, x),
    "dup": lambda x: (x, x),
    "swap": lambda x: (_pair(x, "swap")[1], _pair(x, "swap")[0]),
    "fst": lambda x: _pair(x, "fst")[0],
    "snd": lambda x: _pair(x, "snd")[1],
}

FILTER_PREDICATES: Mapping[str, Callable[[Any], bool]] = {
    "even": lambda x: _int(x, "even") % 2 == 0,
    "odd": lambda x: _int(x, "odd") % 2 == 1,
    "positive": lambda x: _int(x, "positive") > 0,
    "nonnegative": lambda x: _int(x, "nonnegative") >= 0,
    "small": lambda x: 0 <= _int(x, "small") < 10,
    "fst_even": lambda x: _int(_pair(x, "fst_even")[0], "fst_even") % 2 == 0,
    "fst_lt_snd": lambda x: _int(_pair(x, "fst_lt_snd")[0], "fst_lt_snd")
    < _int(_pair(x, "fst_lt_snd")[1], "fst_lt_snd"),
}


def _count(group: list[tuple[Any, int]]) -> int:
    return sum(w for _, w in group)


def _sum(group: list[tuple[Any, int]]) -> int:
    return sum(w * _int(v, "sum") for v, w in group)


def _min(group: list[tuple[Any, int]]) -> int:
    return min(_int(v, "min") for v, _ in group)


def _max(group: list[tuple[Any, int]]) -> int:
    return max(_int(v, "max") for v, _ in group)


#: From one key's non-zero Z-set of values (value, weight != 0) to a value.
AGGREGATES: Mapping[str, Callable[[list[tuple[Any, int]]], int]] = {
    "count": _count, "sum": _sum, "min": _min, "max": _max,
}


def key_of(x: Any, op: str) -> Any:
    """The key of a pair element (``join``, ``reduce``)."""
    return _pair(x, op)[0]
