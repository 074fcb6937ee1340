"""The suite's public Python API: what an implementation may import besides
:mod:`conformance.protocols` (the engine contract).

- the one driver (:mod:`conformance.driver`): run a case on an implementation, or
  several on a lockstep engine; decode an operation, encode an observation;
- the wire helpers (:mod:`conformance.wire`): JSON observations in a canonical order;
- the case model (:mod:`conformance.cases_model`): a case as a runner passes it,
  frozen JSON values and their canonical text.

Everything else in ``conformance`` is the suite's own and may change; an import
check in the tests keeps the Spark implementation to this module and the protocols.
"""

from __future__ import annotations

from conformance.cases_model import Case, Step, canonical_json, freeze, thaw
from conformance.driver import Call, decode, encode, observe, run_case, run_lockstep
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
    "Call", "Case", "Step", "canonical_json", "decode", "elements", "encode", "freeze", "keyed_values",
    "observe", "pairs", "run_case", "run_lockstep", "sort_values", "thaw", "unpairs", "weighted",
    "weighted_list",
]
