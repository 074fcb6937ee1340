"""JSON values compared by type and value (the value model: SKIP-DEC-JSON-VALUES,
FIX-DEC-JSON-VALUES, DD-DEC-JSON-VALUES, STREAM-DEC-JSON-VALUES).

JSON has one number type: ``1`` and ``1.0`` are the same value (type number, value
one), as in JavaScript, where the two cannot be told apart once parsed. ``true`` is
of type boolean and is never the number 1. Python's ``True == 1`` (with equal
hashes) would merge them as dict keys, set elements and multiset values, so values
coming from JSON are held as: ``true``/``false`` as :class:`JsonBool`, integral
numbers as ``int`` (``1.0`` becomes ``1``), other numbers as ``float``, strings as
themselves, arrays as tuples. :class:`JsonBool` equals no number and supports no
arithmetic, so an integer operation given one refuses it as it refuses a string.
:func:`from_json` and :func:`to_json` convert at the wire.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class JsonBool:
    """A JSON ``true`` or ``false``: never equal to the numbers 1 and 0."""

    value: bool

    def __repr__(self) -> str:
        return "true" if self.value else "false"


def json_scalar(v: Any) -> Any:
    """One scalar as the reference holds it: ``bool`` as :class:`JsonBool`, an integral
    ``float`` as its ``int`` (1.0 is the number 1), anything else unchanged."""
    if isinstance(v, bool):
        return JsonBool(v)
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def plain_scalar(v: Any) -> Any:
    """Back to plain JSON data: :class:`JsonBool` as ``bool``."""
    return v.value if isinstance(v, JsonBool) else v


def from_json(v: Any) -> Any:
    """A JSON value (as parsed: bool, int, float, str, None, list/tuple) as the reference
    holds it; objects (mappings) are left to the caller."""
    if isinstance(v, (list, tuple)):
        return tuple(from_json(x) for x in v)
    return json_scalar(v)


def to_json(v: Any) -> Any:
    """The inverse of :func:`from_json` (up to ``1.0`` written ``1``): arrays as lists."""
    if isinstance(v, (list, tuple)):
        return [to_json(x) for x in v]
    return plain_scalar(v)
