"""Everyday reducers with structured accumulators: top-k tuples, histograms as dicts,
distinct counts, sets of tags, dataclass, NamedTuple and TypedDict accumulators, Enum
values, class-based reducers, and in-place mutation.

Each comment derives the verdict by hand, as in ``everyday_numbers.py``: exit 0 when ⊖
inverts ⊕ on the accumulators folds from ι reach and add/remove leave their arguments
unchanged, 1 otherwise; ``--strict`` also counts the stronger laws where no fold goes
(an unsorted tuple, a zero count). The expected exits are in ``everyday.toml``.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import NamedTuple, TypedDict


def _top3_add(acc: tuple[int, ...], v: int) -> tuple[int, ...]:
    return tuple(sorted(acc + (v,), reverse=True)[:3])


def _top3_remove(acc: tuple[int, ...], v: int) -> tuple[int, ...] | None:
    # below the third largest: not among the top three, which stay; otherwise recompute
    return acc if len(acc) == 3 and v < acc[-1] else None


#: The three largest scores, as a tuple sorted in descending order (top-k, k = 3).
#: ⊕ commutes: both orders give the top three of a's elements with v1 and v2. ⊖ answers only
#: with a unchanged. Reachable a are sorted, of length <= 3: a ⊕ v drops v exactly when
#: len(a) = 3 and v <= a[-1]; then ⊖ v answers a when v < a[-1] and declines at a tie, and
#: when v was taken, v >= the new last element and ⊖ declines. SKIP-DEF-7 holds: exit 0.
#: (At an unsorted (0, 0, 1), no fold's result, removing -1 answers the sorted (1, 0, 0):
#: the global law fails there, a warning.)
top3 = ((), _top3_add, _top3_remove)


def _count_word(acc: dict[str, int], v: str) -> dict[str, int]:
    return {**acc, v: acc.get(v, 0) + 1}


def _uncount_word(acc: dict[str, int], v: str) -> dict[str, int]:
    out = {**acc, v: acc.get(v, 0) - 1}
    return {word: n for word, n in out.items() if n != 0}


#: A word count as a dict (a new dict each time, zero counts dropped). Reachable dicts hold
#: positive counts; +1 then -1 restores them: SKIP-DEF-7 holds, both operations commute.
#: exit 0. At {'': 0}, which no fold builds, adding and removing '' gives {} != {'': 0}: the
#: global law and Skip's contract fail there. --strict 1.
word_count = ({}, _count_word, _uncount_word)


def _count_of(acc: frozenset[tuple[int, int]], v: int) -> int:
    return next((n for x, n in sorted(acc) if x == v), 0)


def _seen(acc: frozenset[tuple[int, int]], v: int) -> frozenset[tuple[int, int]]:
    return frozenset(p for p in acc if p[0] != v) | {(v, _count_of(acc, v) + 1)}


def _unseen(acc: frozenset[tuple[int, int]], v: int) -> frozenset[tuple[int, int]] | None:
    n = _count_of(acc, v)
    if n == 0:
        return None  # not held: cannot happen at a runtime
    rest = frozenset(p for p in acc if p[0] != v)
    return rest | {(v, n - 1)} if n > 1 else rest


#: A distinct count as a frozenset of (value, multiplicity) pairs (the view is its size).
#: Reachable sets hold one pair per value, with multiplicity >= 1; adding v raises its
#: multiplicity, removing it lowers it (dropping the pair at 0): SKIP-DEF-7 holds, and both
#: operations commute (they touch v's pair only). exit 0. The zero pair {(0, 0)}, which no
#: fold builds, breaks the global law: adding and removing 0 gives frozenset(). --strict 1.
distinct_count = (frozenset(), _seen, _unseen)


def _tag(acc: frozenset[str], v: str) -> frozenset[str]:
    return acc | {v}


def _untag(acc: frozenset[str], v: str) -> frozenset[str]:
    return acc - {v}


#: The set of tags seen, with remove = discard. Discarding forgets that v had other copies:
#: SKIP-DEF-7 fails at M = {''}, v = '' ({''} | {''} = {''}, minus '' is {}; any tag does).
#: Witness: C(k) = {'', ''}, Δ⁻(k) = {''}: recompute frozenset({''}), update frozenset().
#: exit 1.
tags_seen = (frozenset(), _tag, _untag)


def _bump(acc: dict[int, int], v: int) -> dict[int, int]:
    acc[v] = acc.get(v, 0) + 1  # in place
    return acc


def _unbump(acc: dict[int, int], v: int) -> dict[int, int]:
    acc[v] -= 1  # in place
    if acc[v] == 0:
        del acc[v]
    return acc


#: A histogram updated in place. Judged on copies it is a correct histogram (SKIP-DEF-7
#: holds), but add changes its argument: add({}, 0) turns the {} it was given into {0: 1}. A
#: runtime shares ι between keys and keeps each key's previous accumulator, so they change
#: under it (SKIP-DEF-6: ⊕ is a function). exit 1, the witness the call with the argument
#: before and after. (remove raises KeyError on a value the dict lacks, which no runtime
#: removes: a warning.)
inplace_histogram = ({}, _bump, _unbump)


@dataclasses.dataclass(frozen=True)
class Stats:
    count: int
    total: int


def _stats_add(acc: Stats, v: int) -> Stats:
    return dataclasses.replace(acc, count=acc.count + 1, total=acc.total + v)


def _stats_remove(acc: Stats, v: int) -> Stats:
    return dataclasses.replace(acc, count=acc.count - 1, total=acc.total - v)


#: Count and total in a frozen dataclass, new instances each time: the group Z × Z acting
#: again, every law holds at every Stats. exit 0; --strict 0.
stats = (Stats(0, 0), _stats_add, _stats_remove)


@dataclasses.dataclass
class Tally:
    count: int = 0
    total: int = 0


def _tally_add(acc: Tally, v: int) -> Tally:
    acc.count += 1  # in place
    acc.total += v
    return acc


def _tally_remove(acc: Tally, v: int) -> Tally:
    acc.count -= 1
    acc.total -= v
    return acc


#: The same in a mutable dataclass updated in place. On copies every law holds, but
#: add(Tally(count=0, total=0), 0) changes its argument to Tally(count=1, total=0), at ι: a
#: runtime sharing ι between keys sees the second key start from 1. exit 1.
tally = (Tally(), _tally_add, _tally_remove)


class Mean(NamedTuple):
    n: int
    total: int


def _mean_add(acc: Mean, v: int) -> Mean:
    return Mean(acc.n + 1, acc.total + v)  # acc.n: the NamedTuple type must be kept


def _mean_remove(acc: Mean, v: int) -> Mean:
    return acc._replace(n=acc.n - 1, total=acc.total - v)


#: A mean as a NamedTuple (n, total), read by field name: Z × Z again. exit 0; --strict 0.
mean = (Mean(0, 0), _mean_add, _mean_remove)


class Totals(TypedDict):
    count: int
    total: int


def _totals_add(acc: Totals, v: int) -> Totals:
    return {"count": acc["count"] + 1, "total": acc["total"] + v}


def _totals_remove(acc: Totals, v: int) -> Totals:
    return {"count": acc["count"] - 1, "total": acc["total"] - v}


#: Count and total as a TypedDict: Z × Z again. exit 0; --strict 0.
totals = ({"count": 0, "total": 0}, _totals_add, _totals_remove)


class Vote(enum.Enum):
    YES = "yes"
    NO = "no"
    ABSTAIN = "abstain"


def _vote(acc: dict[Vote, int], v: Vote) -> dict[Vote, int]:
    counts = dict(acc)
    counts[v] = counts.get(v, 0) + 1
    return counts


def _unvote(acc: dict[Vote, int], v: Vote) -> dict[Vote, int]:
    counts = dict(acc)
    left = counts.pop(v, 0) - 1
    if left:
        counts[v] = left  # a count that reaches 0 leaves
    return counts


#: Votes counted per Enum member (the values range over the three members). As word_count:
#: SKIP-DEF-7 holds, exit 0; the zero count {Vote.YES: 0} breaks the global law. --strict 1.
votes = ({}, _vote, _unvote)


#: A class-based reducer that sets ``initial`` in ``__init__``: the sum of squares.
#: (a + v²) - v² = a at every a, and both operations commute: every law holds.
#: exit 0; --strict 0.
class SumOfSquares:
    """The sum of squares, ``initial`` set in ``__init__``."""

    def __init__(self) -> None:
        self.initial = 0

    def add(self, acc: int, v: int) -> int:
        return acc + v * v

    def remove(self, acc: int, v: int) -> int:
        return acc - v * v


#: The range (lowest, highest) as a class with static methods, ι = (inf, -inf).
#: ⊕ commutes (min and max do). ⊖ answers only strictly inside the range, with a unchanged.
#: At any a, a ⊕ v keeps v strictly inside only when it was strictly inside a, and then
#: a ⊕ v = a: so (a ⊕ v) ⊖ v = a or declines, and add(remove(a, v), v) = a where remove
#: answers. Every law holds. exit 0; --strict 0.
class MinMax:
    """The range (lowest, highest); remove declines at a bound (it may leave)."""

    initial = (float("inf"), float("-inf"))

    @staticmethod
    def add(acc: tuple[float, float], v: float) -> tuple[float, float]:
        return min(acc[0], v), max(acc[1], v)

    @staticmethod
    def remove(acc: tuple[float, float], v: float) -> tuple[float, float] | None:
        return acc if acc[0] < v < acc[1] else None  # a bound may leave: recompute
