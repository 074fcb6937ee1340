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


sum_remove_adds = Reducer(0, _add, _add, "sum_remove_adds")


def _last(acc: int, v: int) -> int:
    return v


def _keep(acc: int, v: int) -> int:
    return acc


last_value = Reducer(0, _last, _keep, "last_value")


def _max(acc: int, v: int) -> int:
    return max(acc, v)


max_never_declines = Reducer(-(10**9), _max, _keep, "max_never_declines")


def _capped_inc(acc: int, v: int) -> int:
    return min(acc + 1, 3)


def _dec(acc: int, v: int) -> int:
    return acc - 1


capped_count = Reducer(0, _capped_inc, _dec, "capped_count")


def _min(acc: int, v: int) -> int:
    return min(acc, v)


def _decline_below(acc: int, v: int) -> int | None:
    return None if v < acc else acc  # should decline at v == acc too


#: partial, but declines too rarely: removing the minimum itself answers the stale minimum
min_declines_too_rarely = Reducer(10**9, _min, _decline_below, "min_declines_too_rarely")


def _sub_except_needle(acc: int, v: int) -> int:
    return acc if v == 40_961 else acc - v  # forgets one value: a needle random search misses


#: a sum whose remove is wrong on a single value; CrossHair's solver finds it
sum_needle = Reducer(0, _add, _sub_except_needle, "sum_needle")
