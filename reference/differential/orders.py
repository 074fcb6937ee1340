"""Versions: locally finite partial orders (DD §2.2, DD-DEF-LFPO).

"We work with a general notion of version, viz. locally finite partial orders,
that is partial orders T such that, for t ∈ T, ↓t is finite (↓t is {t' | t' ≤ t}).
Examples include finite products of N [...] and the finite powerset partial
order P_fin(I)."

Each order lists ``↓t`` in a linear extension (``s`` before ``t`` when ``s < t``),
gives the Möbius function by the paper's closed form (checked against the
recursion of :func:`reference.differential.mobius.mobius_by_recursion`), and
binary sups where they exist. The lexicographic order of §5 is here too, as the
counterexample it is: it has an element whose down-set is infinite.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterable, Iterator
from dataclasses import dataclass
from itertools import combinations, count, product
from typing import Any, Generic, TypeVar

T = TypeVar("T", bound=Hashable)


class LocallyFiniteOrder(ABC, Generic[T]):
    """A partial order with finite down-sets ``↓t``."""

    @abstractmethod
    def leq(self, s: T, t: T) -> bool: ...

    @abstractmethod
    def down(self, t: T) -> tuple[T, ...]:
        """``↓t = {t' | t' ≤ t}``, listed so that ``s`` comes before ``t`` when ``s < t``."""

    @abstractmethod
    def mobius(self, s: T, t: T) -> int:
        """``μ_T(s, t)`` by the closed form of this order."""

    @abstractmethod
    def sup(self, s: T, t: T) -> T | None:
        """``s ∨ t`` when it exists, else ``None``."""

    def lt(self, s: T, t: T) -> bool:
        return s != t and self.leq(s, t)

    def interval(self, s: T, t: T) -> tuple[T, ...]:
        """``[s, t] = {r | s ≤ r ≤ t}`` in the order of ``down(t)``."""
        return tuple(r for r in self.down(t) if self.leq(s, r))


@dataclass(frozen=True)
class Naturals(LocallyFiniteOrder[int]):
    """``N`` with its usual order. ``μ_N(n', n)`` is 1 if ``n' = n``, -1 if
    ``n' = n - 1``, 0 otherwise (DD-CLAIM-MU-N)."""

    def leq(self, s: int, t: int) -> bool:
        return s <= t

    def down(self, t: int) -> tuple[int, ...]:
        return tuple(range(t + 1))

    def mobius(self, s: int, t: int) -> int:
        return 1 if s == t else -1 if s == t - 1 else 0

    def sup(self, s: int, t: int) -> int:
        return max(s, t)


@dataclass(frozen=True)
class ProductOrder(LocallyFiniteOrder[tuple[Any, ...]]):
    """``T_1 × ... × T_k`` with the product order; ``μ`` is the product of the
    factors' (DD-CLAIM-MU-PRODUCT), ``∨`` is componentwise when every factor has it."""

    factors: tuple[LocallyFiniteOrder[Any], ...]

    def leq(self, s: tuple[Any, ...], t: tuple[Any, ...]) -> bool:
        return all(o.leq(a, b) for o, a, b in zip(self.factors, s, t, strict=True))

    def down(self, t: tuple[Any, ...]) -> tuple[tuple[Any, ...], ...]:
        points = product(*(o.down(c) for o, c in zip(self.factors, t, strict=True)))
        # sorted by the size of the down-set: a linear extension (s < t => |↓s| < |↓t|)
        return tuple(sorted(points, key=self._down_size))

    def _down_size(self, t: tuple[Any, ...]) -> int:
        size = 1
        for o, c in zip(self.factors, t, strict=True):
            size *= len(o.down(c))
        return size

    def mobius(self, s: tuple[Any, ...], t: tuple[Any, ...]) -> int:
        value = 1
        for o, a, b in zip(self.factors, s, t, strict=True):
            value *= o.mobius(a, b)
        return value

    def sup(self, s: tuple[Any, ...], t: tuple[Any, ...]) -> tuple[Any, ...] | None:
        parts = [o.sup(a, b) for o, a, b in zip(self.factors, s, t, strict=True)]
        return None if any(p is None for p in parts) else tuple(parts)


def naturals_power(k: int) -> ProductOrder:
    """``N^k`` with the product order."""
    return ProductOrder((Naturals(),) * k)


@dataclass(frozen=True)
class FinitePowerset(LocallyFiniteOrder[frozenset[Any]]):
    """``P_fin(I)`` ordered by inclusion; ``μ(X, Y) = (-1)^#(Y \\ X)`` for
    ``X ⊆ Y`` (DD-CLAIM-MU-POWERSET); ``X ∨ Y = X ∪ Y``."""

    def leq(self, s: frozenset[Any], t: frozenset[Any]) -> bool:
        return s <= t

    def down(self, t: frozenset[Any]) -> tuple[frozenset[Any], ...]:
        elements = sorted(t, key=repr)
        return tuple(
            frozenset(c) for r in range(len(elements) + 1) for c in combinations(elements, r)
        )

    def mobius(self, s: frozenset[Any], t: frozenset[Any]) -> int:
        return (-1) ** len(t - s) if s <= t else 0

    def sup(self, s: frozenset[Any], t: frozenset[Any]) -> frozenset[Any]:
        return s | t


@dataclass(frozen=True)
class PrefixOrder(LocallyFiniteOrder[tuple[Any, ...]]):
    """Finite words ordered by prefix: a forest ("locally finite partial orders whose
    restriction to any ↓t is linear", DD §2.3). ``μ(w', w)`` is 1 if ``w' = w``, -1 if
    ``w'`` is ``w`` less its last letter, 0 otherwise; ``∨`` exists only for comparable
    words."""

    def leq(self, s: tuple[Any, ...], t: tuple[Any, ...]) -> bool:
        return t[: len(s)] == s

    def down(self, t: tuple[Any, ...]) -> tuple[tuple[Any, ...], ...]:
        return tuple(t[:n] for n in range(len(t) + 1))

    def mobius(self, s: tuple[Any, ...], t: tuple[Any, ...]) -> int:
        return 1 if s == t else -1 if len(t) > 0 and s == t[:-1] else 0

    def sup(self, s: tuple[Any, ...], t: tuple[Any, ...]) -> tuple[Any, ...] | None:
        return t if self.leq(s, t) else s if self.leq(t, s) else None

    def predecessor(self, t: tuple[Any, ...]) -> tuple[Any, ...] | None:
        """The largest ``t' < t`` (``↓t`` is a chain), or ``None`` at a root."""
        return t[:-1] if t else None


def down_closure(order: LocallyFiniteOrder[T], points: Iterable[T]) -> tuple[T, ...]:
    """The smallest down-closed set containing ``points``, in a linear extension."""
    seen: dict[T, int] = {}
    for t in points:
        for s in order.down(t):
            seen.setdefault(s, len(order.down(s)))
    return tuple(sorted(seen, key=lambda s: (seen[s], repr(s))))


@dataclass(frozen=True)
class Lexicographic:
    """The lexicographic product ``N ×_lex T`` of §5 (DD-DEF-LEX):
    ``(e, s) ≤ (e', s') ≡ (e < e') ∨ (e = e' ∧ s ≤ s')``. Not locally finite
    (DD-CLAIM-LEX-NOT-LF): it has no ``down``; :meth:`below` enumerates an
    infinite down-set instead."""

    inner: LocallyFiniteOrder[Any]

    def leq(self, s: tuple[int, Any], t: tuple[int, Any]) -> bool:
        return s[0] < t[0] or (s[0] == t[0] and self.inner.leq(s[1], t[1]))

    def below(self, t: tuple[int, Any], inner_points: Iterable[Any]) -> Iterator[tuple[int, Any]]:
        """For ``t = (e, s)`` with ``e > 0``: the elements ``(e - 1, s')`` for each given
        inner ``s'``, all ``≤ t``: any infinite family of inner points gives an infinite
        ``↓t``."""
        if t[0] == 0:
            raise ValueError("the witness needs an epoch e > 0")
        for s in inner_points:
            yield (t[0] - 1, s)


def naturals() -> Iterator[int]:
    """``0, 1, 2, ...``: an infinite family of points of ``N``."""
    return count()
