"""Accumulators people write: dicts, lists, sets, tuples of any length, Optional.

Their domains come from the type hints (bounded sizes: at most 3 elements, as the
report states). Each reducer has its verdicts derived by hand, line by line, in
the comment above it; "unreachable" accumulators are ones no fold of ⊕ from ι
builds (an unsorted list, a zero count), where only the stronger laws (the
draft's global law, Skip's contract) are asked to hold.
"""

from __future__ import annotations

from typing import Optional


def _hist_add(h: dict[int, int], v: int) -> dict[int, int]:
    return _with_count(h, v, h.get(v, 0) + 1)


def _hist_remove(h: dict[int, int], v: int) -> dict[int, int]:
    return _with_count(h, v, h.get(v, 0) - 1)


def _with_count(h: dict[int, int], v: int, c: int) -> dict[int, int]:
    out = {k: n for k, n in h.items() if k != v}
    if c != 0:
        out[v] = c
    return out


#: A histogram as a new dict each time (initial {} is unhashable; zero counts dropped).
#:   def2-add, def2-remove hold: count updates commute.
#:   def7 holds: reachable dicts have no zero counts; +1 then -1 restores them.
#:   def7-global FAILS at the unreachable a = {0: 0}, v = 0: {0: 1}, then {} != {0: 0}.
#:   def7-skipdoc FAILS at a = {0: 0}, v = 0: remove gives {0: -1}, add gives {}.
#:   def11 holds. pure holds (new dicts).
#:   exit 0 (the failures are at an accumulator no fold builds: warnings); --strict 1.
dict_histogram = ({}, _hist_add, _hist_remove)


def _insert(acc: list[int], v: int) -> list[int]:
    return sorted(acc + [v])


def _delete_or_decline(acc: list[int], v: int) -> list[int] | None:
    if v not in acc:
        return None  # not held: this cannot happen at runtime, so decline
    out = list(acc)
    out.remove(v)
    return out


#: A sorted list of every value (a sorted multiset), declining to remove an absent value.
#:   def2-add holds: sorted(sorted(a + [v1]) + [v2]) = sorted(a + [v1, v2]) for every list a.
#:   def2-remove holds: removing the first v1 and the first v2 commutes (where both answer).
#:   def7 holds: reachable lists are sorted; insert then delete v restores them.
#:   def7-global FAILS at the unreachable (unsorted) a = [0, -1], v = 0: [-1, 0] != [0, -1].
#:   def7-skipdoc FAILS at a = [0, -1], v = 0: remove gives [-1], add gives [-1, 0].
#:   def11 holds. pure holds.
#:   exit 0 (an unsorted list is no fold's result: warnings); --strict 1.
sorted_list = ([], _insert, _delete_or_decline)


def _delete(acc: list[int], v: int) -> list[int]:
    out = list(acc)
    out.remove(v)  # raises ValueError when v is absent
    return out


#: The same sorted list, but remove raises (list.remove) on an absent value.
#:   def2-add holds (as above).
#:   def2-remove RAISES at a = [], v1 = v2 = 0: remove([], 0) (an invalid removal:
#:   the advice is to return None there).
#:   def7 holds: every removal there is of a value just added.
#:   def7-global FAILS at a = [0, -1], v = 0 (no raise: v was just added).
#:   def7-skipdoc RAISES at a = [], v = 0 (remove([], 0)).
#:   def11 holds (valid deltas only remove held values).
#:   pure RAISES at a = [], v = 0 (it calls remove([], 0) to see whether it changes []).
#:   exit 0: every raise removes a value the list lacks, which no runtime does (warnings);
#:   --strict 1.
sorted_list_raises = ([], _insert, _delete)


def _append(acc: list[int], v: int) -> list[int]:
    return acc + [v]


#: Appending: a list in arrival order. Not a reducer: ⊕ is not pairwise commutative.
#:   def2-add FAILS at a = [], v1 = 0, v2 = 1: [0, 1] != [1, 0].
#:   def2-remove holds (removing first occurrences commutes; declines are vacuous).
#:   def7 FAILS at M = {|0, 1|}, v = 0: a = [0, 1]; [0, 1, 0] minus the first 0 is [1, 0].
#:   def7-global FAILS at a = [0, 1], v = 0 (the same).
#:   def7-skipdoc FAILS at a = [0, 1], v = 0: remove gives [1], add gives [1, 0].
#:   def11 FAILS at C(k) = {|0|}, Δ⁺ = {|-1|}: recompute [-1, 0] (the canonical enumeration
#:   of the multiset), update [0, -1].
#:   pure holds.
append_list = ([], _append, _delete_or_decline)


def _union(acc: frozenset[int], v: int) -> frozenset[int]:
    return acc | {v}


def _decline_if_held(acc: frozenset[int], v: int) -> frozenset[int] | None:
    return None if v in acc else acc  # held: other copies may remain, so recompute


#: The set of distinct values: remove declines when v is in the set (there may be other
#: copies of v), and leaves the set alone when it is not (an invalid removal).
#:   def2-add holds (union commutes). def2-remove holds: it answers only with a unchanged.
#:   def7 holds VACUOUSLY: v is in a | {v}, so remove declines on every instance.
#:   def7-global holds VACUOUSLY, for the same reason.
#:   def7-skipdoc FAILS at a = frozenset(), v = 0: remove answers a, add gives {0} != {}.
#:   def11 holds (every answer is right). pure holds.
#:   exit 0 (the contract fails removing an absent value: a warning); --strict 1.
distinct_set = (frozenset(), _union, _decline_if_held)


def _discard(acc: frozenset[int], v: int) -> frozenset[int]:
    return acc - {v}


#: The set of distinct values with remove = discard: forgets that v had other copies.
#:   def2-add, def2-remove hold (union, difference commute).
#:   def7 FAILS at M = {|0|}, v = 0: {0} | {0} = {0}, minus {0} is {} != {0}.
#:   def7-global FAILS (a = {0}, v = 0). def7-skipdoc FAILS at a = {}, v = 0: {0} != {}.
#:   def11 FAILS (SKIP-THM-2 from def7: C(k) = {|0, 0|}, Δ⁻ = {|0|}). pure holds.
set_forgets_duplicates = (frozenset(), _union, _discard)


def _top2_add(acc: tuple[int, ...], v: int) -> tuple[int, ...]:
    return tuple(sorted(acc + (v,), reverse=True)[:2])


def _top2_remove(acc: tuple[int, ...], v: int) -> tuple[int, ...] | None:
    # below the second largest: not among the top two, which stay; otherwise recompute
    return acc if len(acc) == 2 and v < acc[1] else None


#: The two largest values (top-k with k = 2), declining when a top value may leave.
#:   def2-add holds: the top two of a union, whatever a is.
#:   def2-remove holds: it answers only with a unchanged.
#:   def7 holds: reachable a are sorted, of length <= 2; v < a[1] after adding v means
#:   v was not taken, and otherwise remove declines.
#:   def7-global FAILS at the unreachable a = (0, 1) (not sorted), v = -1: (1, 0) != (0, 1).
#:   def7-skipdoc FAILS at a = (0, 1), v = 0: remove answers (0, 1), add gives (1, 0).
#:   def11 holds. pure holds.
#:   exit 0 (an unsorted tuple is no fold's result: warnings); --strict 1.
top2 = ((), _top2_add, _top2_remove)


def _omin_add(acc: Optional[int], v: int) -> Optional[int]:  # noqa: UP045 (the hint people write)
    return v if acc is None else min(acc, v)


def _omin_remove(acc: Optional[int], v: int) -> Optional[int]:  # noqa: UP045
    return None if acc is None or v <= acc else acc


#: Min with None for "no value yet" (Optional[int]: the domain includes None, the initial).
#:   def2-add holds (min commutes; None is its unit here).
#:   def2-remove holds: it answers only with a unchanged.
#:   def7 holds: after adding v, remove declines when v <= a (v may be the minimum) and
#:   otherwise answers a ⊕ v = a, which is right; from ι = None, a ⊕ v = v: it declines.
#:   def7-global holds: it answers only when v > a (then a ⊕ v = a and a ⊖ v = a).
#:   def7-skipdoc holds: remove answers a only when v > a, and add(a, v) = a then.
#:   def11 holds. pure holds.
optional_min = (None, _omin_add, _omin_remove)
