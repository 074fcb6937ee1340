"""The suite's public Python API: what an implementation may import besides
:mod:`conformance.protocols` (the engine contract).

- the one driver (:mod:`conformance.driver`): run a case on an implementation, or
  several on a lockstep engine; decode an operation, encode an observation;
- the wire helpers (:mod:`conformance.wire`): JSON observations in a canonical order;
- the case model (:mod:`conformance.cases_model`): a case as a runner passes it,
  frozen JSON values and their canonical text;
- :func:`handshake`: a handshake whose features are names of the features list
  (``conformance/vocabulary/features.json``).

Everything else in ``conformance`` is the suite's own and may change; an import
check in the tests keeps the Spark implementation to this module and the protocols.
"""

from __future__ import annotations

from collections.abc import Sequence

from conformance import vocabulary
from conformance.cases_model import Case, Step, canonical_json, freeze, thaw
from conformance.driver import Call, decode, encode, observe, run_case, run_lockstep
from conformance.protocols import AREAS, Handshake
from conformance.wire import (
    elements,
    keyed_values,
    pairs,
    sort_values,
    unpairs,
    weighted,
    weighted_list,
)

__all__ = [
    "FEATURES", "Call", "Case", "handshake", "Step", "canonical_json", "decode", "elements", "encode", "freeze", "keyed_values",
    "observe", "pairs", "run_case", "run_lockstep", "sort_values", "thaw", "unpairs", "weighted",
    "weighted_list",
]

#: Every feature an implementation may declare, from the features list.
FEATURES: tuple[str, ...] = vocabulary.features()


def handshake(name: str, version: str, *, language: str = "python", areas: Sequence[str] = AREAS,
              features: Sequence[str] = FEATURES) -> Handshake:
    """A handshake; ``ValueError`` for a feature the features list does not name."""
    unknown = [f for f in features if f not in FEATURES]
    if unknown:
        raise ValueError(f"unknown features {unknown} (the features list: {', '.join(FEATURES)})")
    return Handshake(name=name, version=version, language=language, areas=tuple(areas),
                     features=tuple(features))
