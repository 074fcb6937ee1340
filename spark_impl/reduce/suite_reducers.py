"""The suite's named reducers, re-implemented for Spark.

The names and their meaning are the suite's vocabulary (``conformance.reducers``):

=======================  ==================================================
``sum``, ``count``       native group reducers (sums of contributions)
``min``, ``max``         native; ``remove`` declines on the extremum, the keys
                         affected are recomputed from their stored values
``xor``                  Python reducer (a ^ v both ways: a group, but not a sum)
``sum_monus_int``        Python reducer: a + v, max(a - v, 0)
``sum_bad_remove``       Python reducer (ill-formed: a - 2v)
``min_never_declines``   Python reducer (ill-formed: remove keeps a)
``min_declines_below``   Python reducer (ill-formed: declines only if v < a)
``saturating_sum``       Python reducer (ill-formed: min(cap, a + v), a - v)
=======================  ==================================================

Python reducers run as declared, by Skip's incremental update (SKIP-DEF-10,
removals first, a declining remove recomputing the key): the engine trusts
its reducers, as Skip does. Their accumulator ``None`` stands for ±∞ (never
observed: the view holds only keys with values).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from spark_impl.errors import SparkEngineError
from spark_impl.reduce.reducer_kinds import (
    PythonReducer,
    SparkReducer,
    count_reducer,
    max_reducer,
    min_reducer,
    sum_reducer,
)

#: Integers cross Spark as decimal(38, 0): exact, and no overflow at 64 bits.
INTEGER = "decimal(38,0)"


def _min_add(a: Any, v: Any) -> Any:
    return v if a is None or v < a else a


def _python(name: str, params: Mapping[str, Any]) -> PythonReducer | None:
    if name == "xor":
        return PythonReducer(name, 0, lambda a, v: a ^ v, lambda a, v: a ^ v)
    if name == "sum_monus_int":
        return PythonReducer(name, 0, lambda a, v: a + v, lambda a, v: max(a - v, 0))
    if name == "sum_bad_remove":
        return PythonReducer(name, 0, lambda a, v: a + v, lambda a, v: a - 2 * v)
    if name == "min_never_declines":
        return PythonReducer(name, None, _min_add, lambda a, v: a)
    if name == "min_declines_below":
        return PythonReducer(name, None, _min_add, lambda a, v: None if a is None or v < a else a)
    if name == "saturating_sum":
        cap = int(params["cap"])
        return PythonReducer(name, 0, lambda a, v: min(cap, a + v), lambda a, v: a - v, {"cap": cap})
    return None


def named_reducer(name: str, params: Mapping[str, Any]) -> SparkReducer:
    """The Spark reducer for a suite name; ``SparkEngineError('malformed-input')`` if unknown."""
    try:
        if name == "sum":
            return sum_reducer(INTEGER)
        if name == "count":
            return count_reducer("string")
        if name == "min":
            return min_reducer(INTEGER)
        if name == "max":
            return max_reducer(INTEGER)
        custom = _python(name, params)
    except (KeyError, TypeError, ValueError) as exc:
        raise SparkEngineError("malformed-input", f"reducer {name!r}: bad parameters {params!r}") from exc
    if custom is None:
        raise SparkEngineError("malformed-input", f"unknown reducer {name!r}")
    return custom


def numeric_values(reducer: SparkReducer) -> bool:
    """Whether the reducer reads its values as integers (else as JSON text)."""
    return not isinstance(reducer, PythonReducer) and reducer.name != "count"
