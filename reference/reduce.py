"""Skip's reactive ``reduce`` combinator (Calcagno, *A Formal Semantics for
Skip's Reactive reduce Combinator*, Nov. 2025, and its earlier draft).
Catalog: ``spec/skip.toml``.

The one entry point for the paper: it re-exports :mod:`reference.skip`, whose
modules follow the paper's sections (see :mod:`reference.skip`). The names and
argument orders are the paper's: collections (Def. 1), pairwise commutativity
(Def. 2), folds (Def. 3, Thm 1, Def. 4, Lemma 1), ``reduce`` (Def. 5),
reducers (Def. 6), well-formedness (Def. 7 and its variants), deltas (Defs 8-9,
Remark 2), ``update`` (Def. 10), incremental correctness (Def. 11, Thm 2), and
the project's decisions (partial reducers, the observable view, built-ins).
"""

from reference.skip.builtins import BUILTINS, ILL_FORMED, WELL_FORMED, Builtin, Expected, builtin
from reference.skip.commutativity import (
    CommutativityWitness,
    EnumerationWitness,
    check_distributive,
    check_enumeration_independence,
    check_fold_union,
    check_pairwise_commutative,
    commutativity_witness,
    enumeration_witness,
)
from reference.skip.core import (
    Collection,
    Declined,
    Delta,
    InvalidDelta,
    Reducer,
    apply_delta,
    check_valid,
    collection_of,
    delta_between,
    delta_of,
    fold,
    fold_seq,
    is_valid,
    reduce,
    reduce_at,
    strict_remove,
    update,
    values_at,
)
from reference.skip.partial import declines, lifted_remove, update_or_recompute
from reference.skip.view import total_view, update_view, view_changes
from reference.skip.wellformed import (
    IncorrectUpdate,
    InverseLawFailure,
    Reachable,
    check_globally_well_formed,
    check_incremental_correctness,
    check_reducer,
    check_remove_add_commutative,
    check_skipdoc_well_formed,
    check_total,
    check_well_formed,
    decide_incremental_correctness,
    ill_formedness_witness,
    incorrect_update,
    inverse_law_fails,
    is_well_formed,
    reachable_accumulators,
    theorem_2_witness,
    well_formedness_failure,
)

__all__ = [
    "BUILTINS", "ILL_FORMED", "WELL_FORMED", "Builtin", "Expected", "builtin",
    "CommutativityWitness", "EnumerationWitness", "check_distributive", "check_enumeration_independence",
    "check_fold_union", "check_pairwise_commutative", "commutativity_witness",
    "enumeration_witness",
    "Collection", "Declined", "Delta", "InvalidDelta", "Reducer", "apply_delta", "check_valid",
    "collection_of", "delta_between", "delta_of", "fold", "fold_seq", "is_valid", "reduce",
    "reduce_at", "strict_remove", "update", "values_at",
    "declines", "lifted_remove", "update_or_recompute",
    "total_view", "update_view", "view_changes",
    "IncorrectUpdate", "InverseLawFailure", "Reachable", "check_globally_well_formed",
    "check_incremental_correctness", "check_reducer", "check_remove_add_commutative", "check_skipdoc_well_formed",
    "check_total", "check_well_formed", "decide_incremental_correctness", "ill_formedness_witness", "incorrect_update", "inverse_law_fails",
    "is_well_formed", "reachable_accumulators", "theorem_2_witness", "well_formedness_failure",
]
