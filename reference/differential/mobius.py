"""Streams, the Möbius function and Möbius inversion (DD §2.2).

Representation (DD-DEC-STREAM-REPR). A stream is a function ``T -> G``. It is
represented by its restriction to a *finite down-closed* set of times (its
``domain``), listed in a linear extension. Every operation of the paper on
streams is causal (its value at ``t`` depends only on values at ``↓t``), so it is
computed exactly on the domain: ``δ_T``, ``S_T``, liftings, ``in``, ``fb``,
iteration. Statements about all ``t ∈ T`` are thus checked on every domain
enumerated, "up to" that domain.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from reference.algebra.group import Group
from reference.differential.orders import LocallyFiniteOrder, ProductOrder

T = TypeVar("T")
A = TypeVar("A")


def mobius_by_recursion(order: LocallyFiniteOrder[Any], s: Any, t: Any) -> int:
    """DD-DEF-MOBIUS: ``μ_T(t', t)`` by the paper's recursion:

    ``0`` if ``t' ≰ t``; ``1`` if ``t' = t``; ``-Σ_{t' ≤ r < t} μ_T(t', r)`` if ``t' < t``.

    Computed bottom-up over the interval ``[t', t]`` (quadratic in its size).
    """
    if not order.leq(s, t):
        return 0
    mu: dict[Any, int] = {}
    for r in order.interval(s, t):  # s first, t last (a linear extension)
        mu[r] = 1 if r == s else -sum(mu[q] for q in mu if order.lt(q, r))
    return mu[t]


@dataclass(frozen=True)
class Stream(Generic[T, A]):
    """A stream ``T -> G`` known on a finite down-closed ``domain`` (DD-DEC-STREAM-REPR)."""

    domain: tuple[T, ...]
    values: tuple[A, ...]
    _index: Mapping[T, int] = field(init=False, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        if len(self.domain) != len(self.values):
            raise ValueError("a stream has one value per time of its domain")
        object.__setattr__(self, "_index", {t: i for i, t in enumerate(self.domain)})

    def __call__(self, t: T) -> A:
        return self.values[self._index[t]]

    @staticmethod
    def tabulate(domain: Iterable[T], f: Callable[[T], A]) -> Stream[T, A]:
        points = tuple(domain)
        return Stream(points, tuple(f(t) for t in points))

    def items(self) -> list[tuple[T, A]]:
        return list(zip(self.domain, self.values, strict=True))


def mobius_transform(
    order: LocallyFiniteOrder[T], group: Group[A], f: Stream[T, A]
) -> Stream[T, A]:
    """DD-DEF-DELTA-T: ``δ_T(f)(t) = Σ_{t' ≤ t} μ_T(t', t) f(t')``."""
    return Stream.tabulate(
        f.domain,
        lambda t: group.sum(group.scale(order.mobius(s, t), f(s)) for s in order.down(t)),
    )


def summation(order: LocallyFiniteOrder[T], group: Group[A], f: Stream[T, A]) -> Stream[T, A]:
    """DD-DEF-S-T: ``S_T(f)(t) = Σ_{t' ≤ t} f(t')``."""
    return Stream.tabulate(f.domain, lambda t: group.sum(f(s) for s in order.down(t)))


@dataclass(frozen=True)
class StreamGroup(Group[Stream[Any, Any]]):
    """``G^T`` (on a finite down-closed ``domain``) with the linear inverses
    (DD-CLAIM-STREAM-INVERSES)

    ``δ_{G^T}(f)(t) = Σ_{t' ≤ t} μ_T(t', t) δ_G(f(t'))`` and
    ``S_{G^T}(f)(t) = Σ_{t' ≤ t} S_G(f(t'))``.
    """

    inner: Group[Any]
    order: LocallyFiniteOrder[Any]
    domain: tuple[Any, ...]

    def const(self, a: Any) -> Stream[Any, Any]:
        return Stream.tabulate(self.domain, lambda _: a)

    def zero(self) -> Stream[Any, Any]:
        return self.const(self.inner.zero())

    def add(self, a: Stream[Any, Any], b: Stream[Any, Any]) -> Stream[Any, Any]:
        return Stream.tabulate(self.domain, lambda t: self.inner.add(a(t), b(t)))

    def neg(self, a: Stream[Any, Any]) -> Stream[Any, Any]:
        return Stream.tabulate(self.domain, lambda t: self.inner.neg(a(t)))

    def delta(self, a: Stream[Any, Any]) -> Stream[Any, Any]:
        g, order = self.inner, self.order

        def at(t: Any) -> Any:
            weighted = ((order.mobius(s, t), s) for s in order.down(t))
            return g.sum(g.scale(mu, g.delta(a(s))) for mu, s in weighted if mu != 0)

        return Stream.tabulate(self.domain, at)

    def integrate(self, a: Stream[Any, Any]) -> Stream[Any, Any]:
        g = self.inner
        return Stream.tabulate(
            self.domain, lambda t: g.sum(g.integrate(a(s)) for s in self.order.down(t))
        )


def uncurry(nested: Stream[Any, Stream[Any, Any]]) -> Stream[tuple[Any, Any], Any]:
    """DD-CLAIM-NESTED-ISO: ``(G^T)^{T'} -> G^{T×T'}``, ``x ↦ ((t, t') ↦ x(t')(t))``."""
    inner_domain = nested.values[0].domain if nested.values else ()
    domain = tuple((t, u) for u in nested.domain for t in inner_domain)
    return Stream.tabulate(domain, lambda p: nested(p[1])(p[0]))


def curry(
    flat: Stream[tuple[Any, Any], Any], inner_domain: tuple[Any, ...], outer_domain: tuple[Any, ...]
) -> Stream[Any, Stream[Any, Any]]:
    """The inverse of :func:`uncurry`: ``y ↦ (t' ↦ (t ↦ y(t, t')))``."""
    return Stream.tabulate(
        outer_domain, lambda u: Stream.tabulate(inner_domain, lambda t: flat((t, u)))
    )


def product_domain(
    inner: LocallyFiniteOrder[Any],
    outer: LocallyFiniteOrder[Any],
    inner_domain: tuple[Any, ...],
    outer_domain: tuple[Any, ...],
) -> tuple[ProductOrder, tuple[tuple[Any, Any], ...]]:
    """The order ``T × T'`` and the domain ``inner_domain × outer_domain`` listed as
    :func:`uncurry` lists it."""
    return ProductOrder((inner, outer)), tuple((t, u) for u in outer_domain for t in inner_domain)
