"""Case generators, one module per area: seeded, so a regeneration is byte-identical.

Each generator builds operation traces and asks the area's oracle
(:mod:`conformance.oracle`) for the expected observations, as the consensus-spec
vector generators do from the executable spec.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable

from conformance.cases_model import Case
from conformance.protocols import AREAS


def _generators() -> dict[str, Callable[[], Iterable[Case]]]:
    found: dict[str, Callable[[], Iterable[Case]]] = {}
    for area in AREAS:
        try:
            module = importlib.import_module(f"conformance.generators.{area}")
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.startswith(("conformance.generators.", "reference.")):
                continue  # no generator, or no oracle in reference/, for this area yet
            raise
        found[area] = module.cases
    return found


GENERATORS = _generators()
