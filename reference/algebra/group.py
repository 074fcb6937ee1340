"""Abelian groups with linear inverses ``(G, δ_G, S_G)`` (DD §2.1-2.2, DD-DEF-GROUP-INVERSES).

"It is therefore natural to generalise to abelian groups G equipped with linear
inverses G -δ_G-> G -S_G-> G. A simple example is any abelian group G, such as
A(X), with δ_G = S_G = id_G."

A group is a value (an object with the operations), not a Python type: the same
element type can carry different structures. Stream groups ``G^T`` are in
:mod:`reference.differential.mobius`, as they need the Möbius function.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from reference.algebra.multiset import Multiset
from reference.algebra.zset import ZSet

A = TypeVar("A")


class Group(ABC, Generic[A]):
    """An abelian group with linear inverses ``δ`` and ``S`` (``S ∘ δ = id = δ ∘ S``)."""

    @abstractmethod
    def zero(self) -> A: ...

    @abstractmethod
    def add(self, a: A, b: A) -> A: ...

    @abstractmethod
    def neg(self, a: A) -> A: ...

    @abstractmethod
    def delta(self, a: A) -> A:
        """``δ_G``."""

    @abstractmethod
    def integrate(self, a: A) -> A:
        """``S_G``."""

    def sub(self, a: A, b: A) -> A:
        return self.add(a, self.neg(b))

    def sum(self, elements: Iterable[A]) -> A:
        total = self.zero()
        for e in elements:
            total = self.add(total, e)
        return total

    def scale(self, k: int, a: A) -> A:
        """``k·a`` (the Z-module structure every abelian group has)."""
        base = a if k >= 0 else self.neg(a)
        return self.sum(base for _ in range(abs(k)))


@dataclass(frozen=True)
class Integers(Group[int]):
    """``Z`` with ``δ = S = id``."""

    def zero(self) -> int:
        return 0

    def add(self, a: int, b: int) -> int:
        return a + b

    def neg(self, a: int) -> int:
        return -a

    def delta(self, a: int) -> int:
        return a

    def integrate(self, a: int) -> int:
        return a

    def scale(self, k: int, a: int) -> int:
        return k * a


@dataclass(frozen=True)
class ZSets(Group[ZSet]):
    """``A(X)``: Z-sets over any hashable type, pointwise sum, ``δ = S = id`` (DD-DEF-ZSET)."""

    def zero(self) -> ZSet:
        return ZSet.zero()

    def add(self, a: ZSet, b: ZSet) -> ZSet:
        return a + b

    def neg(self, a: ZSet) -> ZSet:
        return -a

    def delta(self, a: ZSet) -> ZSet:
        return a

    def integrate(self, a: ZSet) -> ZSet:
        return a

    def scale(self, k: int, a: ZSet) -> ZSet:
        return a.scale(k)


@dataclass(frozen=True)
class Unit(Group[tuple[()]]):
    """The one-element group ``1`` (the type ``unit`` of DD §4)."""

    def zero(self) -> tuple[()]:
        return ()

    def add(self, a: tuple[()], b: tuple[()]) -> tuple[()]:
        return ()

    def neg(self, a: tuple[()]) -> tuple[()]:
        return ()

    def delta(self, a: tuple[()]) -> tuple[()]:
        return ()

    def integrate(self, a: tuple[()]) -> tuple[()]:
        return ()


@dataclass(frozen=True)
class Product(Group[tuple[Any, Any]]):
    """``G × H`` with ``δ_{G×H}(c, d) = (δ_G(c), δ_H(d))`` and ``S_{G×H}(c, d) =
    (S_G(c), S_H(d))`` (DD-DEF-PRODUCT-GROUP)."""

    left: Group[Any]
    right: Group[Any]

    def zero(self) -> tuple[Any, Any]:
        return (self.left.zero(), self.right.zero())

    def add(self, a: tuple[Any, Any], b: tuple[Any, Any]) -> tuple[Any, Any]:
        return (self.left.add(a[0], b[0]), self.right.add(a[1], b[1]))

    def neg(self, a: tuple[Any, Any]) -> tuple[Any, Any]:
        return (self.left.neg(a[0]), self.right.neg(a[1]))

    def delta(self, a: tuple[Any, Any]) -> tuple[Any, Any]:
        return (self.left.delta(a[0]), self.right.delta(a[1]))

    def integrate(self, a: tuple[Any, Any]) -> tuple[Any, Any]:
        return (self.left.integrate(a[0]), self.right.integrate(a[1]))


def linear_extension(group: Group[A], f: Callable[[Multiset], A]) -> Callable[[ZSet], A]:
    """DD-CLAIM-LINEAR-EXTENSION: the unique linear extension ``f̄ : A(X) -> G`` of a
    linear ``f : C(X) -> G``, "given by ``f̄(c) = Σ_{x ∈ X} c(x) f(x)``" (``f(x)``: ``f``
    of the singleton multiset ``{x}``)."""

    def extended(c: ZSet) -> A:
        return group.sum(group.scale(w, f(Multiset.of(x))) for x, w in c.items())

    return extended
