"""Reducers the Spark engine runs, by kind.

* :class:`GroupReducer`: the accumulator is ``initial + Σ w·contribution(v)``,
  component-wise, i.e. ``add``/``remove`` are the action of the group
  ``(ℤⁿ, +)`` or ``(ℝⁿ, +)``. Runs as a native Spark aggregation of the
  delta: no Python, no stored values needed to update (sum, count, sum of
  tuples, and any reducer of that shape).
* :class:`OrderReducer`: min / max. ``remove`` declines when the removed value
  may be the extremum (Skip's built-in Min declines when ``v <= min``); the
  affected keys are recomputed from their values, kept per key in the state.
* :class:`PythonReducer`: a user's ``(initial, add, remove)``; ``remove`` may
  return ``None`` to decline. Runs on the executors in the state store's
  keyed operator (see :mod:`spark_impl.reduce.keyed_fold`).

Float reducers (a sum of ``double``) are not exactly invertible: ``(a + v) - v``
may differ from ``a`` by rounding, so an incrementally maintained float sum
drifts from a recomputation (SKIP-DEF-7 fails on floats; ``incspec
check-reducer`` shows the instance). Integer values are exact.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pyspark.sql import Column
from pyspark.sql import functions as F

from spark_impl.errors import SparkEngineError

Number = int | float


@dataclass(frozen=True)
class GroupReducer:
    """An invertible reducer whose accumulator is a vector of sums.

    ``contribution(v)`` gives, per component, the Spark expression that one
    occurrence of ``v`` adds; the engine multiplies it by the signed weight.
    ``scalar`` accumulators are reported as a number, others as a tuple.
    """

    name: str
    arity: int
    contribution: Callable[[Column], list[Column]]
    scalar: bool = True
    #: Spark SQL type of the value column this reducer reads
    value_type: str = "bigint"
    #: Spark SQL type of each accumulator component (default: the value's element type)
    acc_type: str = ""

    @property
    def initial(self) -> tuple[int, ...]:
        return (0,) * self.arity

    def to_python(self, components: tuple[Number, ...]) -> Any:
        return components[0] if self.scalar else tuple(components)


@dataclass(frozen=True)
class OrderReducer:
    """min or max over comparable values; ``remove`` declines on the extremum."""

    name: str
    smallest: bool
    value_type: str = "bigint"


@dataclass(frozen=True)
class PythonReducer:
    """A custom reducer ``(initial, add, remove)``; ``remove`` returns ``None`` to decline.

    Accumulators and values cross Spark as canonical JSON text, so they must be
    JSON values (arrays as tuples).
    """

    name: str
    initial: Any
    add: Callable[[Any, Any], Any]
    remove: Callable[[Any, Any], Any | None]
    params: dict[str, Any] = field(default_factory=dict, compare=False)


SparkReducer = GroupReducer | OrderReducer | PythonReducer


def sum_reducer(value_type: str = "bigint") -> GroupReducer:
    return GroupReducer("sum", 1, lambda v: [v], value_type=value_type)


def count_reducer(value_type: str = "bigint") -> GroupReducer:
    """Counts occurrences; the values themselves (of any type) are not read."""
    return GroupReducer("count", 1, lambda v: [F.lit(1).cast("bigint")], value_type=value_type,
                        acc_type="bigint")


def sum_tuple_reducer(arity: int, value_type: str = "bigint") -> GroupReducer:
    """Component-wise sum of ``arity``-tuples (a group action of ℤ^arity)."""
    return GroupReducer(
        "sum_tuple", arity, lambda v: [v[i] for i in range(arity)], scalar=False,
        value_type=f"array<{value_type}>",
    )


def mean_state_reducer(value_type: str = "bigint") -> GroupReducer:
    """(sum, count): the accumulator of a mean, invertible."""
    return GroupReducer(
        "sum_count", 2, lambda v: [v, F.lit(1).cast(value_type)], scalar=False,
        value_type=value_type,
    )


def min_reducer(value_type: str = "bigint") -> OrderReducer:
    return OrderReducer("min", True, value_type)


def max_reducer(value_type: str = "bigint") -> OrderReducer:
    return OrderReducer("max", False, value_type)


INTEGRAL = ("tinyint", "smallint", "int", "bigint", "decimal(38,0)")
EXACT_INTEGER = "decimal(38,0)"
BUILTINS: dict[str, Callable[[str], SparkReducer]] = {"sum": sum_reducer, "count": count_reducer, "min": min_reducer, "max": max_reducer}


def builtin_reducer(name: str, value_type: str) -> SparkReducer:
    """A built-in reducer by name, over values of Spark type ``value_type``."""
    if name not in BUILTINS:
        raise SparkEngineError("malformed-input",
                               f"unknown reducer {name!r} (built-ins: {', '.join(BUILTINS)})")
    if name == "sum" and value_type in INTEGRAL:
        # exact: Σ w·v in decimal(38,0); an overflow fails the batch (ANSI), never rounds
        return GroupReducer("sum", 1, lambda v: [v], value_type=value_type, acc_type=EXACT_INTEGER)
    return BUILTINS[name](value_type)
