"""§8 "Explore stratification": stratified fixpoints with negation, an extension
built on the Level 2 DSL (FIX-DEF-STRAT, FIX-DEC-STRAT, FIX-CLAIM-STRAT-INCREMENTAL).

A stratified program is a sequence of strata ``name_i = lfp(S => body_i)``.
Stratum i may read (with ``const``, ``join`` or ``minus``) the input relations
and the outputs of strata j < i, never its own name or a later one; recursion
is only through S. Each stratum is then monotone in its S with everything it
negates fixed, and strata are evaluated in order (the standard stratified
semantics). Incrementally, an input edit is applied to stratum 1, and the
output delta of each stratum (added/removed elements) becomes an edit of the
relation of that name for the strata above: negated relations flow through the
``minus`` probes of :mod:`reference.fixpoint.dsl`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from reference.fixpoint.dsl import Database, DslFixpoint, Edit, Lfp, Value, recompute, relations
from reference.fixpoint.managed import Update


@dataclass(frozen=True)
class Stratum:
    name: str
    program: Lfp


@dataclass(frozen=True)
class StratifiedProgram:
    """FIX-DEF-STRAT: strata in evaluation order."""

    strata: tuple[Stratum, ...]


class NotStratified(ValueError):
    """A stratum reads its own output or a later stratum's by name."""


def check_stratified(program: StratifiedProgram) -> None:
    """FIX-DEC-STRAT: raise :class:`NotStratified` unless every stratum reads only
    inputs and earlier strata."""
    names = [s.name for s in program.strata]
    if len(set(names)) != len(names):
        raise NotStratified(f"duplicate stratum names in {names}")
    for i, stratum in enumerate(program.strata):
        later = set(names[i:])
        bad = relations(stratum.program.body).all & later
        if bad:
            raise NotStratified(f"stratum {stratum.name!r} reads {sorted(bad)} (itself or a later stratum)")


def recompute_stratified(program: StratifiedProgram, db: Database) -> dict[str, frozenset[Value]]:
    """The stratified semantics: each stratum's lfp in order, its output added to the database."""
    check_stratified(program)
    env = dict(db)
    out: dict[str, frozenset[Value]] = {}
    for stratum in program.strata:
        out[stratum.name] = env[stratum.name] = recompute(stratum.program, env)
    return out


@dataclass(frozen=True)
class StratifiedFixpoint:
    """Stratified program maintained incrementally, one :class:`DslFixpoint` per stratum."""

    program: StratifiedProgram
    strata: tuple[DslFixpoint, ...]

    @property
    def outputs(self) -> Mapping[str, frozenset[Value]]:
        return MappingProxyType({s.name: f.current for s, f in zip(self.program.strata, self.strata, strict=True)})

    @staticmethod
    def make(program: StratifiedProgram, db: Database) -> tuple[StratifiedFixpoint, dict[str, Update]]:
        check_stratified(program)
        env = dict(db)
        states, updates = [], {}
        for stratum in program.strata:
            state, update = DslFixpoint.make(stratum.program, env)
            env[stratum.name] = state.current
            states.append(state)
            updates[stratum.name] = update
        return StratifiedFixpoint(program, tuple(states)), updates

    def apply(self, edit: Edit) -> tuple[StratifiedFixpoint, dict[str, Update]]:
        """FIX-DEC-STRAT: apply ``edit`` to stratum 1, then each stratum's output delta,
        accumulated, to the strata above it."""
        added, removed = dict(edit.added), dict(edit.removed)
        states, updates = [], {}
        for stratum, state in zip(self.program.strata, self.strata, strict=True):
            new_state, update = state.apply(Edit(dict(added), dict(removed)))
            added[stratum.name], removed[stratum.name] = update.added, update.removed
            states.append(new_state)
            updates[stratum.name] = update
        return StratifiedFixpoint(self.program, tuple(states)), updates
