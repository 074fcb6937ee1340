"""Partial reducers: remove may return None (decline: the runtime recomputes the key).

Each reducer has its verdicts derived by hand, line by line, in the comment above it.
"""

from __future__ import annotations


def _plus(acc: int, v: int) -> int:
    return acc + v


def _minus_unless_negative(acc: int, v: int) -> int | None:
    return acc - v if acc - v >= 0 else None  # keeps a non-negative total; else recompute


#: A sum whose remove declines when the result would be negative. Correct: every answer
#: it gives is the exact difference. One order of two removals may decline while the other
#: answers (a = 0, v1 = -1, v2 = 1: 0 - (-1) = 1, 1 - 1 = 0, but 0 - 1 declines at once);
#: a runtime meets this (C(k) = {|-1, 1|}, remove both) and shows 0 either way: the answer
#: in one order, the recomputation in the other. So (SKIP-DEC-PARTIAL-COMMUTES):
#:   def2-add holds. def2-remove holds (where both orders answer, both give a - v1 - v2).
#:   def7, def7-global, def7-skipdoc hold: (a + v) - v = a and (a - v) + v = a where
#:   remove answers. def11 holds. pure holds.
nonneg_sum = (0, _plus, _minus_unless_negative)


def _always_decline(acc: int, v: int) -> int | None:
    return None


#: A sum whose remove always declines: always recompute. Correct, never incremental.
#:   def2-add holds. def2-remove, def7, def7-global, def7-skipdoc hold VACUOUSLY (remove
#:   declined on every instance). def11 holds (recompute = recompute; instances with no
#:   removal are plain additions). pure holds.
always_recompute = (0, _plus, _always_decline)


def _set_bit(acc: int, v: int) -> int:
    return acc | (1 << v)


def _decline_if_set(acc: int, v: int) -> int | None:
    return None if acc >> v & 1 else acc  # set: other copies of v may remain, recompute


#: The set of values in 0..3 as a 4-bit set (check with --values 'int[0..3]' --acc
#: 'int[0..15]': both finite, so lines that hold are decided).
#:   def2-add holds (OR commutes), decided. def2-remove holds, decided: it answers only
#:   with a unchanged.
#:   def7 holds VACUOUSLY, decided: bit v is set after adding v, so remove declines.
#:   def7-global holds VACUOUSLY, decided (the same).
#:   def7-skipdoc FAILS at a = 0, v = 0: remove answers 0 (bit unset), add gives 1 != 0.
#:   def11 holds, decided (the reference's decide_incremental_correctness: A = 0..15 is
#:   closed under ⊕ and ⊖). pure holds, decided.
#:   exit 0: the contract fails removing a value the set lacks, which no runtime does (a
#:   warning); --strict 1.
bitset = (0, _set_bit, _decline_if_set)
