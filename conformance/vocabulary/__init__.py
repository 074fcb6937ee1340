"""The suite's language-neutral vocabularies, one JSON file each beside this module.

=================  ============================================================
file               what it lists
=================  ============================================================
``features.json``  the features a handshake may declare and a case may need
``reducers.json``  the named reducers of the ``reduce`` area: params, value and
                   accumulator types, ι, ⊕, ⊖, well-formedness
``zset.json``      the program nodes and the map functions, filter predicates and
                   aggregates a ``zset`` program names, with what they apply to
``stream.json``    the named processors of the ``stream`` area: params, input and
                   output conventions, the spec IDs they realise
=================  ============================================================

An implementation in any language reads these files; the suite's code reads
them too (the loader refuses an unknown feature, handshakes are built from the
features list, the named reducers come from ``reducers.json``), and the tests
check that the reference oracle implements exactly what they list.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any


@cache
def load(name: str) -> dict[str, Any]:
    """The vocabulary file ``<name>.json``, parsed."""
    text = resources.files("conformance").joinpath("vocabulary", f"{name}.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def features() -> tuple[str, ...]:
    """Every feature name, in the file's order."""
    return tuple(f["name"] for f in load("features")["features"])


def reducers() -> dict[str, dict[str, Any]]:
    """The named reducers by name."""
    return {r["name"]: r for r in load("reducers")["reducers"]}


def zset_functions(kind: str) -> tuple[str, ...]:
    """The names of one kind of zset function: ``map``, ``filter`` or ``aggregate``."""
    return tuple(f["name"] for f in load("zset")[kind])


def stream_processors() -> dict[str, dict[str, Any]]:
    """The named stream processors by name."""
    return {p["name"]: p for p in load("stream")["processors"]}
