"""Engines speaking :mod:`conformance.protocols`: JSON values in and out, Spark inside.

This package is the Spark implementation's only contact with the suite: its
adapters take the protocols' values, call the engines of ``spark_impl``, and
translate the engines' own refusal (:class:`spark_impl.errors.SparkEngineError`)
into the suite's :class:`conformance.protocols.EngineError` (:func:`speaks_suite_errors`).
The engines themselves never import the suite.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from conformance.protocols import EngineError, JsonBool
from spark_impl import values
from spark_impl.errors import SparkEngineError

T = TypeVar("T", bound=type)


def suite_error(refusal: SparkEngineError) -> EngineError:
    """The suite's error for an engine's refusal: the same class, the same message."""
    return EngineError(refusal.error_class, refusal.message)


def _translating(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return method(*args, **kwargs)
        except SparkEngineError as refusal:
            raise suite_error(refusal) from refusal

    return call


def speaks_suite_errors(cls: T) -> T:
    """Class decorator: every public method raises :class:`EngineError` where the
    engine raised :class:`SparkEngineError`."""
    for name, member in list(vars(cls).items()):
        if callable(member) and not name.startswith("_"):
            setattr(cls, name, _translating(member))
    return cls


def view_changes(before: Mapping[Any, Any], after: Mapping[Any, Any]) -> dict[Any, Any]:
    """The changes a view emits between two observations (SKIP-DEC-VIEW): key -> new
    accumulator where it changed or appeared, key -> ``None`` where it left the view."""
    changes: dict[Any, Any] = {k: v for k, v in after.items() if k not in before or before[k] != v}
    changes.update({k: None for k in before if k not in after})
    return changes


def _typed(value: Any) -> Any:
    if isinstance(value, bool):
        return JsonBool(value)
    if isinstance(value, tuple):
        return tuple(_typed(v) for v in value)
    if isinstance(value, values.FrozenDict):
        return values.FrozenDict({k: _typed(v) for k, v in value.items()})
    return value


def untyped(value: Any) -> Any:
    """A suite value as the engines take it: :class:`~conformance.protocols.JsonBool` as the
    JSON boolean it stands for (the engines encode values as canonical JSON text, where
    ``true`` and ``1`` differ)."""
    if isinstance(value, JsonBool):
        return value.value
    if isinstance(value, tuple | list):
        return tuple(untyped(v) for v in value)
    if isinstance(value, Mapping):
        return {k: untyped(v) for k, v in value.items()}
    return value


def encode(value: Any) -> str:
    """The canonical JSON text of a suite value (:func:`spark_impl.values.encode`)."""
    return values.encode(untyped(value))


def decode(text: str) -> Any:
    """A canonical JSON text as the suite's value (arrays as tuples, ``true``/``false`` as
    :class:`~conformance.protocols.JsonBool`: never the numbers 1 and 0, *-DEC-JSON-VALUES)."""
    return _typed(values.decode(text))
