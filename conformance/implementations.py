"""Implementations the suite can run, found by name at run time.

``--impl NAME`` accepts a name registered in the ``incspec.implementations``
entry-point group (this project registers ``reference`` and ``spark`` in its
``pyproject.toml``; a package of yours can register its own), a dotted
``module:attr`` naming an :class:`~conformance.protocols.Implementation` (or a
zero-argument factory returning one), or ``mutant/NAME`` for a mutant offered
in the ``incspec.mutants`` group. The suite imports no implementation by name:
each is loaded only when asked for, so ``spark`` resolves only where the Spark
extra is installed.
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points
from typing import Any

from conformance.protocols import Implementation, Mutant

ENTRY_POINT_GROUP = "incspec.implementations"
MUTANT_GROUP = "incspec.mutants"


class ImplementationNotFound(LookupError):
    pass


def registered() -> dict[str, str]:
    """Registered implementation names -> ``module:attr``."""
    return {ep.name: str(ep.value) for ep in entry_points(group=ENTRY_POINT_GROUP)}


def target_of(name: str) -> str:
    if ":" in name:
        return name
    known = registered()
    if name in known:
        return known[name]
    raise ImplementationNotFound(f"unknown implementation {name!r}: use module:attr or one of "
                                 f"{', '.join(sorted(known)) or '(none registered)'}")


def all_mutants() -> list[Mutant]:
    """Every mutant of every registered ``incspec.mutants`` provider."""
    return [m for ep in sorted(entry_points(group=MUTANT_GROUP), key=lambda e: e.name)
            for m in ep.load()()]


def resolve(name: str) -> Implementation:
    """The implementation named ``name``: a registered name, ``module:attr``, or ``mutant/NAME``."""
    if name.startswith("mutant/"):
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
