"""Mutants of the ``stream`` area: the reference engine with one processor done wrong.

Each fault makes the output depend on how the input is cut into batches (the
state is not threaded across batches), or loses matches of a partitioned join.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from reference.algebra.weights import canonical_order
from reference.streams.named import partition_of
from reference_impl.implementation import ReferenceImplementation
from reference_impl.mutants import Mutant
from reference_impl.stream import ReferenceStreamEngine


class _OneProcessorWrong(ReferenceStreamEngine):
    processor = ""

    def run(self, processor: str, params: Mapping[str, Any],
            batches: Sequence[Sequence[Any]]) -> Sequence[Any]:
        if processor != self.processor:
            return super().run(processor, params, batches)
        return self.wrong(params, batches)

    def wrong(self, params: Mapping[str, Any], batches: Sequence[Sequence[Any]]) -> Sequence[Any]:
        raise NotImplementedError

    def per_batch(self, params: Mapping[str, Any], batches: Sequence[Sequence[Any]]) -> list[Any]:
        """The processor restarted on every batch, outputs concatenated: no state across batches."""
        out: list[Any] = []
        for batch in batches:
            out.extend(super().run(self.processor, params, [batch]))
        return out


class PrefixSumPerBatch(_OneProcessorWrong):
    """prefix_sum restarts its running sum at every batch: its output depends on the batching."""

    processor = "prefix_sum"

    def wrong(self, params: Mapping[str, Any], batches: Sequence[Sequence[Any]]) -> Sequence[Any]:
        return self.per_batch(params, batches)


class FullAdderCarryLost(_OneProcessorWrong):
    """full_adder drops the carry at every batch boundary."""

    processor = "full_adder"

    def wrong(self, params: Mapping[str, Any], batches: Sequence[Sequence[Any]]) -> Sequence[Any]:
        return self.per_batch(params, batches)


class DistinctPerBatch(_OneProcessorWrong):
    """distinct deduplicates within each batch only: a value seen in two batches is output twice."""

    processor = "distinct"

    def wrong(self, params: Mapping[str, Any], batches: Sequence[Sequence[Any]]) -> Sequence[Any]:
        return sorted(self.per_batch(params, batches), key=repr)


class JoinMismatchedPartitions(_OneProcessorWrong):
    """join_partitioned routes the right edge [y, z] by z instead of y: only pairs whose
    two hashes happen to agree meet."""

    processor = "join_partitioned"

    def wrong(self, params: Mapping[str, Any], batches: Sequence[Sequence[Any]]) -> Sequence[Any]:
        k = int(params.get("partitions", 2))
        matches = super().run("join", {}, batches)
        kept = [m for m in matches if partition_of(m[0][1], k) == partition_of(m[1][1], k)]
        return [list(map(list, m)) for m in canonical_order(tuple(map(tuple, m)) for m in kept)]


class SetDifferenceSameStratum(_OneProcessorWrong):
    """set_difference_ticks subtracts each stratum's own negative set (A_i \\ B_i) instead of
    the previous stratum's (A_i \\ B_(i-1), STREAM-PROP-3.55)."""

    processor = "set_difference_ticks"

    def wrong(self, params: Mapping[str, Any], batches: Sequence[Sequence[Any]]) -> Sequence[Any]:
        ReferenceStreamEngine.run(self, self.processor, params, batches)  # the same refusals
        strata: list[tuple[set[Any], set[Any]]] = [(set(), set())]
        for item in (x for batch in batches for x in batch):
            if item == "tick":
                strata.append((set(), set()))
            else:
                sign, x = item
                strata[-1][0 if sign == "+" else 1].add(x)
        return [canonical_order(a - b) for a, b in strata]


def _implementation(engine: type[ReferenceStreamEngine]) -> Any:
    class Mutated(ReferenceImplementation):
        name = f"mutant:{engine.__name__}"

        def stream_engine(self) -> ReferenceStreamEngine:
            return engine()

    return Mutated


MUTANTS = [
    Mutant("stream-prefix-sum-per-batch", "stream", PrefixSumPerBatch.__doc__ or "",
           _implementation(PrefixSumPerBatch)),
    Mutant("stream-full-adder-carry-lost", "stream", FullAdderCarryLost.__doc__ or "",
           _implementation(FullAdderCarryLost)),
    Mutant("stream-distinct-per-batch", "stream", DistinctPerBatch.__doc__ or "",
           _implementation(DistinctPerBatch)),
    Mutant("stream-join-mismatched-partitions", "stream", JoinMismatchedPartitions.__doc__ or "",
           _implementation(JoinMismatchedPartitions)),
    Mutant("stream-set-difference-same-stratum", "stream", SetDifferenceSameStratum.__doc__ or "",
           _implementation(SetDifferenceSameStratum)),
]
