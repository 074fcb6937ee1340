"""Mutants of the ``fixpoint`` area: each overrides one hook of :class:`FixpointEngineBase`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from reference_impl.implementation import ReferenceImplementation
from reference_impl.mutants import Mutant
from reference_impl.mutants.mutable_fixpoint import FixpointEngineBase


class NoRederivation(FixpointEngineBase):
    """Contraction without re-derivation (phase 2 dropped): stale ranks kill live elements."""

    def rederive(self, dying: set[Any]) -> set[Any]:
        return set()


class RanksRestartAtZero(FixpointEngineBase):
    """Re-derivation restarts ranks at 0, as the printed ``expand`` does."""

    def rederive(self, dying: set[Any]) -> set[Any]:
        self._restarting = True
        return super().rederive(dying)

    def rank_for(self, x: Any) -> int:
        if getattr(self, "_restarting", False):
            return 0
        return super().rank_for(x)

    def contract(self, worklist: Iterable[Any]) -> None:
        self._restarting = False
        super().contract(worklist)
        self._restarting = False


class CycleSupport(FixpointEngineBase):
    """Any live deriver counts as support (rank check dropped): cycle members support each other."""

    def well_founded(self, deriver: Any, x: Any) -> bool:
        return True


class CascadeExaminesOnce(FixpointEngineBase):
    """The cascade examines each element once: one found supported keeps that verdict
    although its deriver dies later in the same cascade."""

    def contract(self, worklist: Iterable[Any]) -> None:
        self._settled: set[Any] = set()
        super().contract(worklist)

    def supported(self, x: Any, dying: set[Any]) -> bool:
        if x in self._settled:
            return True
        self._settled.add(x)
        return super().supported(x, dying)


class SeedsOnlyNewRoots(FixpointEngineBase):
    """Expansion seeded with the new roots only, as printed: an edge added from a live node is not followed."""

    def expansion_seeds(self, new_roots: Iterable[Any], new_edges: Iterable[tuple[Any, Any]]) -> set[Any]:
        return {r for r in new_roots if r not in self.current}


class RecomputeFromScratch(FixpointEngineBase):
    """Correct live sets, wrong cost: every change recomputes the fixpoint by BFS from the roots."""

    def contract(self, worklist: Iterable[Any]) -> None:
        self.current, self.rank = set(), {}
        self.expand(self.roots)

    def expansion_seeds(self, new_roots: Iterable[Any], new_edges: Iterable[tuple[Any, Any]]) -> set[Any]:
        self.current, self.rank = set(), {}
        return set(self.roots)


def _implementation(engine: type[FixpointEngineBase]) -> Any:
    class Mutated(ReferenceImplementation):
        name = f"mutant:{engine.__name__}"

        def fixpoint_engine(self) -> FixpointEngineBase:
            return engine()

    return Mutated


#: The unmutated base, to check that the mutants differ from a passing engine by one fault.
BASE = _implementation(FixpointEngineBase)

MUTANTS = [
    Mutant("fixpoint-no-rederivation", "fixpoint", NoRederivation.__doc__ or "", _implementation(NoRederivation)),
    Mutant("fixpoint-ranks-restart-at-zero", "fixpoint", RanksRestartAtZero.__doc__ or "",
           _implementation(RanksRestartAtZero)),
    Mutant("fixpoint-cycle-support", "fixpoint", CycleSupport.__doc__ or "", _implementation(CycleSupport)),
    Mutant("fixpoint-cascade-examines-once", "fixpoint", CascadeExaminesOnce.__doc__ or "",
           _implementation(CascadeExaminesOnce)),
    Mutant("fixpoint-seeds-only-new-roots", "fixpoint", SeedsOnlyNewRoots.__doc__ or "",
           _implementation(SeedsOnlyNewRoots)),
    Mutant("fixpoint-recompute-from-scratch", "fixpoint", RecomputeFromScratch.__doc__ or "",
           _implementation(RecomputeFromScratch), cost_only=True),
]
