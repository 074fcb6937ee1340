"""Implementations the suite can run, found by name at run time.

``--impl NAME`` accepts a short name registered here or in the
``incspec.implementations`` entry-point group, or a dotted ``module:attr``
naming an :class:`~conformance.protocols.Implementation` (or a zero-argument
factory returning one). Nothing here imports an implementation until asked,
so ``spark`` resolves only where the Spark extra is installed.
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points
from typing import Any

from conformance.protocols import Implementation

SHORT_NAMES: dict[str, str] = {
    "reference": "conformance.implementations.reference_impl:implementation",
    "spark": "spark_impl.conformance_adapter:implementation",
}
ENTRY_POINT_GROUP = "incspec.implementations"


class ImplementationNotFound(LookupError):
    pass


def target_of(name: str) -> str:
    if ":" in name:
        return name
    if name in SHORT_NAMES:
        return SHORT_NAMES[name]
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == name:
            return str(ep.value)
    known = ", ".join(sorted(SHORT_NAMES))
    raise ImplementationNotFound(f"unknown implementation {name!r}: use module:attr or one of {known}")


def resolve(name: str) -> Implementation:
    """The implementation named ``name``: a short name, ``module:attr``, or
    ``mutant/NAME`` for one of the suite's mutants (:mod:`conformance.mutants`)."""
    if name.startswith("mutant/"):
        from conformance.mutants import all_mutants

        for mutant in all_mutants():
            if mutant.name == name.removeprefix("mutant/"):
                return mutant.make()
        raise ImplementationNotFound(f"no mutant named {name.removeprefix('mutant/')!r}")
    module, _, attr = target_of(name).partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    if isinstance(obj, type) or (not isinstance(obj, Implementation) and callable(obj)):
        obj = obj()
    if not isinstance(obj, Implementation):
        raise ImplementationNotFound(f"{name!r} is not an Implementation (handshake and engine factories)")
    return obj
