"""Broken reducers: each fails a law the checker must find.

sum_remove_adds: remove adds instead of subtracting (a sign bug).
last_value: add keeps the last value seen: not pairwise commutative.
max_never_declines: max whose remove keeps the accumulator instead of declining:
  removing the maximum leaves a stale answer.
capped_count: a count that saturates at 3: ⊖ cannot undo a saturated ⊕.
min_declines_too_rarely: a partial min whose remove answers (wrongly) instead of
  declining when the minimum itself is removed.
sum_needle: a sum whose remove ignores one particular value (a needle for random search).
"""

from reference.reduce import Reducer


def _add(acc: int, v: int) -> int:
    return acc + v


#: Verdicts by hand: def2-add, def2-remove hold (a + v1 + v2); def7 FAILS at M = {||}, v = 1: (0 + 1) + 1 = 2;
#: def7-global, def7-skipdoc, def11 FAIL (the same instance); pure holds.
sum_remove_adds = Reducer(0, _add, _add, "sum_remove_adds")


def _last(acc: int, v: int) -> int:
    return v


def _keep(acc: int, v: int) -> int:
    return acc


#: Verdicts by hand: def2-add FAILS at a = 0, v1 = 0, v2 = 1 (1 against 0); def2-remove holds (identity);
#: def7 FAILS at M = {||}, v = 1 ((0 ⊕ 1) ⊖ 1 = 1); def7-global, def7-skipdoc (a = 0, v = 1:
#: add(remove(0, 1), 1) = 1), def11 FAIL; pure holds.
last_value = Reducer(0, _last, _keep, "last_value")


def _max(acc: int, v: int) -> int:
    return max(acc, v)


#: Verdicts by hand: def2-add, def2-remove hold (max; identity); def7 FAILS at M = {||}, v = 0: the stale
#: maximum 0 stays; def7-global, def7-skipdoc, def11 FAIL; pure holds.
max_never_declines = Reducer(-(10**9), _max, _keep, "max_never_declines")


def _capped_inc(acc: int, v: int) -> int:
    return min(acc + 1, 3)


def _dec(acc: int, v: int) -> int:
    return acc - 1


#: Verdicts by hand: def2-add, def2-remove hold (the value is ignored: both orders do the same two steps);
#: def7 FAILS at M = {|0, 0, 0|}, v = 0: 3 ⊕ 0 = 3, 3 ⊖ 0 = 2; def7-global, def7-skipdoc
#: (remove(add(3, 0), 0) = 2), def11 FAIL; pure holds.
capped_count = Reducer(0, _capped_inc, _dec, "capped_count")


def _min(acc: int, v: int) -> int:
    return min(acc, v)


def _decline_below(acc: int, v: int) -> int | None:
    return None if v < acc else acc  # should decline at v == acc too


#: partial, but declines too rarely: removing the minimum itself answers the stale minimum
#: Verdicts by hand: def2-add, def2-remove hold (min; answers leave a unchanged); def7 FAILS at M = {||},
#: v = 0: ι ⊕ 0 = 0, and removing 0 answers 0 (should decline) != ι; def7-global,
#: def7-skipdoc, def11 FAIL; pure holds.
min_declines_too_rarely = Reducer(10**9, _min, _decline_below, "min_declines_too_rarely")


def _sub_except_needle(acc: int, v: int) -> int:
    return acc if v == 40_961 else acc - v  # forgets one value: a needle random search misses


#: a sum whose remove is wrong on a single value; CrossHair's solver finds it
#: Verdicts by hand: def2-add, def2-remove hold; def7 FAILS at M = {||}, v = 40961 ((0 + 40961) ⊖ 40961 =
#: 40961), and so def7-global, def7-skipdoc and def11 (SKIP-THM-2); pure holds. Only
#: CrossHair finds the value (tests/check_reducer/test_symbolic.py).
sum_needle = Reducer(0, _add, _sub_except_needle, "sum_needle")
