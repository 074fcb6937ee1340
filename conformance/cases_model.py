"""The conformance case, as the runner passes it to implementations.

A case file (``conformance/cases/<area>/**/<slug>.json``, schema
``conformance/schemas/case.schema.json``) holds one case:

```json
{
  "id": "reduce.sum-worked-example.1f0c9a2e",
  "area": "reduce",
  "description": "...",
  "cites": ["SKIP-DEF-10"],
  "features": [],
  "level": "must",
  "source": "paper",
  "setup": {"reducer": "sum", "params": {}},
  "steps": [{"op": "load", "collection": [["k", [3, 5, 7]]], "expect": {...}}],
  "alternatives": [[{...}, {...}]]
}
```

Each step is an operation plus what it must produce: ``expect`` is an
observation (its fields depend on the area) or ``{"error": CLASS}``, never a
message text. ``cost`` bounds optional work counters (cost conformance).
``alternatives`` lists other acceptable expectation sequences (for instance
"refuse the reducer at declaration"); an alternative shorter than the steps
must end in an error, after which the implementation may stop.

The ID is a readable slug plus a hash of the behavioural content (area, setup,
operations and expectations), so it is stable under edits of the metadata
(description, citations) and changes when the behaviour checked changes.

This module is a stable contract (the public API, :mod:`conformance.api`,
exposes these objects): changes are additive only.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from reference.algebra.json_values import plain_scalar

LEVELS = ("must", "should")
SOURCES = ("paper", "adversarial", "generated", "regression")
#: Fields of a step that are expectations, not part of the operation sent to an implementation.
EXPECTATION_FIELDS = ("expect", "cost")
HASH_LENGTH = 8
#: The widest line of a case file an array or object is kept on (indentation and key counted).
CASE_FILE_WIDTH = 100


def freeze(value: Any) -> Any:
    """A JSON value made hashable: lists become tuples, objects become sorted item tuples
    wrapped in :class:`FrozenObject`."""
    if isinstance(value, list | tuple):
        return tuple(freeze(v) for v in value)
    if isinstance(value, dict | FrozenObject):
        return FrozenObject({k: freeze(v) for k, v in value.items()})
    return value


def thaw(value: Any) -> Any:
    """The inverse of :func:`freeze`: plain JSON data (lists and dicts)."""
    if isinstance(value, tuple):
        return [thaw(v) for v in value]
    if isinstance(value, FrozenObject | dict):
        return {k: thaw(v) for k, v in value.items()}
    return plain_scalar(value)  # a typed value (conformance.wire.typed) back to plain JSON


class FrozenObject(Mapping[str, Any]):
    """An immutable, hashable JSON object."""

    __slots__ = ("_items",)
    _items: dict[str, Any]

    def __init__(self, items: Mapping[str, Any]) -> None:
        object.__setattr__(self, "_items", dict(sorted(items.items())))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("FrozenObject is immutable")

    def __getitem__(self, key: str) -> Any:
        return self._items[key]

    def __iter__(self) -> Any:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(tuple(self._items.items()))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and dict(self._items) == dict(other.items())

    def __repr__(self) -> str:
        return f"FrozenObject({self._items!r})"


def canonical_json(value: Any) -> str:
    """One spelling of a JSON value: sorted keys, no spaces, UTF-8 kept."""
    return json.dumps(thaw(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def case_file_text(value: Any) -> str:
    """The text of a case file holding the JSON value ``value``; every case file is written by it.

    An array or object that fits on its line within :data:`CASE_FILE_WIDTH` characters
    (indentation, key and trailing comma counted) stays on that line; a longer one has one
    element per line, indented by 2 more. Keys keep their order, non-ASCII characters
    are kept, and the text ends in a newline. ``json.loads`` gives ``value`` back: the
    layout is not part of the content, so it changes no ID.
    """
    return "\n".join(_laid_out(value, "", "", "")) + "\n"


def _laid_out(value: Any, indent: str, head: str, tail: str) -> list[str]:
    """The lines of ``value`` at ``indent``, after ``head`` (a key) and before ``tail`` (a comma)."""
    flat = json.dumps(value, ensure_ascii=False)
    fits = len(indent) + len(head) + len(flat) + len(tail) <= CASE_FILE_WIDTH
    if fits or not value or not isinstance(value, dict | list | tuple):
        return [indent + head + flat + tail]
    inner = indent + "  "
    items = list(value.items()) if isinstance(value, dict) else [(None, v) for v in value]
    opening, closing = ("{", "}") if isinstance(value, dict) else ("[", "]")
    lines = [indent + head + opening]
    for i, (key, item) in enumerate(items):
        key_text = "" if key is None else json.dumps(key, ensure_ascii=False) + ": "
        lines += _laid_out(item, inner, key_text, "," if i < len(items) - 1 else "")
    return [*lines, indent + closing + tail]


def content_hash(area: str, setup: Any, steps: Any, alternatives: Any = ()) -> str:
    """The hash part of a case ID: the first hex digits of SHA-256 of the behavioural content."""
    body = canonical_json({"area": area, "setup": setup, "steps": steps,
                           "alternatives": alternatives or []})
    return hashlib.sha256(body.encode("utf-8")).hexdigest()[:HASH_LENGTH]


def make_id(area: str, slug: str, setup: Any, steps: Any, alternatives: Any = ()) -> str:
    return f"{area}.{slug}.{content_hash(area, setup, steps, alternatives)}"


@dataclass(frozen=True)
class Step:
    """One operation (``op`` and its arguments) and its expected outcome."""

    op: str
    args: FrozenObject
    expect: FrozenObject
    cost: FrozenObject = field(default_factory=lambda: FrozenObject({}))

    @property
    def expects_error(self) -> str | None:
        error = self.expect.get("error")
        return error if isinstance(error, str) else None

    def to_json(self, with_expectations: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {"op": self.op, **thaw(self.args)}
        if with_expectations:
            out["expect"] = thaw(self.expect)
            if self.cost:
                out["cost"] = thaw(self.cost)
        return out

    @staticmethod
    def from_json(raw: Mapping[str, Any]) -> Step:
        args = {k: v for k, v in raw.items() if k not in ("op", *EXPECTATION_FIELDS)}
        return Step(
            op=raw["op"],
            args=freeze(args),
            expect=freeze(raw.get("expect", {})),
            cost=freeze(raw.get("cost", {})),
        )


@dataclass(frozen=True)
class Case:
    """A conformance case (mirrors the case JSON; see the module docstring)."""

    id: str
    area: str
    description: str
    cites: tuple[str, ...]
    features: tuple[str, ...]
    level: str
    source: str
    setup: FrozenObject
    steps: tuple[Step, ...]
    alternatives: tuple[tuple[FrozenObject, ...], ...] = ()
    info: str = ""

    @property
    def slug(self) -> str:
        return self.id.split(".")[1] if self.id.count(".") >= 2 else self.id

    def expected_hash(self) -> str:
        return content_hash(self.area, self.setup,
                            [s.to_json() for s in self.steps], self.alternatives)

    def has_cost_checks(self) -> bool:
        return any(step.cost for step in self.steps)

    def expectation_sequences(self) -> tuple[tuple[FrozenObject, ...], ...]:
        """The main expectation sequence, then the alternatives."""
        return (tuple(s.expect for s in self.steps), *self.alternatives)

    def to_json(self, with_expectations: bool = True) -> dict[str, Any]:
        """The case as JSON; without expectations it is what an implementation receives."""
        out: dict[str, Any] = {
            "id": self.id,
            "area": self.area,
            "description": self.description,
            "cites": list(self.cites),
            "features": list(self.features),
            "level": self.level,
            "source": self.source,
        }
        if self.info:
            out["info"] = self.info
        out["setup"] = thaw(self.setup)
        out["steps"] = [s.to_json(with_expectations) for s in self.steps]
        if with_expectations and self.alternatives:
            out["alternatives"] = thaw(self.alternatives)
        return out

    @staticmethod
    def from_json(raw: Mapping[str, Any]) -> Case:
        return Case(
            id=raw["id"],
            area=raw["area"],
            description=raw.get("description", ""),
            cites=tuple(raw.get("cites", ())),
            features=tuple(raw.get("features", ())),
            level=raw.get("level", "must"),
            source=raw.get("source", "generated"),
            setup=freeze(raw.get("setup", {})),
            steps=tuple(Step.from_json(s) for s in raw.get("steps", ())),
            alternatives=tuple(tuple(freeze(e) for e in alt) for alt in raw.get("alternatives", ())),
            info=raw.get("info", ""),
        )


def new_case(
    area: str,
    slug: str,
    description: str,
    setup: Mapping[str, Any],
    steps: Sequence[Mapping[str, Any]],
    *,
    cites: Sequence[str] = (),
    features: Sequence[str] = (),
    level: str = "must",
    source: str = "generated",
    alternatives: Sequence[Sequence[Mapping[str, Any]]] = (),
    info: str = "",
) -> Case:
    """Build a case from JSON-like parts, stamping its ID (slug + content hash)."""
    raw: dict[str, Any] = {
        "id": "", "area": area, "description": description, "cites": list(cites),
        "features": list(features), "level": level, "source": source,
        "setup": thaw(setup), "steps": [thaw(s) for s in steps],
        "alternatives": [[thaw(e) for e in alt] for alt in alternatives], "info": info,
    }
    case = Case.from_json(raw)
    return Case(**{**case.__dict__, "id": f"{area}.{slug}.{case.expected_hash()}"})
