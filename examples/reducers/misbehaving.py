"""Reducers that raise or hang, and reducers broken by bounded arithmetic.

Each reducer has its verdicts derived by hand, line by line, in the comment above it.
A line on which add or remove raised (or hung) is an ERROR line (RAISED / HUNG in
the table, with the call and its arguments), not a verdict on the law; where a runtime
meets the instance the reducer is not well-formed (exit 1: a runtime's update would
raise or hang there).
"""

from __future__ import annotations


def _plus(acc: int, v: int) -> int:
    return acc + v


def _minus_but_not_three(acc: int, v: int) -> int:
    if v == 3:
        raise ValueError("three is not supported")
    return acc - v


#: A sum whose remove raises on the value 3 (check with --values 'int[0..3]').
#:   def2-add holds (add never raises).
#:   Every other line calls remove(·, 3) on some instance: def2-remove, def7, def7-global,
#:   def7-skipdoc, def11 and pure RAISE. SKIP-DEF-7's instance M = {||}, v = 3 is one a
#:   runtime meets (C(k) = {|3|}, remove 3), so the advice is to fix remove. exit 1.
raises_on_three = (0, _plus, _minus_but_not_three)


def _minus_spinning_on_two(acc: int, v: int) -> int:
    while v == 2:  # a hang
        pass
    return acc - v


#: A sum whose remove loops forever on the value 2 (check with --values 'int[0..3]'
#: --call-timeout 0.5).
#:   def2-add holds. def2-remove, def7, def7-global, def7-skipdoc, def11 and pure HANG
#:   (each calls remove(·, 2) on some instance); the table says HUNG in remove. exit 1
#:   (SKIP-DEF-7's M = {||}, v = 2 is one a runtime meets).
hangs_on_two = (0, _plus, _minus_spinning_on_two)


def _clamped_add(acc: int, v: int) -> int:
    return min(acc + v, 10)


def _clamped_remove(acc: int, v: int) -> int:
    return max(acc - v, 0)


#: A sum clamped to [0, 10] (check with --values 'int[0..5]' --acc 'int[0..10]').
#:   def2-add holds, decided: min(min(a + v1, 10) + v2, 10) = min(a + v1 + v2, 10) for v2 >= 0.
#:   def2-remove holds, decided: max(max(a - v1, 0) - v2, 0) = max(a - v1 - v2, 0).
#:   def7 FAILS at M = {|1, 5|}, v = 5: a = 6, 6 ⊕ 5 = 10 (clamped), 10 ⊖ 5 = 5 != 6.
#:   def7-global FAILS (a = 6, v = 5). def7-skipdoc FAILS at a = 0, v = 1: remove gives 0,
#:   add gives 1 != 0. def11 FAILS (C(k) = {|1, 5, 5|}, Δ⁻ = {|5, 5|}: recompute 1,
#:   update 0). pure holds, decided.
clamped_sum = (0, _clamped_add, _clamped_remove)


def _mean_add(acc: tuple[float, int], v: float) -> tuple[float, int]:
    mean, n = acc
    return ((mean * n + v) / (n + 1), n + 1)


def _mean_remove(acc: tuple[float, int], v: float) -> tuple[float, int]:
    mean, n = acc
    if n <= 1:
        return (0.0, 0)
    return ((mean * n - v) / (n - 1), n - 1)


#: A running mean (mean, count) over floats. Check with --acc 'tuple[float,int[1..3]]':
#: counts from 1 to 3 (initial (0.0, 0) is not among them: the checker adds it, and says
#: so). Every law but pure fails, by rounding (the report re-runs each instance in exact
#: rationals), except def7-skipdoc, which fails in exact arithmetic too:
#:   def2-add FAILS at a = (0.1, 1), v1 = 0.1, v2 = 1.0: mean 0.39999999999999997 one way,
#:   0.4000000000000001 the other.
#:   def2-remove FAILS at a = (0.1, 3), v1 = -1.0, v2 = 1e16: mean -9999999999999998.0 one
#:   way, -1e16 the other (0.3 - v1 - v2 rounds differently in each order).
#:   def7 FAILS at M = {|0.1|}, v = 0.2: a = (0.1, 1); (a ⊕ 0.2) ⊖ 0.2 = (0.10000000000000003, 1).
#:   def7-global FAILS at a = (0.1, 1), v = 0.2 (the same). def7-skipdoc FAILS at
#:   a = (0.0, 0), v = 0.0: remove gives (0.0, 0), add gives (0.0, 1): removing from nothing.
#:   def11 FAILS at C(k) = {|0.1, 0.2|}, Δ⁻ = {|0.2|} (SKIP-THM-2 from def7). pure holds.
running_mean = ((0.0, 0), _mean_add, _mean_remove)
