"""Mutants of the ``reduce`` area: each overrides one hook of the reference engine."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from reference.algebra.multiset import Multiset
from reference.reduce import Declined, Delta, fold, update, values_at
from reference_impl.implementation import (
    ReferenceImplementation,
    ReferenceReduceEngine,
)
from reference_impl.mutants import Mutant


class SetNotMultiset(ReferenceReduceEngine):
    """Stores each key's values as a set: duplicates collapse."""

    def multiset(self, values: Sequence[Any]) -> Multiset:
        return Multiset.from_iterable(dict.fromkeys(values))

    def next_collection(self, delta: Delta) -> dict[Any, Multiset]:
        C2 = super().next_collection(delta)
        return {k: Multiset.from_iterable(M.support()) for k, M in C2.items()}


class AddsBeforeRemoves(ReferenceReduceEngine):
    """Applies Δ⁺ before Δ⁻ (SKIP-DEF-10 folds removals first); wrong for a non-commuting remove."""

    def update_key(self, a_k: Any, delta: Delta, k: Any, C2: Mapping[Any, Multiset]) -> Any:
        R = self._counted()
        try:
            swapped = Delta(plus={}, minus={k: delta.removed(k)})
            return update(R, fold(R.add, a_k, delta.added(k)), swapped, k)
        except Declined:
            return fold(R.add, R.initial, values_at(C2, k))


class EmptiedKeyKept(ReferenceReduceEngine):
    """Keeps a key whose multiset became empty in the view, with its stale accumulator."""

    def leaves_view(self, k: Any, C2: Mapping[Any, Multiset]) -> bool:
        return False

    def update_key(self, a_k: Any, delta: Delta, k: Any, C2: Mapping[Any, Multiset]) -> Any:
        if k not in C2:
            return a_k
        return super().update_key(a_k, delta, k, C2)


class DeclineIgnored(ReferenceReduceEngine):
    """When ``remove`` declines (returns null), keeps the old accumulator instead of recomputing."""

    def update_key(self, a_k: Any, delta: Delta, k: Any, C2: Mapping[Any, Multiset]) -> Any:
        R = self._counted()
        a = a_k
        for v in delta.removed(k).elements():
            r = R.remove(a, v)
            a = a if r is None else r
        return fold(R.add, a, delta.added(k))


class InvalidDeltaAccepted(ReferenceReduceEngine):
    """Accepts Δ⁻(k) ⊄ C(k), removing what it can (multiset difference truncates)."""

    def next_collection(self, delta: Delta) -> dict[Any, Multiset]:
        result = dict(self.C)
        for k in delta.keys():
            result[k] = (values_at(self.C, k) - delta.removed(k)) | delta.added(k)
            if result[k].is_empty():
                del result[k]
        return result


class RecomputeEveryKey(ReferenceReduceEngine):
    """Correct values, wrong cost: re-folds every touched key from ι instead of updating it."""

    def update_key(self, a_k: Any, delta: Delta, k: Any, C2: Mapping[Any, Multiset]) -> Any:
        R = self._counted()
        return fold(R.add, R.initial, values_at(C2, k))


def _implementation(engine: type[ReferenceReduceEngine]) -> Any:
    class Mutated(ReferenceImplementation):
        name = f"mutant:{engine.__name__}"

        def reduce_engine(self) -> ReferenceReduceEngine:
            return engine()

    return Mutated


MUTANTS = [
    Mutant("reduce-set-not-multiset", "reduce", SetNotMultiset.__doc__ or "", _implementation(SetNotMultiset)),
    Mutant("reduce-adds-before-removes", "reduce", AddsBeforeRemoves.__doc__ or "",
           _implementation(AddsBeforeRemoves)),
    Mutant("reduce-emptied-key-kept", "reduce", EmptiedKeyKept.__doc__ or "", _implementation(EmptiedKeyKept)),
    Mutant("reduce-decline-ignored", "reduce", DeclineIgnored.__doc__ or "", _implementation(DeclineIgnored)),
    Mutant("reduce-invalid-delta-accepted", "reduce", InvalidDeltaAccepted.__doc__ or "",
           _implementation(InvalidDeltaAccepted)),
    Mutant("reduce-recompute-every-key", "reduce", RecomputeEveryKey.__doc__ or "",
           _implementation(RecomputeEveryKey), cost_only=True),
]
