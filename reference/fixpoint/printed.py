"""§3.2 as printed (FIX-DEC-PRINTED-VARIANT): the pseudo-code of ``expand`` and
``contract`` exactly as the paper prints it, kept as *evidence*, not as the
spec. Two gaps (the two parts of FIX-CLAIM-PRINTED-CORRECT, refuted):

* ``expand`` seeds its frontier with ``config'.base \\ state.current`` only, so
  an added edge (x, y) with x live and y not live is never followed
  (FIX-CLAIM-PRINTED-CORRECT: wrong immediately, e.g. §4.2 itself);
* re-derivation calls ``expand(state, rederiveFrontier)``, which restarts
  ranks at 0: a re-derived non-base element gets rank 0, breaks the rank
  invariant, and can keep an unreachable cycle alive at a later contraction.

The corrected algorithms are :mod:`reference.fixpoint.algorithms`.
"""

from __future__ import annotations

from collections.abc import Iterable

from reference.fixpoint.algorithms import (
    Config,
    Contraction,
    Expansion,
    State,
    Work,
    cascade,
    without,
)
from reference.fixpoint.general_pattern import Elem


def _bfs_from_zero(state: State, config_new: Config, frontier: Iterable[Elem]) -> Expansion:
    """The printed loop: ``r = 0``; settle the frontier at rank r; next frontier =
    stepFwd of the frontier minus current; ``r += 1``."""
    live, rank = state.live.evolver(), state.rank.evolver()
    layer = {x: None for x in frontier if x not in live}
    added: list[Elem] = []
    elements = edges = 0
    r = 0
    while layer:
        for x in layer:
            elements += 1
            live.add(x)
            rank[x] = r
            added.append(x)
        nxt: dict[Elem, None] = {}
        for x in layer:
            for y in config_new.step_fwd(x):
                edges += 1
                if y not in live:
                    nxt[y] = None
        layer = nxt
        r += 1
    return Expansion(State(live.persistent(), rank.persistent()), tuple(added), Work(elements, edges))


def expand(state: State, config_new: Config) -> Expansion:
    """``expand(state, config')`` as printed: ``frontier = config'.base \\ state.current``."""
    return _bfs_from_zero(state, config_new, config_new.base - state.current)


def contract(state: State, config_new: Config, worklist: Iterable[Elem],
             record: bool = False) -> Contraction:
    """``contract(state, config')`` as printed: the same worklist cascade (phase
    1), then ``rederiveFrontier = {y ∈ dying | some x ∈ stepInv(y) in current}``
    and ``expand(state, rederiveFrontier)``, i.e. a BFS whose ranks restart at 0."""
    assert config_new.step_inv is not None
    dying, cascade_work, trace = cascade(state, config_new, worklist, record)
    after = without(state, dying)
    frontier: list[Elem] = []
    elements = edges = 0
    for y in dying:
        elements += 1
        for x in config_new.step_inv(y):
            edges += 1
            if x in after.live:
                frontier.append(y)
                break
    e = _bfs_from_zero(after, config_new, frontier)
    return Contraction(e.state, dying, e.added, cascade_work, Work(elements, edges), e.work, trace)


def expansion_phase(state: State, config_new: Config, added_to_base: tuple[Elem, ...],
                    added_to_step: tuple[tuple[Elem, Elem], ...]) -> tuple[Expansion, Work]:
    """The expansion of an update as printed: ``expand(state, config')``, whatever
    was added (no seeding work: the printed frontier reads only the base)."""
    return expand(state, config_new), Work()
