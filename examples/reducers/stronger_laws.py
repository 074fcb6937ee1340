"""Incrementally correct reducers that break a stronger law than SKIP-DEF-7.

floor_at_zero: a sum over non-negative values whose add first floors the
accumulator at 0. Every reachable accumulator is >= 0, where add is plain +, so
the reachable inverse law and incremental correctness hold; at the unreachable
accumulator -1 the global law (earlier draft) and Skip's contract fail.
Check with --values 'int[0..3]' --acc int.

multiset_histogram: a histogram as a multiset with truncated difference. The
global inverse law holds, ((a ⊎ {v}) \\ {v} = a), but Skip's contract does not:
removing an absent value is a no-op, so add(remove(a, v), v) = a ⊎ {v} != a.
Check with --values 'str[ab,1]' --acc 'multiset[str[ab,1]]'.
"""

from reference.algebra.multiset import Multiset
from reference.reduce import Reducer


def _floor_add(acc: int, v: int) -> int:
    return max(acc, 0) + v


def _sub(acc: int, v: int) -> int:
    return acc - v


#: Verdicts by hand: def2-add holds (on a >= 0 both orders give a + v1 + v2; on a < 0,
#: max(max(a, 0) + v1, 0) + v2 = v1 + v2 for v1 >= 0); def2-remove holds (a - v1 - v2);
#: def7 and def11 hold (reachable a >= 0: plain sum); def7-global FAILS at a = -1, v = 0:
#: (-1 ⊕ 0) ⊖ 0 = 0; def7-skipdoc FAILS at a = -1, v = 0: remove(add(-1, 0), 0) = 0; pure holds.
#: exit 0 (no fold reaches -1: warnings); --strict 1.
floor_at_zero = Reducer(0, _floor_add, _sub, "floor_at_zero")

#: Verdicts by hand: def2-add, def2-remove hold (⊎ and \\ {v} commute); def7,
#: def7-global hold ((a ⊎ {v}) \\ {v} = a); def7-skipdoc FAILS at a = {||}, v = 'a':
#: add(remove(a, v), v) = {|'a'|}; def11 holds; pure holds (multisets are immutable).
#: exit 0 (no runtime removes an absent value: a warning); --strict 1.
multiset_histogram = Reducer(
    Multiset(), lambda h, v: h | Multiset.of(v), lambda h, v: h - Multiset.of(v), "multiset_histogram"
)
