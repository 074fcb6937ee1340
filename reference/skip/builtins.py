"""Built-in reducers by stable name, each with the finite carriers its checks
use and its expected verdicts (SKIP-DEC-BUILTINS).

Names are stable: the conformance suite, the Spark implementation and the
reducer checker refer to them. Each entry's :class:`Expected` says which of the
paper's properties it has; ``tests/skip`` recomputes every verdict from the
reference checkers and compares. Entries whose ``expected.incrementally_correct``
is False are *ill-formed on purpose* (``ILL_FORMED``): they exist to be caught.

===========================  ===========================================================
name                         what it is
===========================  ===========================================================
sum                          R_sum (§6.1): (0, a + v, a - v) over ints
count                        R_count (§6.2): (0, a + 1, a - 1)
min, max                     R_min (§6.3) with Skip's declining remove (recompute on decline)
min_sorted, max_sorted       §6.3 "maintaining additional state": the sorted multiset of values
product_nonzero_rationals    (1, a * v, a / v) over non-zero Fractions
xor                          (0, a ^ v, a ^ v) over ints
sum_pairs                    componentwise sum of pairs (e.g. (count, total) for an average)
sum_monus_int                (0, a + v, max(a - v, 0)), V = naturals, A = all ints:
                             well-formed on reachable values only (Def. 7 but not global)
sum_monus_nat                the same operations with A = naturals: globally well-formed,
                             not the Skip contract
sum_bad_remove               ILL-FORMED: remove subtracts 2v (not the inverse)
min_never_declines           ILL-FORMED: min whose remove keeps the minimum (never recomputes)
min_declines_below           ILL-FORMED: min that declines only when v < a (Skip needs <=)
affine_noncommutative        NOT A REDUCER: add 2a + v is not pairwise commutative
                             (its remove is a global inverse, yet updates are wrong)
===========================  ===========================================================
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from reference.algebra.multiset import Multiset
from reference.skip.carriers import multisets_up_to
from reference.skip.core import Reducer
from reference.skip.partial import (
    max_add,
    max_remove,
    min_add,
    min_remove,
    observe_max,
    observe_min,
    sorted_add,
    sorted_remove,
)

INF = float("inf")

# --- the operations, top level and typed (the symbolic checks analyse them) -----


def sum_add(a: int, v: int) -> int:
    """R_sum's ⊕ (§6.1): a + v."""
    return a + v


def sum_remove(a: int, v: int) -> int:
    """R_sum's ⊖ (§6.1): a - v."""
    return a - v


def count_add(a: int, v: object) -> int:
    """R_count's ⊕ (§6.2): a + 1."""
    return a + 1


def count_remove(a: int, v: object) -> int:
    """R_count's ⊖ (§6.2): a - 1."""
    return a - 1


def xor_op(a: int, v: int) -> int:
    """Both ⊕ and ⊖ of xor: a ^ v (every value is its own inverse)."""
    return a ^ v


def product_add(a: Fraction, v: Fraction) -> Fraction:
    return a * v


def product_remove(a: Fraction, v: Fraction) -> Fraction:
    return a / v


Pair = tuple[int, int]


def pair_add(a: Pair, v: Pair) -> Pair:
    return (a[0] + v[0], a[1] + v[1])


def pair_remove(a: Pair, v: Pair) -> Pair:
    return (a[0] - v[0], a[1] - v[1])


def monus_remove(a: int, v: int) -> int:
    """Truncated subtraction a ∸ v = max(a - v, 0)."""
    return max(a - v, 0)


def bad_remove(a: int, v: int) -> int:
    """Ill-formed ⊖: subtracts twice (pairwise commutative, not the inverse of +)."""
    return a - 2 * v


def keep_remove(a: float, v: float) -> float:
    """Ill-formed min ⊖: keeps the current minimum, even when it is the value removed."""
    return a


def min_remove_below(a: float, v: float) -> float | None:
    """Ill-formed min ⊖: declines only when v < a (a removed copy of the minimum is missed)."""
    return None if v < a else a


def affine_add(a: int, v: int) -> int:
    """Not pairwise commutative: 2a + v."""
    return 2 * a + v


def affine_remove(a: int, v: int) -> int:
    """The global inverse of :func:`affine_add`: (a - v) // 2."""
    return (a - v) // 2


# --- the registry ----------------------------------------------------------------


@dataclass(frozen=True)
class Expected:
    """The verdicts a built-in should get on its carriers."""

    reducer: bool  # SKIP-DEF-6: ⊕ and ⊖ pairwise commutative (Def. 2)
    total: bool  # remove never declines (not a partial reducer, SKIP-DEC-PARTIAL)
    well_formed: bool  # SKIP-DEF-7 (reachable accumulators)
    globally_well_formed: bool  # SKIP-DEF-7-GLOBAL
    skipdoc_well_formed: bool  # SKIP-DEF-7-SKIPDOC
    incrementally_correct: bool  # SKIP-DEF-11 (recompute on decline)


ALL = Expected(True, True, True, True, True, True)


def _identity(a: Any) -> Any:
    return a


@dataclass(frozen=True)
class Builtin:
    """A named reducer, finite samples of its value and accumulator carriers,
    its expected verdicts, and ``observe``: what the view shows of an
    accumulator (the identity, except for the maintained-state variants)."""

    name: str
    reducer: Reducer[Any, Any]
    values: tuple[Any, ...]
    accumulators: tuple[Any, ...]
    expected: Expected
    description: str
    observe: Callable[[Any], Any] = field(default=_identity, compare=False)

    @property
    def ill_formed(self) -> bool:
        return not self.expected.incrementally_correct


def _entry(name: str, initial: Any, add: Callable[[Any, Any], Any],
           remove: Callable[[Any, Any], Any], values: tuple[Any, ...],
           accumulators: tuple[Any, ...], expected: Expected, description: str,
           observe: Callable[[Any], Any] = _identity) -> Builtin:
    return Builtin(name, Reducer(initial, add, remove, name=name), values, accumulators,
                   expected, description, observe)


_SMALL_MULTISETS = tuple(multisets_up_to((1, 2, 3), 2))
_F = Fraction

_ENTRIES = (
    _entry("sum", 0, sum_add, sum_remove, (-2, -1, 0, 1, 2), tuple(range(-4, 5)), ALL,
           "R_sum (§6.1): (0, a + v, a - v)"),
    _entry("count", 0, count_add, count_remove, ("x", "y", "z"), tuple(range(-2, 5)), ALL,
           "R_count (§6.2): (0, a + 1, a - 1)"),
    _entry("min", INF, min_add, min_remove, (1, 2, 3), (INF, 0, 1, 2, 3),
           Expected(True, False, True, True, True, True),
           "R_min (§6.3): (+inf, min, decline when v <= a): recompute on decline"),
    _entry("max", -INF, max_add, max_remove, (1, 2, 3), (-INF, 0, 1, 2, 3),
           Expected(True, False, True, True, True, True),
           "R_max: (-inf, max, decline when v >= a): recompute on decline"),
    _entry("min_sorted", Multiset(), sorted_add, sorted_remove, (1, 2, 3), _SMALL_MULTISETS,
           Expected(True, True, True, True, False, True),
           "§6.3 maintained state: the sorted multiset of values; the view is its minimum",
           observe_min),
    _entry("max_sorted", Multiset(), sorted_add, sorted_remove, (1, 2, 3), _SMALL_MULTISETS,
           Expected(True, True, True, True, False, True),
           "§6.3 maintained state: the sorted multiset of values; the view is its maximum",
           observe_max),
    _entry("product_nonzero_rationals", _F(1), product_add, product_remove,
           (_F(-2), _F(1, 2), _F(3)), (_F(1), _F(-1), _F(1, 2), _F(-3, 4), _F(6)), ALL,
           "(1, a * v, a / v) over non-zero rationals (Remark 3)"),
    _entry("xor", 0, xor_op, xor_op, (0, 1, 2, 3), tuple(range(8)), ALL, "(0, a ^ v, a ^ v)"),
    _entry("sum_pairs", (0, 0), pair_add, pair_remove, ((1, 10), (2, -5), (0, 3)),
           ((0, 0), (1, 10), (-2, 4), (3, -1)), ALL,
           "componentwise (0, 0), +, - over pairs of ints"),
    _entry("sum_monus_int", 0, sum_add, monus_remove, (0, 1, 2), tuple(range(-2, 4)),
           Expected(True, True, True, False, False, True),
           "(0, a + v, max(a - v, 0)), V = naturals, A = ints: negative accumulators are "
           "unreachable and break the global law; incrementally correct"),
    _entry("sum_monus_nat", 0, sum_add, monus_remove, (0, 1, 2), tuple(range(0, 4)),
           Expected(True, True, True, True, False, True),
           "the same operations with A = naturals: globally well-formed, but "
           "add(remove(0, 1), 1) = 1 breaks the Skip contract; incrementally correct"),
    _entry("sum_bad_remove", 0, sum_add, bad_remove, (0, 1, 2), tuple(range(-2, 4)),
           Expected(True, True, False, False, False, False),
           "ILL-FORMED: (0, a + v, a - 2v)"),
    _entry("min_never_declines", INF, min_add, keep_remove, (1, 2, 3), (INF, 1, 2, 3),
           Expected(True, True, False, False, False, False),
           "ILL-FORMED: min whose remove keeps the minimum"),
    _entry("min_declines_below", INF, min_add, min_remove_below, (1, 2, 3), (INF, 1, 2, 3),
           Expected(True, False, False, False, False, False),
           "ILL-FORMED: min that declines only when v < a"),
    _entry("affine_noncommutative", 0, affine_add, affine_remove, (0, 1, 2),
           tuple(range(-3, 4)), Expected(False, True, True, True, False, False),
           "NOT A REDUCER: (0, 2a + v, (a - v) // 2): remove is a global inverse but add "
           "is not pairwise commutative, and updates are wrong"),
)

#: Every built-in by name (read-only).
BUILTINS: Mapping[str, Builtin] = MappingProxyType({b.name: b for b in _ENTRIES})
#: The names of the built-ins that are incrementally correct.
WELL_FORMED: tuple[str, ...] = tuple(b.name for b in _ENTRIES if not b.ill_formed)
#: The names of the built-ins that are wrong on purpose.
ILL_FORMED: tuple[str, ...] = tuple(b.name for b in _ENTRIES if b.ill_formed)


def builtin(name: str) -> Builtin:
    """The built-in reducer named ``name``; KeyError lists the known names."""
    try:
        return BUILTINS[name]
    except KeyError:
        raise KeyError(f"unknown built-in reducer {name!r}; known: {sorted(BUILTINS)}") from None
