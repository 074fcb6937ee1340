"""Mutants: deliberately wrong implementations, one semantic fault each.

Each mutant is the reference implementation with one engine hook replaced by a
fault drawn from a real failure mode. The suite must *kill* every mutant (some
case fails, or for a cost mutant the cost column fails); ``incspec conform
--mutants`` finds them through the ``incspec.mutants`` entry point
(:func:`all_mutants`), prints the kill score, and the suite's own tests assert
it is total.
"""

from __future__ import annotations

from conformance.protocols import Mutant

__all__ = ["Mutant", "all_mutants"]


def all_mutants() -> list[Mutant]:
    from reference_impl.mutants import (
        fixpoint_mutants,
        reduce_mutants,
        stream_mutants,
        zset_mutants,
    )

    return [*reduce_mutants.MUTANTS, *fixpoint_mutants.MUTANTS, *zset_mutants.MUTANTS,
            *stream_mutants.MUTANTS]
