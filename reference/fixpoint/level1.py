"""§3.1 "Level 1: Low-Level Incremental Fixpoint API" (FIX-REM-1).

* :class:`SimpleFixpoint` (expansion only): needs base and stepFwd; accepts
  deltas that only add base elements or step pairs.
* :class:`FullFixpoint` (expansion and contraction): also needs stepInv; if
  the user gives none, the system builds ``stepInv[y] = {x ∈ current | y ∈
  stepFwd(x)}`` once at ``make`` and maintains it incrementally (§3.1.2 note).

The user supplies stepFwd as a function and describes each change with a
:class:`StepDelta` ("applyDelta"); both user obligations of §3.1.4 apply
(checkers: :mod:`reference.fixpoint.required_properties`). Values are
immutable; updates return ``(new_value, update)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from reference.fixpoint import algorithms
from reference.fixpoint.algorithms import Config, State, UpdateWork, Work
from reference.fixpoint.general_pattern import Edge, Elem, StepFwd, lookup
from reference.fixpoint.managed import Update, output_delta


@dataclass(frozen=True)
class StepDelta:
    """``applyDelta``'s argument (§3.1.4): base elements added/removed, and
    ``addedToStep`` / ``removedFromStep``: pairs (x, y) with y now in / no longer in
    stepFwd(x). The new configuration must already reflect it."""

    added_to_base: tuple[Elem, ...] = ()
    removed_from_base: tuple[Elem, ...] = ()
    added_to_step: tuple[Edge, ...] = ()
    removed_from_step: tuple[Edge, ...] = ()

    @property
    def is_expansion(self) -> bool:
        return not self.removed_from_base and not self.removed_from_step


def _make(config: Config) -> tuple[State, Update]:
    frontier, seed_work = algorithms.expansion_frontier(State(), config.base)
    e = algorithms.expand(State(), config, frontier)
    return e.state, Update(frozenset(e.added), frozenset(), UpdateWork(expansion=seed_work + e.work))


@dataclass(frozen=True)
class SimpleFixpoint:
    """The simple API: ``make(config)`` then ``apply_delta`` with additions only."""

    config: Config
    state: State

    @staticmethod
    def make(base: Iterable[Elem], step_fwd: StepFwd) -> tuple[SimpleFixpoint, Update]:
        config = Config(frozenset(base), step_fwd)
        state, update = _make(config)
        return SimpleFixpoint(config, state), update

    @property
    def current(self) -> frozenset[Elem]:
        return self.state.current

    def apply_delta(self, step_fwd_new: StepFwd, delta: StepDelta) -> tuple[SimpleFixpoint, Update]:
        """Expansion (FIX-ALG-EXPAND) seeded by FIX-DEC-EXPAND-SEED."""
        if not delta.is_expansion:
            raise ValueError("the simple API supports expansion only (FIX-REM-1)")
        config = Config(self.config.base | frozenset(delta.added_to_base), step_fwd_new)
        e, seed_work = algorithms.expansion_phase(self.state, config, delta.added_to_base,
                                                  delta.added_to_step)
        return (SimpleFixpoint(config, e.state),
                Update(frozenset(e.added), frozenset(), UpdateWork(expansion=seed_work + e.work)))


def derived_inverse(current: Iterable[Elem], step_fwd: StepFwd) -> dict[Elem, frozenset[Elem]]:
    """§3.1.2 note: stepInv[y] = {x ∈ current | y ∈ stepFwd(x)}."""
    inv: dict[Elem, set[Elem]] = {}
    for x in current:
        for y in step_fwd(x):
            inv.setdefault(y, set()).add(x)
    return {y: frozenset(xs) for y, xs in inv.items()}


def _index_update(inv: Mapping[Elem, frozenset[Elem]], add: Iterable[Edge],
                  remove: Iterable[Edge]) -> tuple[Mapping[Elem, frozenset[Elem]], int]:
    """The derived index with pairs (x, y) removed then added, and how many were touched."""
    out, touched = dict(inv), 0
    for x, y in remove:
        touched += 1
        rest = out.get(y, frozenset()) - {x}
        if rest:
            out[y] = rest
        else:
            out.pop(y, None)
    for x, y in add:
        touched += 1
        out[y] = out.get(y, frozenset()) | {x}
    return MappingProxyType(out), touched


@dataclass(frozen=True)
class FullFixpoint:
    """The full API. ``derived`` holds the system-built stepInv index when the user
    gave none (restricted to live derivers, as in §3.1.2)."""

    config: Config
    state: State
    derived: Mapping[Elem, frozenset[Elem]] | None = None

    @staticmethod
    def make(base: Iterable[Elem], step_fwd: StepFwd,
             step_inv: StepFwd | None = None) -> tuple[FullFixpoint, Update]:
        config = Config(frozenset(base), step_fwd, step_inv)
        state, update = _make(config)
        derived = None if step_inv else MappingProxyType(derived_inverse(state.current, step_fwd))
        return FullFixpoint(config, state, derived), update

    @property
    def current(self) -> frozenset[Elem]:
        return self.state.current

    def step_inv(self) -> StepFwd:
        if self.derived is None:
            assert self.config.step_inv is not None
            return self.config.step_inv
        return lookup(self.derived)

    def apply_delta(self, step_fwd_new: StepFwd, delta: StepDelta,
                    step_inv_new: StepFwd | None = None) -> tuple[FullFixpoint, Update]:
        """``applyDelta``: contraction for the removals, then expansion for the
        additions (as FIX-DEC-BATCH); ``step_fwd_new`` must already reflect the delta.
        Maintaining the derived stepInv index scans each changed live pair once:
        counted as edges of the cascade phase (before) and of the expansion phase (after)."""
        work, derived = UpdateWork(), self.derived
        if derived is not None:  # the index follows the delta, on live derivers
            live = self.state.live
            derived, n = _index_update(
                derived, [(x, y) for x, y in delta.added_to_step if x in live],
                [(x, y) for x, y in delta.removed_from_step if x in live])
            work += UpdateWork(cascade=Work(0, n))
        inv: StepFwd = lookup(derived) if derived is not None else _given(step_inv_new, self.config)
        removed_base = frozenset(delta.removed_from_base) - frozenset(delta.added_to_base)
        base_mid = self.config.base - removed_base
        config = Config(base_mid | frozenset(delta.added_to_base), step_fwd_new,
                        None if derived is not None else inv)
        applied = algorithms.apply_delta(
            self.state, Config(base_mid, step_fwd_new, inv), config,
            removed_base, delta.removed_from_step, delta.added_to_base, delta.added_to_step)
        update = output_delta(self.state.live, applied)
        work += update.work
        if derived is not None:  # live derivers that died or were born
            gone = [(x, y) for x in update.removed for y in step_fwd_new(x)]
            born = [(x, y) for x in update.added for y in step_fwd_new(x)]
            derived, n = _index_update(derived, born, gone)
            work += UpdateWork(expansion=Work(0, n))
        return (FullFixpoint(config, applied.state, derived),
                Update(update.added, update.removed, work, update.churn))


def _given(step_inv_new: StepFwd | None, config: Config) -> StepFwd:
    inv = step_inv_new or config.step_inv
    if inv is None:
        raise ValueError("contraction needs stepInv (FIX-REM-1)")
    return inv
