"""Mutants of the ``zset`` area: each overrides one rule of :class:`ZSetEngineBase`."""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from typing import Any

from conformance.api import canonical_json
from reference.algebra.zset import ZSet
from reference.differential.dataflow import Iterate, Node, evaluate
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


class IterateBoundOffByOne(ZSetEngineBase):
    """An ``iterate`` allowed one body application more than ``max_iterations`` (the
    bound counted as iterations after the first): a loop one step too long is not refused."""

    def delta(self, node: Node, path: tuple[int, ...], new_inputs: Mapping[str, ZSet]) -> ZSet:
        if not isinstance(node, Iterate):
            return super().delta(node, path, new_inputs)
        bound = self.program_or_fail().max_iterations + 1
        return evaluate(node, new_inputs, {}, bound) - evaluate(node, self.inputs, {}, bound)


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
    Mutant("zset-iterate-bound-off-by-one", "zset", IterateBoundOffByOne.__doc__ or "",
           _implementation(IterateBoundOffByOne)),
]
