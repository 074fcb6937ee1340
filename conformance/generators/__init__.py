"""Case generators, one module per area: seeded, so a regeneration is byte-identical.

Each generator builds operation traces and asks the area's oracle
(:mod:`conformance.oracle`) for the expected observations, as the consensus-spec
vector generators do from the executable spec.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from conformance.cases_model import Case
from conformance.generators import fixpoint, reduce, stream, zset

GENERATORS: dict[str, Callable[[], Iterable[Case]]] = {
    "reduce": reduce.cases, "fixpoint": fixpoint.cases, "zset": zset.cases, "stream": stream.cases,
}
