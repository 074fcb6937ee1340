"""A histogram kept as a Z-set (counts may go negative, zero counts vanish), made
by a factory function. Z-sets form a group, so every law holds, Skip's contract
included. Check with --values 'str[abc,1]' --acc 'zset[str[abc,1]]'."""

from reference.algebra.zset import ZSet
from reference.reduce import Reducer


#: Verdicts by hand: Z-sets under + form a group, so every law holds: def2-add and def2-remove (the
#: operations commute), def7, def7-global and def7-skipdoc ((a ⊕ v) ⊖ v = a and
#: (a ⊖ v) ⊕ v = a for every a), def11 (SKIP-THM-2), pure (new values each call).
def histogram() -> Reducer[ZSet, str]:
    return Reducer(ZSet(), lambda h, v: h + ZSet({v: 1}), lambda h, v: h - ZSet({v: 1}),
                   "histogram")


def _count(h: ZSet, v: int) -> ZSet:
    return h + ZSet({v: 1})


def _uncount(h: ZSet, v: int) -> ZSet:
    return h - ZSet({v: 1})


#: The same histogram over integers, as a triple (check with --values 'int[0..2]' --acc
#: 'zset[int[0..2]]'). Z-sets form a group: every law holds (a ⊕ v ⊖ v = a for every
#: Z-set a, and the operations commute); pure holds (Z-sets are immutable).
histogram_ints = (ZSet(), _count, _uncount)
