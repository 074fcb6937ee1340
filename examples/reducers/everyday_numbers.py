"""Everyday reducers over numbers: sums, averages, products, modular and saturating
arithmetic, partial min/max, flags, the bugs people make in them.

Each comment derives the verdict by hand: whether ⊖ inverts ⊕ on the accumulators
folds from ι reach (SKIP-DEF-7), which by SKIP-THM-2 is whether incremental update
equals recomputation, and so the exit status of ``incspec check-reducer`` (0
well-formed and pure, 1 not); ``--strict`` also counts the stronger laws (the global
inverse law, Skip's contract) at accumulators no fold reaches. A witness is a
collection C(k) and a removal Δ⁻(k) on which update and recomputation differ, with
the key left non-empty (an emptied key leaves the view: SKIP-DEC-EMPTIED-KEY).
The expected exits are in ``everyday.toml``.
"""

from __future__ import annotations

import math
from fractions import Fraction


def _plus(acc: int, v: int) -> int:
    return acc + v


def _minus(acc: int, v: int) -> int:
    return acc - v


#: The integer sum. (Z, +) is a group acting on itself: every law holds at every
#: accumulator, reachable or not. exit 0; --strict 0.
total = (0, _plus, _minus)


def _avg_add(acc: tuple[Fraction, int], v: Fraction) -> tuple[Fraction, int]:
    return acc[0] + v, acc[1] + 1


def _avg_remove(acc: tuple[Fraction, int], v: Fraction) -> tuple[Fraction, int]:
    return acc[0] - v, acc[1] - 1


#: An average kept as (sum, count) over exact rationals (the view is sum / count). The
#: group Q × Z acts by (s, c) ⊕ v = (s + v, c + 1): (s + v - v, c + 1 - 1) = (s, c) at
#: every accumulator, and both operations commute. exit 0; --strict 0.
average = ((Fraction(0), 0), _avg_add, _avg_remove)


def _favg_add(acc: tuple[float, int], v: float) -> tuple[float, int]:
    return acc[0] + v, acc[1] + 1


def _favg_remove(acc: tuple[float, int], v: float) -> tuple[float, int]:
    return acc[0] - v, acc[1] - 1


#: The same average over floats. Float addition rounds: from the reachable (0.1, 1)
#: (fold of {0.1}), adding 0.2 gives 0.30000000000000004 and removing it gives
#: 0.10000000000000003 != 0.1. A witness: C(k) = {0.1, 0.2}, Δ⁻(k) = {0.2}: recompute
#: (0.1, 1), update (0.10000000000000003, 1). exit 1.
float_average = ((0.0, 0), _favg_add, _favg_remove)


def _times(acc: int, v: int) -> int:
    return acc * v


def _divide_or_decline(acc: int, v: int) -> int | None:
    return None if v == 0 else acc // v  # 0 cannot be divided out: recompute the key


#: A product of integers whose remove divides (exactly: the accumulator holds v as a
#: factor) and declines on 0. Reachable a = the product of M; (a · v) // v = a for v != 0,
#: and v = 0 declines: SKIP-DEF-7 holds. Both orders of two valid removals give a // (v1 v2)
#: exactly. exit 0. At accumulators that do not hold v as a factor (removing a value the
#: collection lacks) floor division loses: Skip's contract fails at a = 1, v = 2
#: (add(remove(1, 2), 2) = 0 != 1), and ⊖ does not commute at a = 1, v1 = 2, v2 = -1
#: (0 one way, -1 the other). --strict 1.
product = (1, _times, _divide_or_decline)

_WORD = 2**32


def _add_mod(acc: int, v: int) -> int:
    return (acc + v) % _WORD


def _remove_mod(acc: int, v: int) -> int:
    return (acc - v) % _WORD


#: A sum modulo 2^32 (a 32-bit checksum). Folds reach exactly [0, 2^32), where
#: ((a + v) - v) mod 2^32 = a: SKIP-DEF-7 holds; both operations commute everywhere.
#: exit 0. At a = -1, which no fold reaches, (a ⊕ v) ⊖ v = 2^32 - 1 != -1: the global law
#: and Skip's contract fail there. --strict 1.
sum_mod_2_32 = (0, _add_mod, _remove_mod)


def _saturating_add(acc: int, v: int) -> int:
    return min(acc + v, 255)


#: A counter saturating at 255, as an unsigned byte does (check with --values 'int[0..300]').
#: From ι = 0, adding 256 saturates at 255 and removing it gives -1 != 0: SKIP-DEF-7 fails at
#: M = {||}, v = 256. Witness keeping the key: C(k) = {0, 256}, Δ⁻(k) = {256}: recompute 0,
#: update -1. exit 1.
saturating_u8 = (0, _saturating_add, _minus)


def _capped_add(acc: int, v: int) -> int:
    return min(acc + v, 1000)


#: A total capped at 1000 (the issue's example). Values are all integers; the small probe
#: (-3..3) never reaches the cap, Hypothesis does: from ι, adding v > 1000 caps at 1000 and
#: removing v leaves 1000 - v != 0. SKIP-DEF-7 fails (e.g. M = {||}, v = 1001), and a = 1000
#: is reachable (fold of {1000}): no note may say otherwise. exit 1.
capped_total = (0, _capped_add, _minus)


def _min(acc: float, v: float) -> float:
    return min(acc, v)


def _decline_on_tie(acc: float, v: float) -> float | None:
    return None if v == acc else acc  # v > acc cannot be the minimum: it stays


#: A partial minimum (ι = inf) whose remove declines when v is the minimum and answers acc
#: otherwise. At a runtime every held value is >= the minimum, so v > a answers a, which is
#: right, and v == a declines (recompute). SKIP-DEF-7: a ⊕ v = min(a, v); if v <= a the
#: result is v and removing v declines; if v > a it is a and removing v answers a. Holds:
#: exit 0. Removing a value below the minimum (never held) answers a: Skip's contract fails
#: at a = inf, v = 0.0 (add(remove(inf, 0.0), 0.0) = 0.0 != inf). --strict 1.
partial_min = (math.inf, _min, _decline_on_tie)


def _max(acc: float, v: float) -> float:
    return max(acc, v)


def _decline_above(acc: float, v: float) -> float | None:
    return None if v > acc else acc  # should decline at v == acc too


#: A partial maximum (ι = -inf) declining only when v > acc: removing the maximum itself
#: answers the stale maximum. SKIP-DEF-7 fails at M = {||}, v = 0.0: ι ⊕ 0.0 = 0.0, and
#: removing 0.0 answers 0.0 != -inf. Witness keeping the key: C(k) = {-1.0, 0.0},
#: Δ⁻(k) = {0.0}: recompute -1.0, update 0.0. exit 1.
partial_max_stale = (-math.inf, _max, _decline_above)


def _or(acc: int, v: int) -> int:
    return acc | v


def _clear(acc: int, v: int) -> int:
    return acc & ~v


#: Feature flags as a bitmask: OR to add, clear the bits to remove. Clearing forgets that
#: another copy of v set the same bits: SKIP-DEF-7 fails at M = {1}, v = 1 ((1 | 1) & ~1 = 0
#: != 1). Witness: C(k) = {1, 1}, Δ⁻(k) = {1}: recompute 1, update 0. exit 1.
flags = (0, _or, _clear)


def _latest(acc: int, v: int) -> int:
    return max(acc, v)


def _keep(acc: int, v: int) -> int:
    return acc  # a removed login cannot change the latest one (wrong)


#: The latest login time (a max) whose remove keeps the accumulator. Removing the latest
#: leaves it: SKIP-DEF-7 fails at M = {||}, v = 1 (max(0, 1) = 1 kept, != 0). Witness keeping
#: the key: C(k) = {0, 1}, Δ⁻(k) = {1}: recompute 0, update 1. exit 1.
latest_login = (0, _latest, _keep)


def _add_abs(acc: int, v: int) -> int:
    return acc + abs(v)


#: A sum of absolute values whose remove forgot the abs. SKIP-DEF-7 fails at M = {||},
#: v = -1: 0 + 1 - (-1) = 2 != 0. Witness keeping the key: C(k) = {-1, 0}, Δ⁻(k) = {-1}:
#: recompute 0, update 2. exit 1.
abs_total = (0, _add_abs, _minus)


def _sub_floor_zero(acc: int, v: int) -> int:
    return max(acc - v, 0)


#: A balance that a removal never takes below zero (saturating at 0), over all integers.
#: Negative values make negative balances reachable: M = {-1} folds to -1, and
#: (-1 ⊕ 0) ⊖ 0 = max(-1, 0) = 0 != -1: SKIP-DEF-7 fails. A witness: C(k) = {-1, 0},
#: Δ⁻(k) = {0}: recompute -1, update 0. exit 1. (Over non-negative values it would be
#: well-formed: SKIP-CLAIM-DEF-7-IMPLIES-GLOBAL's sum_monus.)
floored_balance = (0, _plus, _sub_floor_zero)
