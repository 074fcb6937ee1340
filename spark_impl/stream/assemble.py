"""A run's output rows ``(part, ord, value)`` as the processor's output in the
suite's JSON form (``reference/streams/named.py`` conventions: arrays as
tuples, bags and sets sorted canonically)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from spark_impl.stream.kernels import Shape
from spark_impl.values import decode

Value = Any
Row = tuple[int, int, str | None]


def canonical_order(items: Iterable[Value]) -> list[Value]:
    """Natural order when the items compare, else by ``repr`` (the suite's order)."""
    items = list(items)
    try:
        return sorted(items)
    except TypeError:
        return sorted(items, key=repr)


def _ordered(rows: Iterable[Row], part: int) -> tuple[Value, ...]:
    return tuple(decode(v) for p, _, v in sorted(r for r in rows if r[0] == part) if v is not None)


def _groups(rows: Iterable[Row]) -> tuple[int, dict[int, list[Value]]]:
    """The number of markers and each part's values."""
    marks, parts = 0, dict[int, list[Value]]()
    for part, _, value in rows:
        if value is None:
            marks += 1
        else:
            parts.setdefault(part, []).append(decode(value))
    return marks, parts


def assemble(shape: Shape, rows: list[Row]) -> Value:
    if shape == "sequence":
        return _ordered(rows, 0)
    if shape == "bag":
        return tuple(canonical_order(decode(v) for _, _, v in rows if v is not None))
    if shape == "tcp":
        return (_ordered(rows, 0), _ordered(rows, 1))
    marks, parts = _groups(rows)
    if shape == "strata":  # stratum 0, then one per tick
        return tuple(tuple(canonical_order(parts.get(i, []))) for i in range(marks + 1))
    # rounds: the initial output (no path) first, then one per round
    return ((),) + tuple(tuple(canonical_order(parts.get(r, []))) for r in range(1, marks + 1))
