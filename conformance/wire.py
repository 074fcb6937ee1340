"""Observations on the wire: JSON values in, comparable Python values out.

Implementations report observations as JSON (lists for arrays, objects with
string keys); the suite compares them after :func:`conformance.cases_model.freeze`,
which makes arrays tuples so they can be keys, set elements and multiset values.
Maps travel as ``[[key, value], ...]`` lists because JSON object keys must be strings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from conformance.cases_model import canonical_json, freeze, thaw


def sort_values(values: Iterable[Any]) -> list[Any]:
    """A deterministic order for JSON values of any types (by their canonical JSON)."""
    return sorted(values, key=canonical_json)


def pairs(mapping: Mapping[Any, Any]) -> list[list[Any]]:
    """A map as a sorted ``[[key, value], ...]`` JSON list."""
    return [[thaw(k), thaw(v)] for k, v in sorted(mapping.items(), key=lambda kv: canonical_json(kv[0]))]


def unpairs(raw: Iterable[Any]) -> dict[Any, Any]:
    """``[[key, value], ...]`` as a dict of frozen keys and values (later pairs win)."""
    return {freeze(k): freeze(v) for k, v in raw}


def keyed_values(raw: Iterable[Any]) -> dict[Any, list[Any]]:
    """``[[key, [v, ...]], ...]`` as key -> values; a repeated key unites its values."""
    out: dict[Any, list[Any]] = {}
    for k, vs in raw:
        out.setdefault(freeze(k), []).extend(freeze(v) for v in vs)
    return out


def elements(raw: Iterable[Any]) -> frozenset[Any]:
    return frozenset(freeze(x) for x in raw)


def weighted(raw: Iterable[Any]) -> dict[Any, int]:
    """``[[element, weight], ...]`` as element -> summed weight, zeros dropped."""
    out: dict[Any, int] = {}
    for e, w in raw:
        key = freeze(e)
        out[key] = out.get(key, 0) + int(w)
    return {e: w for e, w in out.items() if w != 0}


def weighted_list(mapping: Mapping[Any, int]) -> list[list[Any]]:
    return [[thaw(e), w] for e, w in sorted(mapping.items(), key=lambda kv: canonical_json(kv[0])) if w]
