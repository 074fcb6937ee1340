"""First-order int specialisations of the paper's laws, for CrossHair.

CrossHair analyses top-level, typed functions and cannot see through closures
or type variables, so each law is written here for one built-in, calling that
built-in's own operations (:mod:`reference.skip.builtins`). Each function
returns whether the law holds at its arguments and carries the PEP 316
contract ``post: __return__``; ``pre:`` lines bound the domain (for example
V = naturals). Multisets are spelled out as a few int arguments, so a law over
fold_⊕(ι, M) is checked for |M| up to the number of arguments only.

``HOLDS`` lists the laws CrossHair should find no counterexample for (which is
not a proof); ``FAILS`` lists the laws of ill-formed reducers it must refute,
each the broken twin of a law in ``HOLDS`` (a symbolic check shown failing).
"""

from __future__ import annotations

from reference.skip.builtins import (
    affine_add,
    bad_remove,
    count_add,
    count_remove,
    keep_remove,
    min_remove_below,
    monus_remove,
    sum_add,
    sum_remove,
    xor_op,
)
from reference.skip.partial import min_add, min_remove

# --- SKIP-DEF-2: pairwise commutativity ------------------------------------------


def sum_add_commutes(a: int, v1: int, v2: int) -> bool:
    """
    post: __return__
    """
    return sum_add(sum_add(a, v1), v2) == sum_add(sum_add(a, v2), v1)


def affine_add_commutes(a: int, v1: int, v2: int) -> bool:
    """Broken twin of :func:`sum_add_commutes`: 2a + v is not pairwise commutative.

    post: __return__
    """
    return affine_add(affine_add(a, v1), v2) == affine_add(affine_add(a, v2), v1)


# --- SKIP-DEF-7-SKIPDOC: the Skip contract, both equations ----------------------------


def sum_skipdoc_law(a: int, v: int) -> bool:
    """
    post: __return__
    """
    return sum_add(sum_remove(a, v), v) == a and sum_remove(sum_add(a, v), v) == a


def count_skipdoc_law(a: int, v: int) -> bool:
    """
    post: __return__
    """
    return count_add(count_remove(a, v), v) == a and count_remove(count_add(a, v), v) == a


def xor_skipdoc_law(a: int, v: int) -> bool:
    """
    post: __return__
    """
    return xor_op(xor_op(a, v), v) == a and xor_op(xor_op(a, v), v) == a


def min_skipdoc_law(a: int, v: int) -> bool:
    """Skip's Min: each equation holds or ``remove`` declines (None).

    post: __return__
    """
    removed = min_remove(a, v)
    first = removed is None or min_add(removed, v) == a
    back = min_remove(min_add(a, v), v)
    return first and (back is None or back == a)


def sum_monus_nat_global_law(a: int, v: int) -> bool:
    """sum_monus over naturals satisfies the global law (SKIP-DEF-7-GLOBAL).

    pre: a >= 0 and v >= 0
    post: __return__
    """
    return monus_remove(sum_add(a, v), v) == a


def sum_monus_nat_skipdoc_law(a: int, v: int) -> bool:
    """Broken twin: the same reducer breaks the Skip contract (a = 0, v = 1).

    pre: a >= 0 and v >= 0
    post: __return__
    """
    return sum_add(monus_remove(a, v), v) == a and monus_remove(sum_add(a, v), v) == a


# --- SKIP-DEF-7 (reachable) against SKIP-DEF-7-GLOBAL ---------------------------------


def sum_monus_reachable_law(x1: int, x2: int, v: int) -> bool:
    """Def. 7 for sum_monus at a = fold_⊕(0, {x1, x2}), V = naturals (|M| <= 2).

    pre: x1 >= 0 and x2 >= 0 and v >= 0
    post: __return__
    """
    a = sum_add(sum_add(0, x1), x2)
    return monus_remove(sum_add(a, v), v) == a


def sum_monus_int_global_law(a: int, v: int) -> bool:
    """Broken twin: over all int accumulators the global law fails (a < 0 is unreachable).

    pre: v >= 0
    post: __return__
    """
    return monus_remove(sum_add(a, v), v) == a


# --- SKIP-THM-2 / SKIP-DEF-11 instances: update equals recomputation ------------------


def sum_update_matches_recompute(m1: int, m2: int, d: int, p: int) -> bool:
    """C(k) = {m1, m2, d}, Δ⁻(k) = {d}, Δ⁺(k) = {p}: update_R equals recomputation.

    post: __return__
    """
    a = sum_add(sum_add(sum_add(0, m1), m2), d)
    updated = sum_add(sum_remove(a, d), p)
    return updated == sum_add(sum_add(sum_add(0, m1), m2), p)


def sum_bad_remove_update_matches_recompute(m1: int, m2: int, d: int, p: int) -> bool:
    """Broken twin: the ill-formed sum_bad_remove (⊖ = a - 2v) updates wrongly.

    post: __return__
    """
    a = sum_add(sum_add(sum_add(0, m1), m2), d)
    updated = sum_add(bad_remove(a, d), p)
    return updated == sum_add(sum_add(sum_add(0, m1), m2), p)


def min_update_matches_recompute(m1: int, m2: int, d: int) -> bool:
    """SKIP-DEC-PARTIAL for Skip's Min: C(k) = {m1, m2, d}, Δ⁻(k) = {d}; recompute on decline.

    post: __return__
    """
    a = min_add(min_add(min_add(float("inf"), m1), m2), d)
    removed = min_remove(a, d)
    updated = removed if removed is not None else min(m1, m2)
    return updated == min(m1, m2)


def min_never_declines_update_matches_recompute(m1: int, m2: int, d: int) -> bool:
    """Broken twin: a min whose remove keeps the minimum misses the removal of it.

    post: __return__
    """
    a = min_add(min_add(min_add(float("inf"), m1), m2), d)
    return keep_remove(a, d) == min(m1, m2)


def min_declines_below_update_matches_recompute(m1: int, m2: int, d: int) -> bool:
    """Broken twin: declining only when v < a misses removing the minimum itself.

    post: __return__
    """
    a = min_add(min_add(min_add(float("inf"), m1), m2), d)
    removed = min_remove_below(a, d)
    updated = removed if removed is not None else min(m1, m2)
    return updated == min(m1, m2)


HOLDS: tuple[str, ...] = (
    "sum_add_commutes",
    "sum_skipdoc_law",
    "count_skipdoc_law",
    "xor_skipdoc_law",
    "min_skipdoc_law",
    "sum_monus_nat_global_law",
    "sum_monus_reachable_law",
    "sum_update_matches_recompute",
    "min_update_matches_recompute",
)
FAILS: tuple[str, ...] = (
    "affine_add_commutes",
    "sum_monus_nat_skipdoc_law",
    "sum_monus_int_global_law",
    "sum_bad_remove_update_matches_recompute",
    "min_never_declines_update_matches_recompute",
    "min_declines_below_update_matches_recompute",
)
