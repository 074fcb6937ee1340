"""Mutants: deliberately wrong implementations, one semantic fault each.

Each mutant is the reference implementation with one engine hook replaced by a
fault drawn from a real failure mode. The suite must *kill* every mutant (some
case fails, or for a cost mutant the cost column fails); ``incspec conform
--mutants`` prints the kill score and the suite's own tests assert it is total.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from conformance.protocols import Implementation


@dataclass(frozen=True)
class Mutant:
    name: str
    area: str
    fault: str  # the one semantic fault, in words
    make: Callable[[], Implementation]
    cost_only: bool = False  # killed by the cost column (a complexity fault, not a wrong value)


def all_mutants() -> list[Mutant]:
    from conformance.mutants import fixpoint_mutants, reduce_mutants, stream_mutants, zset_mutants

    return [*reduce_mutants.MUTANTS, *fixpoint_mutants.MUTANTS, *zset_mutants.MUTANTS,
            *stream_mutants.MUTANTS]
