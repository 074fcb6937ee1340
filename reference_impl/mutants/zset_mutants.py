"""Mutants of the ``zset`` area: each overrides one rule of :class:`ZSetEngineBase`."""

from __future__ import annotations

import zlib
from typing import Any

from conformance.api import canonical_json
from reference.algebra.zset import ZSet
from reference.differential.operators import distinct
from reference_impl.implementation import ReferenceImplementation
from reference_impl.mutants import Mutant
from reference_impl.mutants.operator_zset import PARTITIONS, ZSetEngineBase


class JoinWithoutDeltaDelta(ZSetEngineBase):
    """Join forgets the ΔA ⋈ ΔB term: rows that arrive on both sides in one version never meet."""

    def join_delta(self, da: ZSet, db: ZSet, a: ZSet, b: ZSet) -> ZSet:
        return self.partitioned_join(da, b) + self.partitioned_join(a, db)


class DistinctAsLinear(ZSetEngineBase):
    """Distinct applied to the delta as if it were linear: distinct(ΔA) instead of a diff."""

    def distinct_delta(self, da: ZSet, a: ZSet) -> ZSet:
        return distinct(da)


class MismatchedPartitions(ZSetEngineBase):
    """A partitioned join whose two sides hash the key with different functions."""

    def right_partition(self, k: Any) -> int:
        return zlib.adler32(canonical_json(k).encode("utf-8")) % PARTITIONS


def _implementation(engine: type[ZSetEngineBase]) -> Any:
    class Mutated(ReferenceImplementation):
        name = f"mutant:{engine.__name__}"

        def zset_engine(self) -> ZSetEngineBase:
            return engine()

    return Mutated


#: The unmutated base, to check that the mutants differ from a passing engine by one fault.
BASE = _implementation(ZSetEngineBase)

MUTANTS = [
    Mutant("zset-join-without-delta-delta", "zset", JoinWithoutDeltaDelta.__doc__ or "",
           _implementation(JoinWithoutDeltaDelta)),
    Mutant("zset-distinct-as-linear", "zset", DistinctAsLinear.__doc__ or "", _implementation(DistinctAsLinear)),
    Mutant("zset-mismatched-partitions", "zset", MismatchedPartitions.__doc__ or "",
           _implementation(MismatchedPartitions)),
]
