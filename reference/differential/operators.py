"""Z-set operators of the dataflow language and their incremental rules (DD-CLAIM-RULE-*).

The operators act on Z-sets (DD §2.1: "multisets with possibly negative
multiplicities"); functions and predicates are chosen by *name* from the fixed
vocabulary below, so that engines in any language can receive a program.

The incremental rules are what the theory of §2.3 gives for operators lifted to
versions ``N^d`` (``d = 1`` for versions, one more coordinate per enclosing
``iterate``; product order). A *trace* maps each time to the difference
(``δ``) of a collection at that time; absent times have difference zero.

- DD-CLAIM-RULE-LINEAR: a linear operator maps differences to differences
  (Proposition 1.2-1.3: ``δ(f^T)(c)_t = f(c_t)``).
- DD-CLAIM-RULE-JOIN: join is bilinear, ``δ(⋈^T)(c, d)_t = Σ_{r ∨ s = t} c_r ⋈ d_s``
  (Proposition 2.2-2.3).
- DD-CLAIM-RULE-DISTINCT, DD-CLAIM-RULE-REDUCE: the general form of Proposition 1.1,
  ``δ(f^T)(c)_t = Σ_{t' ≤ t} μ(t', t) f(Σ_{t'' ≤ t'} c_{t''})``, with the sum
  restricted to the keys that can change at ``t`` (:func:`affected_keys`).

The rules are stated on whole traces. :mod:`reference.differential.dataflow` applies them
key by key to *arrangements* (DD-DEC-PERSISTENT-TRACES): a trace split by the key its
consumer groups on (:func:`split_by_key`), so that a step reads only the keys its
differences touch. For join and the keyed operators the rule on a trace is the sum of the
rule on each key's trace, since they act on each key separately.

Vocabulary (elements are ints, strings, and pairs written as JSON arrays):

=========  ======================================  =====================
kind       name: meaning                           applies to
=========  ======================================  =====================
map        ``inc``: x + 1                          int
map        ``double``: 2x                          int
map        ``neg``: -x                             int
map        ``mod3``: x mod 3 (in 0..2)             int
map        ``key_mod3``: x -> (x mod 3, x)         int
map        ``dup``: x -> (x, x)                    any
map        ``swap``: (a, b) -> (b, a)              pair
map        ``fst``: (a, b) -> a                    pair
map        ``snd``: (a, b) -> b                    pair
filter     ``even``, ``odd``: x mod 2 = 0 / 1      int
filter     ``positive``: x > 0                     int
filter     ``nonnegative``: x >= 0                 int
filter     ``small``: 0 <= x < 10                  int
filter     ``fst_even``: a mod 2 = 0 for (a, b)    pair of ints
filter     ``fst_lt_snd``: a < b for (a, b)        pair of ints
reduce     ``count``: sum of the weights           pairs (k, v)
reduce     ``sum``: sum of weight * v              pairs (k, int)
reduce     ``min``, ``max``: least / greatest v    pairs (k, int)
           with non-zero weight
=========  ======================================  =====================

An element of the wrong shape for a function raises
:class:`DataflowError` with class ``malformed-input``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from itertools import product
from types import MappingProxyType
from typing import Any

from reference.algebra.persistent import PMap
from reference.algebra.zset import ZSet

#: A time in ``N^d`` (product order), ``d >= 1``.
Time = tuple[int, ...]
#: The differences of a collection, by time (absent = zero).
Trace = Mapping[Time, ZSet]
#: A trace arranged by key: each key's trace (the differences of the elements with that
#: key, by time); an absent key has the zero trace (DD-DEC-PERSISTENT-TRACES).
Arrangement = Mapping[Any, Trace]


class DataflowError(ValueError):
    """A program or an element the dataflow language refuses.

    ``error_class`` is what conformance cases compare: ``malformed-input`` (an
    ill-formed program, or an element of the wrong shape for a named function)
    or ``no-fixpoint`` (an ``iterate`` that does not converge within the
    program's ``max_iterations``).
    """

    def __init__(self, error_class: str, message: str) -> None:
        super().__init__(f"{error_class}: {message}")
        self.error_class = error_class


# --- the vocabulary ------------------------------------------------------------


def _int(x: Any, fn: str) -> int:
    if type(x) is not int:
        raise DataflowError("malformed-input", f"{fn} expects an int, got {x!r}")
    return x


def _pair(x: Any, fn: str) -> tuple[Any, Any]:
    if not (isinstance(x, tuple) and len(x) == 2):
        raise DataflowError("malformed-input", f"{fn} expects a pair, got {x!r}")
    return (x[0], x[1])


MAP_FUNCTIONS: Mapping[str, Callable[[Any], Any]] = MappingProxyType({
    "inc": lambda x: _int(x, "inc") + 1,
    "double": lambda x: 2 * _int(x, "double"),
    "neg": lambda x: -_int(x, "neg"),
    "mod3": lambda x: _int(x, "mod3") % 3,
    "key_mod3": lambda x: (_int(x, "key_mod3") % 3, x),
    "dup": lambda x: (x, x),
    "swap": lambda x: (_pair(x, "swap")[1], _pair(x, "swap")[0]),
    "fst": lambda x: _pair(x, "fst")[0],
    "snd": lambda x: _pair(x, "snd")[1],
})

FILTER_PREDICATES: Mapping[str, Callable[[Any], bool]] = MappingProxyType({
    "even": lambda x: _int(x, "even") % 2 == 0,
    "odd": lambda x: _int(x, "odd") % 2 == 1,
    "positive": lambda x: _int(x, "positive") > 0,
    "nonnegative": lambda x: _int(x, "nonnegative") >= 0,
    "small": lambda x: 0 <= _int(x, "small") < 10,
    "fst_even": lambda x: _int(_pair(x, "fst_even")[0], "fst_even") % 2 == 0,
    "fst_lt_snd": lambda x: _int(_pair(x, "fst_lt_snd")[0], "fst_lt_snd")
    < _int(_pair(x, "fst_lt_snd")[1], "fst_lt_snd"),
})


def _count(group: ZSet) -> int:
    return sum(w for _, w in group.items())


def _sum(group: ZSet) -> int:
    return sum(w * _int(v, "sum") for v, w in group.items())


def _min(group: ZSet) -> int:
    return min(_int(v, "min") for v in group.support())


def _max(group: ZSet) -> int:
    return max(_int(v, "max") for v in group.support())


#: Aggregates of ``reduce``: from the (non-zero) Z-set of one key's values to a value.
AGGREGATES: Mapping[str, Callable[[ZSet], int]] = MappingProxyType({
    "count": _count, "sum": _sum, "min": _min, "max": _max,
})


# --- the operators (standard semantics on one collection) -------------------------


def map_zset(fn: str, c: ZSet) -> ZSet:
    """``map(fn)``: the linear extension of ``fn`` (DD §2.1: ``f(c) = Σ_x c(x) f(x)``)."""
    return c.map(MAP_FUNCTIONS[fn])


def filter_zset(pred: str, c: ZSet) -> ZSet:
    """``filter(pred)``: selection, linear."""
    return c.filter(FILTER_PREDICATES[pred])


def join(c: ZSet, d: ZSet) -> ZSet:
    """``join``: pairs ``(k, a)`` in ``c`` and ``(k, b)`` in ``d`` give ``(k, (a, b))``
    with the product of the weights. Bilinear (DD §2.3, "relational join")."""
    by_key: dict[Any, list[tuple[Any, int]]] = {}
    for x, w in d.items():
        k, b = _pair(x, "join")
        by_key.setdefault(k, []).append((b, w))
    out: list[tuple[Any, int]] = []
    for x, w in c.items():
        k, a = _pair(x, "join")
        out.extend(((k, (a, b)), w * v) for b, v in by_key.get(k, ()))
    return ZSet.from_pairs(out)


def distinct(c: ZSet) -> ZSet:
    """``distinct``: weight 1 for each element of positive weight, dropped otherwise.
    Not linear (DD-EX-NONLINEAR)."""
    return ZSet({x: 1 for x, w in c.items() if w > 0})


def groups(c: ZSet) -> dict[Any, ZSet]:
    """The non-zero Z-set of values of each key of a Z-set of pairs ``(k, v)``."""
    by_key: dict[Any, list[tuple[Any, int]]] = {}
    for x, w in c.items():
        k, v = _pair(x, "reduce")
        by_key.setdefault(k, []).append((v, w))
    return {k: ZSet.from_pairs(vs) for k, vs in by_key.items()}


def reduce(agg: str, c: ZSet) -> ZSet:
    """``reduce(agg)``: for each key whose values form a non-zero Z-set, the pair
    ``(k, agg(values))`` with weight 1. Not linear (DD-EX-NONLINEAR)."""
    aggregate = AGGREGATES[agg]
    return ZSet({(k, aggregate(g)): 1 for k, g in groups(c).items() if not g.is_empty()})


def element_key(x: Any) -> Any:
    """The key under which ``distinct`` decides an element: the element itself."""
    return x


def pair_key(x: Any) -> Any:
    """The key under which ``reduce`` groups an element ``(k, v)``: ``k``."""
    return _pair(x, "reduce")[0]


def join_key(x: Any) -> Any:
    """The key on which ``join`` matches an element ``(k, a)``: ``k``."""
    return _pair(x, "join")[0]


def split_by_key(c: ZSet, key_of: Callable[[Any], Any]) -> dict[Any, ZSet]:
    """``c`` restricted to each of its keys: ``c = Σ_k c|k`` (DD-DEC-PERSISTENT-TRACES)."""
    by_key: dict[Any, dict[Any, int]] = {}
    for x, w in c.items():
        by_key.setdefault(key_of(x), {})[x] = w
    return {k: ZSet(part) for k, part in by_key.items()}


def arrange(trace: Trace, key_of: Callable[[Any], Any]) -> PMap[Any, PMap[Time, ZSet]]:
    """The arrangement of ``trace`` by ``key_of``: each key's trace, ``(c|k)_t`` at every
    time where it is non-zero (DD-DEC-PERSISTENT-TRACES)."""
    by_key: dict[Any, dict[Time, ZSet]] = {}
    for t, diff in trace.items():
        for k, part in split_by_key(diff, key_of).items():
            by_key.setdefault(k, {})[t] = part
    return PMap((k, PMap(times)) for k, times in by_key.items())


def sum_zsets(parts: Iterable[ZSet]) -> ZSet:
    """``Σ parts`` (one pass over their elements)."""
    return ZSet.from_pairs(pair for z in parts for pair in z.items())


# --- times N^d and their Möbius function -----------------------------------------


def leq(s: Time, t: Time) -> bool:
    """The product order on ``N^d``."""
    return all(a <= b for a, b in zip(s, t, strict=True))


def sup(s: Time, t: Time) -> Time:
    """``s ∨ t`` in ``N^d``: componentwise max (N^d has all binary sups)."""
    return tuple(max(a, b) for a, b in zip(s, t, strict=True))


def mobius_corners(t: Time) -> list[tuple[Time, int]]:
    """The ``t' <= t`` with ``μ(t', t) != 0`` in ``N^d``, with ``μ(t', t)``.

    Closed form (DD-CLAIM-MU-N, DD-CLAIM-MU-PRODUCT): ``μ(t - ε, t) = (-1)^|ε|``
    for ``ε ∈ {0,1}^d`` with ``t - ε >= 0``, and 0 for every other ``t'``.
    """
    corners = []
    for eps in product((0, 1), repeat=len(t)):
        u = tuple(a - e for a, e in zip(t, eps, strict=True))
        if min(u) >= 0:
            corners.append((u, -1 if sum(eps) % 2 else 1))
    return corners


def integrate_at(trace: Trace, t: Time) -> ZSet:
    """``S(c)_t = Σ_{t' <= t} c_{t'}``: the collection at ``t`` from its differences."""
    total = ZSet.zero()
    for u, diff in trace.items():
        if leq(u, t):
            total = total + diff
    return total


# --- the incremental rules ----------------------------------------------------------


def join_rule(left: Trace, right: Trace, t: Time) -> ZSet:
    """DD-CLAIM-RULE-JOIN: ``δ(c ⋈ d)_t = Σ_{r ∨ s = t} c_r ⋈ d_s`` (Proposition 2.3;
    join is bilinear and ``δ(⋈) = ⋈`` on Z-sets, whose ``δ`` and ``S`` are the identity)."""
    total = ZSet.zero()
    for r, c_r in left.items():
        if not leq(r, t):
            continue
        for s, d_s in right.items():
            if leq(s, t) and sup(r, s) == t:
                total = total + join(c_r, d_s)
    return total


def affected_keys(trace: Trace, t: Time, key_of: Callable[[Any], Any]) -> frozenset[Any]:
    """The keys whose output difference at ``t`` may be non-zero under a keyed operator.

    A key is affected at ``t`` iff, for every coordinate ``i``, it has a difference
    at some ``u <= t`` with ``u_i = t_i``. Otherwise pairing the corners ``t - ε``
    that differ only in a coordinate ``i`` without such a difference cancels
    every term of the Möbius sum for that key (the key's collection is equal at
    both corners). In ``N`` this is: the key has a difference at ``t`` itself.
    """
    per_coordinate: list[set[Any]] = []
    for i, t_i in enumerate(t):
        keys: set[Any] = set()
        for u, diff in trace.items():
            if u[i] == t_i and leq(u, t):
                keys.update(key_of(x) for x in diff.support())
        per_coordinate.append(keys)
    common = set.intersection(*per_coordinate) if per_coordinate else set()
    return frozenset(common)


def keyed_rule(
    f: Callable[[ZSet], ZSet], key_of: Callable[[Any], Any], trace: Trace, t: Time
) -> ZSet:
    """DD-CLAIM-RULE-DISTINCT / DD-CLAIM-RULE-REDUCE: Proposition 1.1 restricted to affected keys,

    ``δ(f^T)(c)_t = Σ_{t' <= t} μ(t', t) f(S(c)_{t'} restricted to K)``,

    ``K = affected_keys(c, t)``, for an ``f`` that acts on each key separately
    (``f(c)`` restricted to ``K`` is ``f(c restricted to K)``, and its output for a key
    carries that key).
    """
    keys = affected_keys(trace, t, key_of)
    if not keys:
        return ZSet.zero()
    total = ZSet.zero()
    for u, mu in mobius_corners(t):
        collection = integrate_at(trace, u).filter(lambda x: key_of(x) in keys)
        total = total + f(collection).scale(mu)
    return total


def linear_rule(f: Callable[[ZSet], ZSet], trace: Trace, t: Time) -> ZSet:
    """DD-CLAIM-RULE-LINEAR: ``δ(f^T)(c)_t = f(c_t)`` for a linear ``f`` with ``δ(f) = f``
    (Proposition 1.3)."""
    return f(trace.get(t, ZSet.zero()))

