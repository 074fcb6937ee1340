"""A signature of basic functions over Z-sets and integers for the language of §4
(DD-DEF-SIGNATURE): linear (map, filter, projection, size), bilinear (join, mul)
and non-linear (distinct, count, square, singleton) ones, and for §5 the ingress
and a priority function as built-ins.

Base types: ``int`` (``Z``), ``bag`` (Z-sets of ints), ``rel`` (Z-sets of pairs of
ints); each with ``δ = S = id``.
"""

from __future__ import annotations

from typing import Any

from reference.algebra.group import Integers, ZSets
from reference.algebra.zset import ZSet
from reference.differential.language import Base, BasicFunction, Signature, Streams
from reference.differential.loops import ingress, n_streams
from reference.differential.mobius import Stream
from reference.differential.operators import distinct, map_zset

INT, BAG, REL = Base("int"), Base("bag"), Base("rel")

LINEAR = ("map_inc", "filter_even", "key_mod3", "values", "size", "ingress", "prioritize")
BILINEAR = ("join", "mul")
NONLINEAR = ("distinct", "count", "square", "singleton")


def compose(r: ZSet, s: ZSet) -> ZSet:
    """Join on the key, keeping the values: ``(k, a), (k, b) ↦ (a, b)``. Bilinear."""
    return ZSet.from_pairs(
        ((a, b), w * v) for (k, a), w in r.items() for (j, b), v in s.items() if k == j
    )


def count(r: ZSet) -> ZSet:
    """Per key, ``(k, Σ weights)`` with weight 1 (keys of total 0 dropped). Not linear."""
    totals: dict[Any, int] = {}
    for (k, _), w in r.items():
        totals[k] = totals.get(k, 0) + w
    return ZSet({(k, n): 1 for k, n in totals.items() if n != 0})


def priority(x: int) -> int:
    """The priority function of the examples: ``x mod 3``."""
    return x % 3


def prioritize(c: ZSet, k: int, horizon: int) -> Stream[int, ZSet]:
    """§5: the elements of priority ``i`` are introduced at iteration ``i × k``."""
    return Stream.tabulate(
        range(horizon + 1),
        lambda n: c.filter(lambda x: priority(x) * k == n),
    )


def signature(horizon: int, k: int = 1) -> Signature:
    """The signature, with ``σ+`` on ``0..horizon`` and ``k`` iterations per priority."""
    bags = n_streams(ZSets(), horizon)
    return Signature(
        bases={"int": Integers(), "bag": ZSets(), "rel": ZSets()},
        functions={
            "map_inc": BasicFunction((BAG,), BAG, lambda c: map_zset("inc", c)),
            "filter_even": BasicFunction((BAG,), BAG, lambda c: c.filter(lambda x: x % 2 == 0)),
            "key_mod3": BasicFunction((BAG,), REL, lambda c: map_zset("key_mod3", c)),
            "values": BasicFunction((REL,), BAG, lambda r: map_zset("snd", r)),
            "size": BasicFunction((BAG,), INT, lambda c: sum(w for _, w in c.items())),
            "join": BasicFunction((REL, REL), REL, compose),
            "mul": BasicFunction((INT, INT), INT, lambda a, b: a * b),
            "distinct": BasicFunction((BAG,), BAG, distinct),
            "count": BasicFunction((REL,), REL, count),
            "square": BasicFunction((INT,), INT, lambda a: a * a),
            "singleton": BasicFunction((INT,), BAG, lambda a: ZSet({a: 1})),
            "ingress": BasicFunction((BAG,), Streams(BAG), lambda c: ingress(bags, c)),
            "prioritize": BasicFunction((BAG,), Streams(BAG), lambda c: prioritize(c, k, horizon)),
        },
    )
