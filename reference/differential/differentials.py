"""Function differentials and liftings (DD §2.3), Propositions 1 and 2.

``δ(f) = δ_H ∘ f ∘ S_G`` (DD-DEF-FUNCTION-DIFFERENTIAL); for binary ``f``,
``δ(f)(c, d) = δ_K(f(S_G(c), S_H(d)))``. Lifting by ``T`` is pointwise:
``f^T(c)_t = f(c_t)`` (DD-DEF-LIFT).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reference.algebra.group import Group
from reference.differential.mobius import Stream, StreamGroup

Unary = Callable[[Any], Any]
Binary = Callable[[Any, Any], Any]


def differential(f: Unary, dom: Group[Any], cod: Group[Any]) -> Unary:
    """DD-DEF-FUNCTION-DIFFERENTIAL: ``δ(f) = δ_H ∘ f ∘ S_G``."""
    return lambda c: cod.delta(f(dom.integrate(c)))


def differential2(f: Binary, left: Group[Any], right: Group[Any], cod: Group[Any]) -> Binary:
    """``δ(f)(c, d) = δ_K(f(S_G(c), S_H(d)))`` for ``f : G × H -> K``."""
    return lambda c, d: cod.delta(f(left.integrate(c), right.integrate(d)))


def lift(f: Unary) -> Callable[[Stream[Any, Any]], Stream[Any, Any]]:
    """DD-DEF-LIFT: ``f^T(c)_t = f(c_t)``."""
    return lambda c: Stream.tabulate(c.domain, lambda t: f(c(t)))


def lift2(f: Binary) -> Callable[[Stream[Any, Any], Stream[Any, Any]], Stream[Any, Any]]:
    """``f^T(c, d)_t = f(c_t, d_t)``."""
    return lambda c, d: Stream.tabulate(c.domain, lambda t: f(c(t), d(t)))


def _partial_sum(streams: StreamGroup, c: Stream[Any, Any], t: Any) -> Any:
    """``Σ_{t'' ≤ t} c_{t''}`` (plain sum, no ``S_G``)."""
    return streams.inner.sum(c(s) for s in streams.order.down(t))


def proposition_1_general(
    f: Unary, dom: StreamGroup, cod: StreamGroup, c: Stream[Any, Any], t: Any
) -> Any:
    """DD-PROP-1 part 1: ``δ(f^T)(c)_t = Σ_{t' ≤ t} μ(t', t) δ(f)(Σ_{t'' ≤ t'} c_{t''})``."""
    df = differential(f, dom.inner, cod.inner)
    h = cod.inner
    return h.sum(
        h.scale(dom.order.mobius(s, t), df(_partial_sum(dom, c, s)))
        for s in dom.order.down(t)
    )


def proposition_1_linear(f: Unary, dom: StreamGroup, cod: StreamGroup, c: Stream[Any, Any], t: Any) -> Any:
    """DD-PROP-1 part 2 (``f`` linear): ``δ(f^T)(c)_t = δ(f)(c_t)``."""
    return differential(f, dom.inner, cod.inner)(c(t))


def proposition_2_general(
    f: Binary, left: StreamGroup, right: StreamGroup, cod: StreamGroup,
    c: Stream[Any, Any], d: Stream[Any, Any], t: Any,
) -> Any:
    """DD-PROP-2 part 1:
    ``δ(f^T)(c, d)_t = Σ_{t' ≤ t} μ(t', t) δ(f)(Σ_{t'' ≤ t'} c_{t''}, Σ_{t'' ≤ t'} d_{t''})``."""
    df = differential2(f, left.inner, right.inner, cod.inner)
    k = cod.inner
    return k.sum(
        k.scale(left.order.mobius(s, t), df(_partial_sum(left, c, s), _partial_sum(right, d, s)))
        for s in left.order.down(t)
    )


def proposition_2_bilinear(
    f: Binary, left: StreamGroup, right: StreamGroup, cod: StreamGroup,
    c: Stream[Any, Any], d: Stream[Any, Any], t: Any,
) -> Any:
    """DD-PROP-2 part 2 (``f`` bilinear, ``T`` with binary sups):
    ``δ(f^T)(c, d)_t = Σ_{r ∨ s = t} δ(f)(c_r, d_s)``."""
    df = differential2(f, left.inner, right.inner, cod.inner)
    order = left.order
    down = order.down(t)
    return cod.inner.sum(df(c(r), d(s)) for r in down for s in down if order.sup(r, s) == t)


def bilinear_rule_chain(
    f: Binary, cod: Group[Any], c: Stream[Any, Any], d: Stream[Any, Any],
    dc: Stream[Any, Any], dd: Stream[Any, Any], t: Any,
) -> Any:
    """DD-CLAIM-BILINEAR-N, for ``T = N`` and forests, with ``δ(f) = f``:

    ``δ(f^N(c, d))_n = f(c_n, δ(d)_n) + f(δ(c)_n, d_n) - f(δ(c)_n, δ(d)_n)``

    where ``c, d`` are the streams and ``dc, dd`` their Möbius transforms.
    """
    return cod.sub(cod.add(f(c(t), dd(t)), f(dc(t), d(t))), f(dc(t), dd(t)))
