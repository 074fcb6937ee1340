"""Every reducer on tiny finite carriers, with all its verdicts computed once per
test session (the exhaustive checks of SKIP §4-5 read from it).

Carriers: A = Z_n, V = Z_m for (n, m) in CARRIERS, every ι, every total ⊕ and
every ⊖ (total: 512 + 2187 reducers; with a declining ⊖: 2592 + 5184).
Def. 7, the global law, the Skip contract and Def. 6 are *decided* there;
Def. 11 is checked twice: by enumeration for |C(k)| <= n + 1 and |Δ⁺(k)| <= 1
(enough to expose every failure of Def. 7: reachable accumulators need at most
n - 1 additions, and the Theorem 2 witness adds one value), and, for the
pairwise commutative ones, decided by ``decide_incremental_correctness``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from reference.reduce import (
    Reducer,
    check_globally_well_formed,
    check_incremental_correctness,
    check_reducer,
    check_skipdoc_well_formed,
    check_total,
    check_well_formed,
    decide_incremental_correctness,
)
from reference.skip.carriers import all_operations, all_partial_operations
from reference.verdict import Verdict

CARRIERS = ((2, 2), (3, 1))


@dataclass(frozen=True)
class Census:
    reducer: Reducer[int, int]
    n: int
    m: int
    commutative: bool  # SKIP-DEF-6 (decided)
    total: bool
    well_formed: Verdict  # SKIP-DEF-7 (decided)
    globally: bool  # SKIP-DEF-7-GLOBAL (decided)
    skipdoc: bool  # SKIP-DEF-7-SKIPDOC (decided)
    incremental: Verdict  # SKIP-DEF-11 (bounded)
    incremental_decided: Verdict | None  # SKIP-DEF-11 (decided; for commutative ones only)


def _census(R: Reducer[int, int], n: int, m: int) -> Census:
    A, V = tuple(range(n)), tuple(range(m))
    commutative = check_reducer(R, A, V, exhaustive=True).holds
    return Census(
        R, n, m,
        commutative=commutative,
        total=check_total(R, A, V, exhaustive=True).holds,
        well_formed=check_well_formed(R, V, n, exhaustive=True),
        globally=check_globally_well_formed(R, A, V, exhaustive=True).holds,
        skipdoc=check_skipdoc_well_formed(R, A, V, exhaustive=True).holds,
        incremental=check_incremental_correctness(R, V, n + 1, 1),
        incremental_decided=decide_incremental_correctness(R, A, V) if commutative else None,
    )


@cache
def census(partial: bool) -> tuple[Census, ...]:
    """Every reducer on the tiny carriers; ``partial`` lets ⊖ decline (None)."""
    rows = []
    for n, m in CARRIERS:
        removes = all_partial_operations(n, m) if partial else all_operations(n, m)
        adds = list(all_operations(n, m))
        for remove in removes:
            for add in adds:
                for initial in range(n):
                    rows.append(_census(Reducer(initial, add, remove), n, m))
    return tuple(rows)
