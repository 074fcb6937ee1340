"""``reference``: the shipped in-process implementation, built on ``reference/``.

Its engines maintain state *incrementally* with the reference's functions
(``update`` with removals first, ``apply_delta``, the fixpoint's managed API,
...), while the oracle recomputes from scratch: the suite checks one against
the other. It reports work counters for cost conformance.

The engine methods are split at the points where real engines go wrong, so
that each mutant (:mod:`reference_impl.mutants`) overrides exactly one of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from conformance import reducers
from conformance.api import handshake
from conformance.protocols import (
    AREAS,
    EngineError,
    FixpointEngine,
    Handshake,
    ReduceObservation,
    StreamEngine,
    ZSetEngine,
)
from reference.algebra.multiset import Multiset
from reference.reduce import (
    Declined,
    Delta,
    InvalidDelta,
    Reducer,
    apply_delta,
    check_valid,
    fold,
    update,
    values_at,
)
from reference_impl.fixpoint import ReferenceFixpointEngine
from reference_impl.stream import ReferenceStreamEngine
from reference_impl.zset import ReferenceZSetEngine


class ReferenceReduceEngine:
    """A reduce engine per SKIP-DEF-10: per-key accumulators updated by the delta."""

    def __init__(self) -> None:
        self.R: Reducer[Any, Any] | None = None
        self.C: Mapping[Any, Multiset] = {}
        self.view: dict[Any, Any] = {}
        self.calls = 0
        self.only_changes = False  # observations without the view (the feature changes-only)

    # --- hooks (one per place a real engine can go wrong) ----------------------

    def multiset(self, values: Sequence[Any]) -> Multiset:
        """The values of one key, with repetition (SKIP-DEF-1: C(k) is a multiset)."""
        return Multiset.from_iterable(values)

    def next_collection(self, delta: Delta) -> Mapping[Any, Multiset]:
        """C • Δ (SKIP-DEF-9); refuses Δ⁻(k) ⊄ C(k) with ``invalid-delta`` (SKIP-DEF-8)."""
        try:
            check_valid(self.C, delta)
            return apply_delta(self.C, delta)
        except InvalidDelta as exc:
            raise EngineError("invalid-delta", str(exc)) from exc

    def update_key(self, a_k: Any, delta: Delta, k: Any, C2: Mapping[Any, Multiset]) -> Any:
        """update_R(a_k, Δ, k) (SKIP-DEF-10); a declining remove recomputes the key."""
        R = self._counted()
        try:
            return update(R, a_k, delta, k)
        except Declined:
            return fold(R.add, R.initial, values_at(C2, k))

    def leaves_view(self, k: Any, C2: Mapping[Any, Multiset]) -> bool:
        """A key whose multiset became empty leaves the view (SKIP-DEC-VIEW)."""
        return k not in C2

    # --- the ReduceEngine protocol -------------------------------------------------

    def observe_changes_only(self) -> None:
        """Observations carry the changes only: a step then costs its keys, not the view."""
        self.only_changes = True

    def declare(self, reducer: str, params: Mapping[str, Any]) -> None:
        try:
            self.R = reducers.build(reducer, params)
        except (KeyError, ValueError, TypeError) as exc:
            raise EngineError("malformed-input", f"unknown reducer {reducer!r} or bad params") from exc

    def load(self, collection: Mapping[Any, Sequence[Any]]) -> ReduceObservation:
        self.calls = 0
        R = self._counted()
        old = self.view
        self.C = {k: self.multiset(vs) for k, vs in collection.items() if vs}
        self.view = {k: fold(R.add, R.initial, M) for k, M in self.C.items()}
        return self._observe(old, frozenset(self.C) | frozenset(old))

    def apply(self, plus: Mapping[Any, Sequence[Any]],
              minus: Mapping[Any, Sequence[Any]]) -> ReduceObservation:
        self.calls = 0
        delta = Delta(
            plus={k: self.multiset(vs) for k, vs in plus.items() if vs},
            minus={k: self.multiset(vs) for k, vs in minus.items() if vs},
        )
        C2 = self.next_collection(delta)
        R = self._reducer()
        old = {k: self.view[k] for k in delta.keys() if k in self.view}  # what _observe compares
        for k in delta.keys():
            if self.leaves_view(k, C2):
                self.view.pop(k, None)
            else:
                self.view[k] = self.update_key(self.view.get(k, R.initial), delta, k, C2)
        self.C = C2
        return self._observe(old, delta.keys())

    # --- helpers ------------------------------------------------------------------

    def _reducer(self) -> Reducer[Any, Any]:
        if self.R is None:
            raise EngineError("malformed-input", "no reducer declared")
        return self.R

    def _counted(self) -> Reducer[Any, Any]:
        """The declared reducer with every ⊕ and ⊖ call counted (work counter ``reducer_calls``)."""
        R = self._reducer()

        def add(a: Any, v: Any) -> Any:
            self.calls += 1
            return R.add(a, v)

        def remove(a: Any, v: Any) -> Any:
            self.calls += 1
            return R.remove(a, v)

        return Reducer(R.initial, add, remove, name=R.name)

    def _observe(self, old: Mapping[Any, Any], touched: frozenset[Any]) -> ReduceObservation:
        changes: dict[Any, Any] = {}
        for k in touched:
            if k in self.view and (k not in old or old[k] != self.view[k]):
                changes[k] = self.view[k]
            elif k not in self.view and k in old:
                changes[k] = None
        work = {"reducer_calls": self.calls, "keys_touched": len(touched)}
        self.calls = 0
        return ReduceObservation(view={} if self.only_changes else dict(self.view), changes=changes, work=work)


class ReferenceImplementation:
    """The reference implementation: all four areas, every feature the suite defines."""

    name = "reference"

    def handshake(self) -> Handshake:
        # every feature of the suite's features list
        return handshake(self.name, "0.1.0", areas=[a for a in AREAS if self._supports(a)])

    def _supports(self, area: str) -> bool:
        return getattr(self, f"{area}_engine")() is not None

    def reduce_engine(self) -> ReferenceReduceEngine:
        return ReferenceReduceEngine()

    def fixpoint_engine(self) -> FixpointEngine | None:
        return ReferenceFixpointEngine()

    def zset_engine(self) -> ZSetEngine | None:
        return ReferenceZSetEngine()

    def stream_engine(self) -> StreamEngine | None:
        return ReferenceStreamEngine()


implementation = ReferenceImplementation()
