"""§3.2 "Algorithms": expansion (BFS) and contraction (worklist cascade with
re-derivation), with the gaps of the printed pseudo-code settled:

* FIX-DEC-EXPAND-SEED: the expansion frontier is F'(current) \\ current, i.e.
  the new base elements *and* the targets of new step pairs out of live
  elements (§4.2 seeds E from R → E; the printed code seeds only new base);
* FIX-DEC-REDERIVE-RANK: every element added (by expansion or re-derivation)
  gets 1 + the least rank of its live derivers (base elements 0), so the
  rank invariant FIX-DEC-RANK-INVARIANT survives every operation (the printed
  code restarts ranks at 0 when it re-derives).

The printed pseudo-code itself is kept, as evidence, in
:mod:`reference.fixpoint.printed`.

Work counters (FIX-CLAIM-COMPLEXITY) count what the *algorithm examines*:
``elements_visited`` (frontier elements settled, worklist pops, dying elements
examined for re-derivation) and ``edges_scanned`` (pairs (x, y) read through
stepFwd or stepInv). The state is persistent (FIX-DEC-PERSISTENT-STATE): an
update writes only the elements it settles, removes or re-ranks, each in
O(log |current|), and shares the rest with the state it started from, so its
cost is the counted work times a logarithm, not O(|current|).
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from itertools import count

from reference.algebra.persistent import PMap, PSet
from reference.fixpoint.general_pattern import Elem, Operator, StepFwd

INFINITE_RANK = float("inf")


@dataclass(frozen=True)
class Config:
    """§3.1.2 "Configuration (User Provides)": base (required), stepFwd
    (required) and stepInv (for contraction; FIX-REM-1). ``step_inv`` may be
    ``None`` in the simple API or when the system derives it from stepFwd."""

    base: frozenset[Elem]
    step_fwd: StepFwd
    step_inv: StepFwd | None = None

    def operator(self) -> Operator:
        """F(S) = base ∪ step(S) (§3.1.2)."""
        return Operator(self.base, self.step_fwd)


@dataclass(frozen=True)
class State:
    """§3.1.3 "State (System Maintains)": current = lfp(F), and rank ("BFS
    distance from base", for contraction). ``rank`` is defined exactly on
    ``current``.

    Persistent (FIX-DEC-PERSISTENT-STATE): ``live`` is current as a persistent
    set and ``rank`` a persistent map, so the algorithms build the next state by
    changing only what they touch, and every earlier state stays valid.
    ``current`` is ``live`` as a frozenset, built when first asked for."""

    live: PSet[Elem] = field(default_factory=PSet)
    rank: PMap[Elem, int] = field(default_factory=PMap)

    @cached_property
    def current(self) -> frozenset[Elem]:
        return frozenset(self.live)


@dataclass(frozen=True)
class Work:
    """What one phase of an update examined (see the module docstring)."""

    elements_visited: int = 0
    edges_scanned: int = 0

    def __add__(self, other: Work) -> Work:
        return Work(self.elements_visited + other.elements_visited,
                    self.edges_scanned + other.edges_scanned)


@dataclass(frozen=True)
class UpdateWork:
    """Work of one update, by phase: expansion, cascade (contraction phase 1),
    re-derivation (contraction phase 2, its expansion included in ``expansion``)."""

    expansion: Work = Work()
    cascade: Work = Work()
    rederivation: Work = Work()

    @property
    def total(self) -> Work:
        return self.expansion + self.cascade + self.rederivation

    def __add__(self, other: UpdateWork) -> UpdateWork:
        return UpdateWork(self.expansion + other.expansion, self.cascade + other.cascade,
                          self.rederivation + other.rederivation)

    def as_mapping(self) -> dict[str, int]:
        """The counters as the conformance protocol's ``work`` mapping."""
        t = self.total
        return {
            "elements_visited": t.elements_visited, "edges_scanned": t.edges_scanned,
            "expansion_elements": self.expansion.elements_visited,
            "expansion_edges": self.expansion.edges_scanned,
            "cascade_elements": self.cascade.elements_visited,
            "cascade_edges": self.cascade.edges_scanned,
            "rederive_elements": self.rederivation.elements_visited,
            "rederive_edges": self.rederivation.edges_scanned,
        }


def rank_of(rank: Mapping[Elem, int], x: Elem) -> float:
    """rank[x], or ∞ for an element without a rank."""
    r = rank.get(x)
    return INFINITE_RANK if r is None else r


def freeze(current: Iterable[Elem], rank: Mapping[Elem, int]) -> State:
    """The state with this live set and these ranks (built whole: O(|current|))."""
    return State(PSet(current), PMap(rank))


# --- expansion ---------------------------------------------------------------


def expansion_frontier(
    state: State,
    added_to_base: Iterable[Elem] = (),
    added_to_step: Iterable[tuple[Elem, Elem]] = (),
) -> tuple[dict[Elem, int], Work]:
    """FIX-DEC-EXPAND-SEED: the seeds of expansion with their ranks:
    new base elements not live (rank 0), and y for each added pair (x, y) with
    x live and y not live (rank 1 + rank[x], least over such x). As a set this
    is F'(current) \\ current when current = lfp(F) and the added pairs are
    exactly stepFwd' \\ stepFwd (Lean ``expansionDelta``). Only the added base
    elements are examined (base ⊆ current before), not the whole base."""
    seeds: dict[Elem, int] = {}
    elements = edges = 0
    for b in added_to_base:
        elements += 1
        if b not in state.live:
            seeds[b] = 0
    for x, y in added_to_step:
        edges += 1
        if x in state.live and y not in state.live:
            r = state.rank[x] + 1
            if r < seeds.get(y, r + 1):
                seeds[y] = r
    return seeds, Work(elements, edges)


def rerank_new_base(state: State, added_to_base: Iterable[Elem]) -> State:
    """A live element that becomes a base element gets rank 0 (clause I2 of
    FIX-DEC-RANK-INVARIANT; lowering a rank never breaks clause I3)."""
    lowered = [b for b in added_to_base if b in state.live and state.rank[b] != 0]
    if not lowered:
        return state
    rank = state.rank.evolver()
    for b in lowered:
        rank[b] = 0
    return State(state.live, rank.persistent())


@dataclass(frozen=True)
class Expansion:
    state: State
    added: tuple[Elem, ...]  # in the order they were settled
    work: Work
    trace: tuple[frozenset[Elem], ...] = ()  # current after each settled element (record=True)


def expand(state: State, config_new: Config, frontier: Mapping[Elem, int],
           record: bool = False) -> Expansion:
    """FIX-ALG-EXPAND (corrected): BFS from ``frontier`` (element -> tentative
    rank), settling elements in rank order; each settled element x gets the
    least tentative rank offered, i.e. 1 + min rank of its live derivers
    (FIX-DEC-REDERIVE-RANK), and offers rank[x] + 1 to stepFwd'(x) \\ current.
    Cost O(|new| + |edges from new|) (times log |frontier| for the queue, and
    log |current| for the persistent state)."""
    live, rank = state.live.evolver(), state.rank.evolver()
    tie = count()
    queue = [(r, next(tie), x) for x, r in frontier.items()]
    heapq.heapify(queue)
    added: list[Elem] = []
    trace: list[frozenset[Elem]] = []
    elements = edges = 0
    while queue:
        r, _, x = heapq.heappop(queue)
        if x in live:
            continue  # already settled with a rank <= r
        elements += 1
        live.add(x)
        rank[x] = r
        added.append(x)
        if record:
            trace.append(frozenset(live.persistent()))
        for y in config_new.step_fwd(x):
            edges += 1
            if y not in live:
                heapq.heappush(queue, (r + 1, next(tie), y))
    return Expansion(State(live.persistent(), rank.persistent()), tuple(added),
                     Work(elements, edges), tuple(trace))


# --- contraction -------------------------------------------------------------


def lost_support(
    state: State,
    removed_from_base: Iterable[Elem] = (),
    removed_from_step: Iterable[tuple[Elem, Elem]] = (),
) -> tuple[tuple[Elem, ...], Work]:
    """The initial worklist of contraction, "{x | x lost support}": live
    elements removed from base, and y for each removed pair (x, y) with x and y
    live (a pair out of a dead x supported nothing)."""
    out: dict[Elem, None] = {}
    elements = edges = 0
    for b in removed_from_base:
        elements += 1
        if b in state.live:
            out[b] = None
    for x, y in removed_from_step:
        edges += 1
        if x in state.live and y in state.live:
            out[y] = None
    return tuple(out), Work(elements, edges)


@dataclass(frozen=True)
class Contraction:
    state: State
    dying: frozenset[Elem]  # removed by the cascade (phase 1)
    rederived: tuple[Elem, ...]  # added back by phase 2's expansion
    cascade_work: Work
    rederive_work: Work  # the scan of dying elements and their derivers
    expansion_work: Work  # phase 2's expansion
    trace: tuple[frozenset[Elem], ...] = ()  # current \ dying after each death, then expansion


def cascade(state: State, config_new: Config, worklist: Iterable[Elem],
            record: bool = False) -> tuple[frozenset[Elem], Work, tuple[frozenset[Elem], ...]]:
    """FIX-ALG-CONTRACT phase 1: the worklist cascade. Pops x; x survives if it
    is in base' or has a deriver y ∈ current \\ dying with rank[y] < rank[x];
    otherwise x dies and its dependents (stepFwd'(x)) join the worklist.
    When the rank invariant holds before, the survivors are exactly the
    well-founded cascade fixpoint of FIX-DEF-7 with these ranks (FIX-DEC-GAP).
    Returns (dying, work, trace)."""
    assert config_new.step_inv is not None, "contraction needs stepInv (FIX-REM-1)"
    step_inv = config_new.step_inv
    current, rank = state.live, state.rank
    queue = deque(worklist)
    dying: set[Elem] = set()
    trace: list[frozenset[Elem]] = []
    elements = edges = 0
    while queue:
        x = queue.popleft()
        elements += 1
        if x in dying or x in config_new.base or x not in current:
            continue
        rx = rank_of(rank, x)
        has_support = False
        for y in step_inv(x):
            edges += 1
            if y in current and y not in dying and rank_of(rank, y) < rx:
                has_support = True
                break
        if not has_support:
            dying.add(x)
            if record:
                trace.append(state.current - dying)
            for z in config_new.step_fwd(x):
                edges += 1
                if z in current and z not in dying:
                    queue.append(z)
    return frozenset(dying), Work(elements, edges), tuple(trace)


def without(state: State, dying: frozenset[Elem]) -> State:
    """``state.current -= dying`` (the end of phase 1), with the ranks of the survivors."""
    live, rank = state.live.evolver(), state.rank.evolver()
    for x in dying:
        live.discard(x)
        rank.discard(x)
    return State(live.persistent(), rank.persistent())


def rederive_frontier(state_after: State, config_new: Config,
                      dying: Iterable[Elem]) -> tuple[dict[Elem, int], Work]:
    """FIX-ALG-CONTRACT phase 2 frontier, with FIX-DEC-REDERIVE-RANK: each
    y ∈ dying with a surviving deriver, at rank 1 + min{rank[x] | x ∈ stepInv'(y)
    surviving}. Scans every deriver of every dying element (the printed code
    stops at the first): O(|dying| + |edges to dying|)."""
    assert config_new.step_inv is not None
    frontier: dict[Elem, int] = {}
    elements = edges = 0
    for y in dying:
        elements += 1
        best: int | None = None
        for x in config_new.step_inv(y):
            edges += 1
            if x in state_after.live:
                r = state_after.rank[x] + 1
                best = r if best is None else min(best, r)
        if best is not None:
            frontier[y] = best
    return frontier, Work(elements, edges)


def contract(state: State, config_new: Config, worklist: Iterable[Elem],
             record: bool = False) -> Contraction:
    """FIX-ALG-CONTRACT (corrected): cascade with the (possibly stale) ranks,
    then re-derive from the removed elements that a survivor still derives,
    assigning ranks by FIX-DEC-REDERIVE-RANK. Correct when the rank invariant
    FIX-DEC-RANK-INVARIANT holds before: the worklist only examines elements
    that lost a deriver, so with arbitrary ranks an unreachable cycle can keep
    itself (FIX-DEC-GAP; :mod:`reference.fixpoint.symbolic`). It is Def. 7's
    set-level cascade-then-re-derive that is correct for any ranks
    (FIX-THM-CASCADE-REDERIVE); under the invariant the ranks only decide how
    much is removed and re-derived."""
    dying, cascade_work, cascade_trace = cascade(state, config_new, worklist, record)
    after = without(state, dying)
    frontier, rederive_work = rederive_frontier(after, config_new, dying)
    expansion = expand(after, config_new, frontier, record)
    return Contraction(expansion.state, dying, expansion.added, cascade_work, rederive_work,
                       expansion.work, cascade_trace + expansion.trace)


# --- one applyDelta: contraction for the removals, then expansion for the additions ---


def expansion_phase(state: State, config_new: Config, added_to_base: tuple[Elem, ...],
                    added_to_step: tuple[tuple[Elem, Elem], ...]) -> tuple[Expansion, Work]:
    """The expansion of an update: new base elements ranked 0 (FIX-DEC-RANK-INVARIANT),
    the frontier of FIX-DEC-EXPAND-SEED, then FIX-ALG-EXPAND; with the seeding work."""
    state = rerank_new_base(state, added_to_base)
    frontier, seed_work = expansion_frontier(state, added_to_base, added_to_step)
    return expand(state, config_new, frontier), seed_work


Contract = Callable[[State, Config, Iterable[Elem]], Contraction]
ExpansionPhase = Callable[[State, Config, tuple[Elem, ...], tuple[tuple[Elem, Elem], ...]],
                          tuple[Expansion, Work]]


@dataclass(frozen=True)
class Applied:
    """The result of :func:`apply_delta`: the new state, the elements the update
    touched (removed by the cascade, re-derived, or added by expansion), and its work."""

    state: State
    touched: frozenset[Elem]
    work: UpdateWork


def apply_delta(
    state: State,
    config_mid: Config,
    config_new: Config,
    removed_from_base: Iterable[Elem] = (),
    removed_from_step: Iterable[tuple[Elem, Elem]] = (),
    added_to_base: Iterable[Elem] = (),
    added_to_step: Iterable[tuple[Elem, Elem]] = (),
    contraction: Contract = contract,
    expansion: ExpansionPhase = expansion_phase,
) -> Applied:
    """§3.1.4 ``applyDelta`` on the state: FIX-ALG-CONTRACT for the removals under
    ``config_mid`` (the old configuration with them applied), then FIX-ALG-EXPAND
    for the additions under ``config_new`` (FIX-DEC-BATCH's order). The caller
    gives the net change (nothing both removed and added). ``contraction`` and
    ``expansion`` are the corrected algorithms; :mod:`reference.fixpoint.printed`
    passes the printed ones (FIX-DEC-PRINTED-VARIANT)."""
    removed_from_base, removed_from_step = tuple(removed_from_base), tuple(removed_from_step)
    added_to_base, added_to_step = tuple(added_to_base), tuple(added_to_step)
    touched: set[Elem] = set()
    work = UpdateWork()
    if removed_from_base or removed_from_step:
        worklist, seed_work = lost_support(state, removed_from_base, removed_from_step)
        c = contraction(state, config_mid, worklist)
        state = c.state
        touched |= c.dying
        touched.update(c.rederived)
        work += UpdateWork(expansion=c.expansion_work, cascade=seed_work + c.cascade_work,
                           rederivation=c.rederive_work)
    if added_to_base or added_to_step:
        e, seed_work = expansion(state, config_new, added_to_base, added_to_step)
        state = e.state
        touched.update(e.added)
        work += UpdateWork(expansion=seed_work + e.work)
    return Applied(state, frozenset(touched), work)
