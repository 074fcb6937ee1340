"""Reducers that update their argument in place (and return it).

Under value semantics (what the laws mean: ⊕, ⊖ : A × V → A are functions,
SKIP-DEF-6) each is judged as the reducer it would be if it copied first; the
in-place update itself is reported on the ``pure`` line (SKIP-DEF-6) with the
call and the argument's value before and after it. Checked without copying,
both sides of every law are the same object, so every law would "hold".

Each reducer has its verdicts derived by hand, line by line, in the comment above it.
"""

from __future__ import annotations


def _bump(h: dict[int, int], v: int) -> dict[int, int]:
    h[v] = h.get(v, 0) + 1
    return h


def _forget(h: dict[int, int], v: int) -> dict[int, int]:
    h.pop(v, None)  # forgets every copy of v, not one
    return h


#: A histogram updated in place whose remove forgets duplicates. Value semantics:
#: ⊕ counts v, ⊖ deletes the key v.
#:   def2-add holds: incrementing two counts commutes (dict equality ignores order).
#:   def2-remove holds: deleting two keys commutes.
#:   def7 FAILS at M = {|0|}, v = 0: fold = {0: 1}; ⊕ 0 gives {0: 2}; ⊖ 0 gives {} != {0: 1}.
#:   def7-global FAILS (the same a = {0: 1} is in the domain's sample; or at a = {0: 0}).
#:   def7-skipdoc FAILS at a = {}, v = 0: add(remove({}, 0), 0) = {0: 1} != {}.
#:   def11 FAILS (SKIP-THM-2 from def7): C(k) = {|0, 0|}, Δ⁻ = {|0|}: recompute {0: 1}, update {}.
#:   pure FAILS at a = {}, v = 0: add changes {} into {0: 1}.
mutating_histogram = ({}, _bump, _forget)


def _count(h: dict[int, int], v: int, by: int) -> dict[int, int]:
    c = h.get(v, 0) + by
    if c == 0:
        del h[v]
    else:
        h[v] = c
    return h


def _count_up(h: dict[int, int], v: int) -> dict[int, int]:
    return _count(h, v, 1)


def _count_down(h: dict[int, int], v: int) -> dict[int, int]:
    return _count(h, v, -1)


#: A histogram of counts (a Z-set as a dict: zero counts deleted), updated in place.
#: Value semantics: a correct histogram.
#:   def2-add, def2-remove hold: count updates commute, a key is deleted when it reaches 0
#:   whatever the order.
#:   def7 holds: reachable dicts have no zero counts, and +1 then -1 restores them.
#:   def7-global FAILS at the unreachable a = {0: 0} (a zero count), v = 0: {0: 1} then {}.
#:   def7-skipdoc FAILS at a = {0: 0}, v = 0: remove gives {0: -1}, add gives {} != {0: 0}.
#:   def11 holds: update and recompute count the same multiset.
#:   pure FAILS at a = {}, v = 0: add changes {} into {0: 1}.
inplace_counts = ({}, _count_up, _count_down)


class Total:
    """A hashable accumulator object (equal when the totals are)."""

    def __init__(self, total: int = 0) -> None:
        self.total = total

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Total) and other.total == self.total

    def __hash__(self) -> int:
        return hash(self.total)

    def __repr__(self) -> str:
        return f"Total({self.total})"


class InPlaceTotal:
    """A sum kept in a Total object that add and remove update in place. The class
    declares ``accumulators``: the checker searches these (with ``initial``).
      every law holds under value semantics (it is the integer sum, SKIP §6.1);
      pure FAILS at a = Total(0), v = 1: add changes Total(0) into Total(1)."""

    initial = Total(0)
    accumulators = [Total(0), Total(1), Total(-1), Total(2)]

    @staticmethod
    def add(acc: Total, v: int) -> Total:
        acc.total += v
        return acc

    @staticmethod
    def remove(acc: Total, v: int) -> Total:
        acc.total -= v
        return acc
