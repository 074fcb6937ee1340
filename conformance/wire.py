"""Observations on the wire: JSON values in, comparable Python values out.

Implementations report observations as JSON (lists for arrays, objects with
string keys); the suite compares them after :func:`typed`, which makes arrays tuples
so they can be keys, set elements and multiset values, and keeps true apart from 1.
Maps travel as ``[[key, value], ...]`` lists because JSON object keys must be strings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from conformance.cases_model import FrozenObject, canonical_json, thaw
from reference.algebra.json_values import json_scalar


def typed(value: Any) -> Any:
    """A JSON value as the suite compares it and hands it to in-process engines (the
    ``*-DEC-JSON-VALUES`` items): :func:`conformance.cases_model.freeze` (arrays as tuples,
    objects frozen), with ``true``/``false`` as :class:`JsonBool` (never the number 1 or 0)
    and an integral number as an ``int`` (``1.0`` is the number 1). :func:`thaw` undoes it."""
    if isinstance(value, list | tuple):
        return tuple(typed(v) for v in value)
    if isinstance(value, Mapping):
        return FrozenObject({k: typed(v) for k, v in value.items()})
    return json_scalar(value)


def sort_values(values: Iterable[Any]) -> list[Any]:
    """A deterministic order for JSON values of any types (by their canonical JSON)."""
    return sorted(values, key=canonical_json)


def pairs(mapping: Mapping[Any, Any]) -> list[list[Any]]:
    """A map as a sorted ``[[key, value], ...]`` JSON list."""
    return [[thaw(k), thaw(v)] for k, v in sorted(mapping.items(), key=lambda kv: canonical_json(kv[0]))]


def unpairs(raw: Iterable[Any]) -> dict[Any, Any]:
    """``[[key, value], ...]`` as a dict of frozen keys and values (later pairs win)."""
    return {typed(k): typed(v) for k, v in raw}


def keyed_values(raw: Iterable[Any]) -> dict[Any, list[Any]]:
    """``[[key, [v, ...]], ...]`` as key -> values; a repeated key unites its values."""
    out: dict[Any, list[Any]] = {}
    for k, vs in raw:
        out.setdefault(typed(k), []).extend(typed(v) for v in vs)
    return out


def elements(raw: Iterable[Any]) -> frozenset[Any]:
    return frozenset(typed(x) for x in raw)


def weighted(raw: Iterable[Any]) -> dict[Any, int]:
    """``[[element, weight], ...]`` as element -> summed weight, zeros dropped."""
    out: dict[Any, int] = {}
    for e, w in raw:
        key = typed(e)
        out[key] = out.get(key, 0) + int(w)
    return {e: w for e, w in out.items() if w != 0}


def weighted_list(mapping: Mapping[Any, int]) -> list[list[Any]]:
    return [[thaw(e), w] for e, w in sorted(mapping.items(), key=lambda kv: canonical_json(kv[0])) if w]
