"""First-order int specialisations of the fixpoint claims, for CrossHair.

The claims quantified over *rank functions* fit a symbolic search: the graph is
fixed (one of the paper's §4 graphs, written out below from the paper's text),
and the ranks are int arguments, unbounded and negative ones included. Only
the order between the ranks matters to the algorithms, so on three to five
nodes CrossHair can explore every path. Each function returns whether the
claim holds at its arguments and carries ``post: __return__``; ``pre:`` lines
state hypotheses (the rank invariant before the update).

``HOLDS`` lists the claims CrossHair should find no counterexample for (which
is not a proof: the tests say whether it exhausted the paths); ``FAILS`` lists
their broken twins (no re-derivation, no invariant, the printed frontier and re-derivation),
which it must refute, so every symbolic check is shown able to fail.
"""

from __future__ import annotations

from reference.fixpoint.algorithms import Config, contract, expand, expansion_frontier, freeze
from reference.fixpoint.correctness import check_rank_invariant
from reference.fixpoint.formal_definitions import cascade_and_rederive, wf_cascade_fix
from reference.fixpoint.general_pattern import (
    Edge,
    Elem,
    graph_operator,
    lookup,
    predecessors,
    successors,
)
from reference.fixpoint.printed import contract as printed_contract
from reference.fixpoint.printed import expand as printed_expand

# §4.4: R -> A, A -> B, B -> A; remove R -> A. "Result: current = {R}".
CYCLE_BEFORE: tuple[Edge, ...] = (("R", "A"), ("A", "B"), ("B", "A"))
CYCLE_AFTER: tuple[Edge, ...] = (("A", "B"), ("B", "A"))
CYCLE_LFP_BEFORE = frozenset({"R", "A", "B"})
CYCLE_LFP_AFTER = frozenset({"R"})

# §4.5: R -> B, R -> C, C -> B; remove R -> B. "Result: current = {R, B, C}".
STALE_BEFORE: tuple[Edge, ...] = (("R", "B"), ("R", "C"), ("C", "B"))
STALE_AFTER: tuple[Edge, ...] = (("R", "C"), ("C", "B"))
STALE_LFP = frozenset({"R", "B", "C"})

ROOTS = frozenset({"R"})


def _config(edges: tuple[Edge, ...]) -> Config:
    return Config(ROOTS, lookup(successors(edges)), lookup(predecessors(edges)))


# §4.1-4.2: R -> A, A -> B, A -> D, B -> C, D -> B; add R -> E, E -> F.
SETUP: tuple[Edge, ...] = (("R", "A"), ("A", "B"), ("A", "D"), ("B", "C"), ("D", "B"))
SETUP_LFP = frozenset({"R", "A", "B", "C", "D"})
EXPANDED: tuple[Edge, ...] = (*SETUP, ("R", "E"), ("E", "F"))
EXPANDED_LFP = frozenset({"R", "A", "B", "C", "D", "E", "F"})
ADDED: tuple[Edge, ...] = (("R", "E"), ("E", "F"))

# --- FIX-THM-CASCADE-REDERIVE: Def. 7's cascade then re-derivation, any ranks ----------


def cascade_rederive_any_ranks_cycle(rank_r: int, rank_a: int, rank_b: int) -> bool:
    """§4.4 after removing R -> A: cascade_and_rederive gives {R} for every rank function.

    post: __return__
    """
    ranks: dict[Elem, int] = {"R": rank_r, "A": rank_a, "B": rank_b}
    return cascade_and_rederive(graph_operator(ROOTS, CYCLE_AFTER), CYCLE_LFP_BEFORE, ranks) == CYCLE_LFP_AFTER


def cascade_rederive_any_ranks_stale(rank_r: int, rank_b: int, rank_c: int) -> bool:
    """§4.5 after removing R -> B: cascade_and_rederive gives {R, B, C} for every rank function.

    post: __return__
    """
    ranks: dict[Elem, int] = {"R": rank_r, "B": rank_b, "C": rank_c}
    return cascade_and_rederive(graph_operator(ROOTS, STALE_AFTER), STALE_LFP, ranks) == STALE_LFP


def cascade_alone_any_ranks_stale(rank_r: int, rank_b: int, rank_c: int) -> bool:
    """Broken twin: Def. 7's cascade without re-derivation is not correct for every
    rank function (§4.5's stale ranks, rank_c >= rank_b, delete B).

    post: __return__
    """
    ranks: dict[Elem, int] = {"R": rank_r, "B": rank_b, "C": rank_c}
    return wf_cascade_fix(graph_operator(ROOTS, STALE_AFTER), ranks, STALE_LFP) == STALE_LFP


# --- FIX-THM-1 with FIX-DEC-EXPAND-SEED: expansion from any admissible ranks ---------------


def expansion_under_invariant_setup(rank_r: int, rank_a: int, rank_b: int, rank_c: int,
                                    rank_d: int) -> bool:
    """§4.2: from any ranks satisfying the rank invariant on §4.1's graph, the
    expansion seeded per FIX-DEC-EXPAND-SEED gives {R, A, B, C, D, E, F}, with
    E at rank[R] + 1 and F at rank[R] + 2, and keeps the invariant.

    pre: rank_r == 0
    pre: rank_r < rank_a
    pre: rank_a < rank_b or rank_d < rank_b
    pre: rank_b < rank_c
    pre: rank_a < rank_d
    post: __return__
    """
    state = freeze(SETUP_LFP, {"R": rank_r, "A": rank_a, "B": rank_b, "C": rank_c, "D": rank_d})
    frontier, _ = expansion_frontier(state, (), ADDED)
    after = expand(state, _config(EXPANDED), frontier).state
    return (after.current == EXPANDED_LFP and after.rank["E"] == 1 and after.rank["F"] == 2
            and check_rank_invariant(after, _config(EXPANDED)).holds)


def printed_expansion_under_invariant_setup(rank_r: int, rank_a: int, rank_b: int, rank_c: int,
                                            rank_d: int) -> bool:
    """Broken twin: the printed frontier (new base elements only) misses E and F.

    pre: rank_r == 0
    pre: rank_r < rank_a
    pre: rank_a < rank_b or rank_d < rank_b
    pre: rank_b < rank_c
    pre: rank_a < rank_d
    post: __return__
    """
    state = freeze(SETUP_LFP, {"R": rank_r, "A": rank_a, "B": rank_b, "C": rank_c, "D": rank_d})
    return printed_expand(state, _config(EXPANDED)).state.current == EXPANDED_LFP


# --- FIX-DEC-GAP / FIX-DEC-RANK-INVARIANT: the worklist contraction needs the invariant --


def worklist_contract_under_invariant_cycle(rank_r: int, rank_a: int, rank_b: int) -> bool:
    """§4.4: from any ranks satisfying the rank invariant on the old graph (R a root at
    rank 0; A derived by R or B, B by A, each from a lower rank), the worklist
    contraction gives {R} and keeps the invariant.

    pre: rank_r == 0
    pre: rank_r < rank_a or rank_b < rank_a
    pre: rank_a < rank_b
    post: __return__
    """
    state = freeze(CYCLE_LFP_BEFORE, {"R": rank_r, "A": rank_a, "B": rank_b})
    after = contract(state, _config(CYCLE_AFTER), ("A",)).state
    return after.current == CYCLE_LFP_AFTER and check_rank_invariant(after, _config(CYCLE_AFTER)).holds


def worklist_contract_any_ranks_cycle(rank_r: int, rank_a: int, rank_b: int) -> bool:
    """Broken twin: without the invariant (rank_b < rank_a) B supports A and the
    unreachable cycle survives the worklist contraction.

    post: __return__
    """
    state = freeze(CYCLE_LFP_BEFORE, {"R": rank_r, "A": rank_a, "B": rank_b})
    return contract(state, _config(CYCLE_AFTER), ("A",)).state.current == CYCLE_LFP_AFTER


def worklist_contract_under_invariant_stale(rank_r: int, rank_b: int, rank_c: int) -> bool:
    """§4.5: from any ranks satisfying the rank invariant on the old graph, the
    worklist contraction (cascade, then re-derivation with FIX-DEC-REDERIVE-RANK)
    gives {R, B, C} and keeps the invariant.

    pre: rank_r == 0
    pre: rank_r < rank_b or rank_c < rank_b
    pre: rank_r < rank_c
    post: __return__
    """
    state = freeze(STALE_LFP, {"R": rank_r, "B": rank_b, "C": rank_c})
    after = contract(state, _config(STALE_AFTER), ("B",)).state
    return after.current == STALE_LFP and check_rank_invariant(after, _config(STALE_AFTER)).holds


def printed_contract_under_invariant_stale(rank_r: int, rank_b: int, rank_c: int) -> bool:
    """Broken twin: the printed re-derivation restarts ranks at 0 and breaks the
    invariant whenever B is re-derived (FIX-DEC-REDERIVE-RANK).

    pre: rank_r == 0
    pre: rank_r < rank_b or rank_c < rank_b
    pre: rank_r < rank_c
    post: __return__
    """
    state = freeze(STALE_LFP, {"R": rank_r, "B": rank_b, "C": rank_c})
    after = printed_contract(state, _config(STALE_AFTER), ("B",)).state
    return after.current == STALE_LFP and check_rank_invariant(after, _config(STALE_AFTER)).holds


HOLDS: tuple[str, ...] = (
    "expansion_under_invariant_setup",
    "cascade_rederive_any_ranks_cycle",
    "cascade_rederive_any_ranks_stale",
    "worklist_contract_under_invariant_cycle",
    "worklist_contract_under_invariant_stale",
)
FAILS: tuple[str, ...] = (
    "printed_expansion_under_invariant_setup",
    "cascade_alone_any_ranks_stale",
    "worklist_contract_any_ranks_cycle",
    "printed_contract_under_invariant_stale",
)
