"""§3.3 "Correctness and Analysis": the rank invariant the algorithms keep
(FIX-DEC-RANK-INVARIANT) and checkers of Theorems 1-3 on one update.

The invariant, for a state (current, rank) of a configuration (base, stepFwd):

* (I0) current = lfp(F);
* (I1) rank is defined exactly on current;
* (I2) rank[b] = 0 for every b ∈ base;
* (I3) every x ∈ current \\ base has a deriver y ∈ current (x ∈ stepFwd(y))
  with rank[y] < rank[x].

(I3) is what makes the worklist cascade equal to the well-founded cascade of
Def. 7 and lets cycles die (§3.2.3); it implies rank[x] >= BFS distance.
"""

from __future__ import annotations

from collections.abc import Iterable

from reference.fixpoint.algorithms import Config, State
from reference.fixpoint.general_pattern import Elem, lfp
from reference.verdict import Verdict, fails, holds


def check_rank_invariant(state: State, config: Config, derivers: Iterable[tuple[Elem, Elem]] | None = None) -> Verdict:
    """FIX-DEC-RANK-INVARIANT (I0)-(I3), decided on the given state.

    ``derivers``: the step relation as pairs (y, x) (DCE: the edges); when
    omitted it is read through ``config.step_fwd`` from the live elements."""
    sid, searched = "FIX-DEC-RANK-INVARIANT", f"|current| = {len(state.current)}"
    n = len(state.current)
    expected = lfp(config.operator())
    if state.current != expected:
        return fails(sid, searched, n, clause="I0", missing=expected - state.current,
                     extra=state.current - expected)
    if frozenset(state.rank) != state.current:
        return fails(sid, searched, n, clause="I1", ranked=frozenset(state.rank))
    for b in config.base:
        if state.rank.get(b, 0) != 0:
            return fails(sid, searched, n, clause="I2", element=b, rank=state.rank[b])
    pairs = derivers if derivers is not None else (
        (y, x) for y in state.current for x in config.step_fwd(y))
    best: dict[Elem, int] = {}
    for y, x in pairs:
        if y in state.current and x in state.current:
            best[x] = min(best.get(x, state.rank[y]), state.rank[y])
    for x in state.current - config.base:
        if not (x in best and best[x] < state.rank[x]):
            return fails(sid, searched, n, clause="I3", element=x, rank=state.rank[x],
                         least_deriver_rank=best.get(x))
    return holds(sid, searched, n, decided=True)
