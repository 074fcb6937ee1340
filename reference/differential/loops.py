"""Loops (DD §3): ingress ``in``, feedback ``fb``, egress ``out_k``, the loop
equation (1), its differential (2) and Proposition 3.

Streams over ``N`` live on the domain ``0..horizon`` (DD-DEC-STREAM-REPR): all of
``in``, ``fb`` and liftings are causal, so the restriction is exact.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reference.algebra.group import Group
from reference.differential.mobius import Stream, StreamGroup
from reference.differential.orders import Naturals

Unary = Callable[[Any], Any]


def n_streams(group: Group[Any], horizon: int) -> StreamGroup:
    """``G^N`` on the domain ``0..horizon``."""
    return StreamGroup(group, Naturals(), tuple(range(horizon + 1)))


def ingress(streams: StreamGroup, c: Any) -> Stream[int, Any]:
    """DD-DEF-IN: ``in(c)_i = c`` if ``i = 0``, ``0`` if ``i > 0``."""
    zero = streams.inner.zero()
    return Stream.tabulate(streams.domain, lambda i: c if i == 0 else zero)


def feedback(streams: StreamGroup, c: Stream[int, Any]) -> Stream[int, Any]:
    """DD-DEF-FB: ``fb(c)_i = 0`` if ``i = 0``, ``c_{i-1}`` if ``i > 0``."""
    zero = streams.inner.zero()
    return Stream.tabulate(streams.domain, lambda i: zero if i == 0 else c(i - 1))


def egress(k: int, c: Stream[int, Any]) -> Any:
    """DD-DEF-OUT: ``out_k(c) = c_k``."""
    return c(k)


def iterate(f: Unary, n: int, c: Any) -> Any:
    """``f^n(c)``."""
    for _ in range(n):
        c = f(c)
    return c


def loop_equation(streams: StreamGroup, f: Unary, c: Any) -> Callable[[Stream[int, Any]], Stream[int, Any]]:
    """Equation (1) as the map ``F(d) = in(c) + fb(f^N(d))`` whose fixed points solve it."""

    def F(d: Stream[int, Any]) -> Stream[int, Any]:
        lifted = Stream.tabulate(d.domain, lambda i: f(d(i)))
        return streams.add(ingress(streams, c), feedback(streams, lifted))

    return F


def solve_causal(
    streams: StreamGroup, F: Callable[[Stream[int, Any]], Stream[int, Any]]
) -> Stream[int, Any]:
    """The unique fixed point of a map ``F`` whose value at ``i`` depends only on
    its argument at ``< i`` (as ``F`` of equations 1-3 does, through ``fb``):
    ``horizon + 1`` rounds from ``0`` fix one more point each."""
    d = streams.zero()
    for _ in streams.domain:
        d = F(d)
    return d


def loop_solution(streams: StreamGroup, f: Unary, c: Any) -> Stream[int, Any]:
    """DD-CLAIM-LOOP-EQ1: the unique solution ``s`` of (1): ``s_n = f^n(c)``."""
    return Stream.tabulate(streams.domain, lambda n: iterate(f, n, c))


def differential_loop_equation(
    streams: StreamGroup, df: Unary, dc: Any
) -> Callable[[Stream[int, Any]], Stream[int, Any]]:
    """Equation (2): ``d = δ(in)(δ(c)) + fb(δ(f^N)(d))``, with ``δ(f^N)`` computed as
    ``δ_{G^N} ∘ f^N ∘ S_{G^N}`` from ``δ(f) = df`` (``f = S ∘ df ∘ δ``)."""
    g = streams.inner

    def f(a: Any) -> Any:  # f recovered from δ(f) = δ ∘ f ∘ S
        return g.integrate(df(g.delta(a)))

    def F(d: Stream[int, Any]) -> Stream[int, Any]:
        integrated = streams.integrate(d)
        lifted = Stream.tabulate(d.domain, lambda i: f(integrated(i)))
        return streams.add(
            delta_ingress(streams, dc), feedback(streams, streams.delta(lifted))
        )

    return F


def delta_ingress(streams: StreamGroup, c: Any) -> Stream[int, Any]:
    """DD-PROP-3 (in): ``δ(in)(c)_i`` is ``c`` (i = 0), ``-c`` (i = 1), ``0`` (i >= 2)."""
    g = streams.inner
    return Stream.tabulate(
        streams.domain, lambda i: c if i == 0 else g.neg(c) if i == 1 else g.zero()
    )


def delta_egress(streams: StreamGroup, k: int, c: Stream[int, Any]) -> Any:
    """DD-PROP-3 (out): ``δ(out_k)(c) = Σ_{m ≤ k} c_m``."""
    return streams.inner.sum(c(m) for m in range(k + 1))


def delta_loop_formula(streams: StreamGroup, df: Unary, dc: Any) -> Stream[int, Any]:
    """DD-CLAIM-DELTA-S-FORMULA: ``δ(s)_n = Σ_{m ≤ n} μ(m, n) δ(f)^m(δ(c))``."""
    g, order = streams.inner, streams.order
    return Stream.tabulate(
        streams.domain,
        lambda n: g.sum(g.scale(order.mobius(m, n), iterate(df, m, dc)) for m in range(n + 1)),
    )


def delta_loop_cases(streams: StreamGroup, df: Unary, dc: Any) -> Stream[int, Any]:
    """The same, by cases: ``δ(c)`` at 0, ``δ(f)^n(δ(c)) - δ(f)^{n-1}(δ(c))`` at ``n > 0``."""
    g = streams.inner
    return Stream.tabulate(
        streams.domain,
        lambda n: dc if n == 0 else g.sub(iterate(df, n, dc), iterate(df, n - 1, dc)),
    )
