"""The suite's named reducers, re-implemented for Spark.

The names and their meaning are the suite's vocabulary (``conformance.reducers``):

=================  ========================================================
``sum``            native group reducer over integers
``count``          native group reducer (any JSON value)
``min``, ``max``   native; ``remove`` declines on the extremum, the keys
                   affected are recomputed from their stored values
``saturating-sum`` Python reducer (ill-formed: Spark runs it as given)
``sloppy-max``     Python reducer (ill-formed: ``remove`` is a no-op)
=================  ========================================================

An ill-formed reducer is run as declared, by Skip's incremental update
(SKIP-DEF-10): the engine trusts its reducers, as Skip does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conformance.protocols import EngineError
from spark_impl.reducers import (
    PythonReducer,
    SparkReducer,
    count_reducer,
    max_reducer,
    min_reducer,
    sum_reducer,
)

#: Integers cross Spark as decimal(38, 0): exact, and no overflow at 64 bits.
INTEGER = "decimal(38,0)"


def _saturating_sum(cap: int) -> PythonReducer:
    return PythonReducer("saturating-sum", 0, lambda a, v: min(cap, a + v), lambda a, v: a - v,
                         {"cap": cap})


def _sloppy_max_add(a: Any, v: Any) -> Any:
    return v if a is None or v > a else a


def _sloppy_max() -> PythonReducer:
    return PythonReducer("sloppy-max", None, _sloppy_max_add, lambda a, v: a)


def named_reducer(name: str, params: Mapping[str, Any]) -> SparkReducer:
    """The Spark reducer for a suite name; ``EngineError('malformed-input')`` if unknown."""
    try:
        if name == "sum":
            return sum_reducer(INTEGER)
        if name == "count":
            return count_reducer("string")
        if name == "min":
            return min_reducer(INTEGER)
        if name == "max":
            return max_reducer(INTEGER)
        if name == "saturating-sum":
            return _saturating_sum(int(params["cap"]))
        if name == "sloppy-max":
            return _sloppy_max()
    except (KeyError, TypeError, ValueError) as exc:
        raise EngineError("malformed-input", f"reducer {name!r}: bad parameters {params!r}") from exc
    raise EngineError("malformed-input", f"unknown reducer {name!r}")


def numeric_values(reducer: SparkReducer) -> bool:
    """Whether the reducer reads its values as integers (else as JSON text)."""
    return not isinstance(reducer, PythonReducer) and reducer.name != "count"
