"""The suite's JSON Schemas (kept in ``conformance/schemas/``) and validation against them.

A case's features must be names of the features list (``conformance/vocabulary/features.json``),
added to the case schema as an enum when it is loaded."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

from conformance import vocabulary

SCHEMA_FILES = {"case": "case.schema.json", "protocol": "protocol.schema.json"}
#: The messages of the subprocess protocol, as named in ``protocol.schema.json``.
MESSAGES = ("start", "started", "run", "reply", "stop")


class SchemaError(ValueError):
    """A case file or a protocol message does not match its schema."""


@cache
def load_schema(name: str) -> dict[str, Any]:
    text = resources.files("conformance").joinpath("schemas", SCHEMA_FILES[name]).read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    if name == "case":  # a feature is one of the features list (conformance/vocabulary/features.json)
        schema["$defs"]["feature"] = {**schema["$defs"]["feature"], "enum": list(vocabulary.features())}
    Draft202012Validator.check_schema(schema)
    return schema


@cache
def _validator(name: str, definition: str = "") -> Draft202012Validator:
    schema = load_schema(name)
    if definition:
        schema = {**schema, "$ref": f"#/$defs/{definition}"}
    return Draft202012Validator(schema)


def _check(validator: Draft202012Validator, instance: Any, what: str) -> None:
    errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        where = "/".join(map(str, first.absolute_path)) or "(top)"
        raise SchemaError(f"{what}: at {where}: {first.message}")


def validate_case(raw: Any, what: str = "case") -> None:
    """Raise :class:`SchemaError` unless ``raw`` matches ``case.schema.json``."""
    _check(_validator("case"), raw, what)


def validate_message(message: str, raw: Any) -> None:
    """Raise :class:`SchemaError` unless ``raw`` is a valid protocol message of kind ``message``."""
    if message not in MESSAGES:
        raise ValueError(f"unknown protocol message {message!r}")
    _check(_validator("protocol", message), raw, f"protocol message {message!r}")
