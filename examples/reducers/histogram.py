"""A histogram kept as a Z-set (counts may go negative, zero counts vanish), made
by a factory function. Z-sets form a group, so every law holds, Skip's contract
included. Check with --values 'str[abc,1]' --acc 'zset[str[abc,1]]'."""

from reference.algebra.zset import ZSet
from reference.reduce import Reducer


def histogram() -> Reducer[ZSet, str]:
    return Reducer(ZSet(), lambda h, v: h + ZSet({v: 1}), lambda h, v: h - ZSet({v: 1}),
                   "histogram")
