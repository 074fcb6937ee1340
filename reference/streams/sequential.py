"""§3.3 Sequential composition (STREAM-DEF-3.27 ... STREAM-COR-3.36)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

from reference.algebra.monoid import Monoid, StateFn, state_monoid
from reference.streams.processors import Processor


def compose(sigma: Processor, tau: Processor) -> Processor:
    """STREAM-DEF-3.27: ``σ ; τ ≜ (S × T, h, (s_ε, t_{n_ε}), p_ε · p_{ε⇝n_ε})`` where
    ``h(m) = (s, t) ↦ let (s', n) = f(m)(s) in let (t', p) = g(n)(t) in ((s', t'), p)``
    and ``(t_{n_ε}, p_{ε⇝n_ε}) = g(n_ε)(t_ε)``."""
    f, g = sigma.f, tau.f

    def h(m: Any) -> StateFn:
        fm = f(m)

        def step(st: tuple[Any, Any]) -> tuple[tuple[Any, Any], Any]:
            s, t = st
            s1, n = fm(s)
            t1, p = g(n)(t)
            return ((s1, t1), p)

        return step

    t_n_eps, p_eps_n_eps = g(sigma.o_eps)(tau.s_eps)
    return Processor(
        h, (sigma.s_eps, t_n_eps), tau.N.op(tau.o_eps, p_eps_n_eps), sigma.M, tau.N,
        f"({sigma.name} ; {tau.name})",
    )


def seq(*stages: Processor) -> Processor:
    """``σ1 ; σ2 ; … ; σk``, associated to the left."""
    result = stages[0]
    for s in stages[1:]:
        result = compose(result, s)
    return result


def fuse(f: Callable[[Any], Any], L: Monoid[Any], sigma: Processor, name: str = "f") -> Processor:
    """STREAM-PROP-3.30 (fusion): for a homomorphism ``f : L → M`` and
    ``σ = (S, g, s_ε, o_ε)``, ``τ = (S, f ; g, s_ε, o_ε)``; then ``τ ∼ pure f ; σ``."""
    g = sigma.f
    return Processor(lambda m: g(f(m)), sigma.s_eps, sigma.o_eps, L, sigma.N, f"fuse({name}, {sigma.name})")


def eval_(sigma: Processor, states: Sequence[Hashable] | None = None) -> Processor:
    """STREAM-DEF-3.32: ``eval σ ≜ (S, id, s_ε, o_ε) : State[S, N] ⇝ N``.
    ``states`` decides equality of the State inputs (default: ``{s_ε}``)."""
    M = state_monoid(sigma.N, states if states is not None else (sigma.s_eps,))
    return Processor(lambda alpha: alpha, sigma.s_eps, sigma.o_eps, M, sigma.N, f"eval {sigma.name}")


def f_star(f: Callable[[Any], Any]) -> Callable[[StateFn], StateFn]:
    """STREAM-DEF-3.34: ``f_*(α) ≜ s ↦ let (s', a) = α(s) in (s', f(a))`` (``fmap_State f``)."""

    def pushed(alpha: StateFn) -> StateFn:
        def beta(s: Any) -> tuple[Any, Any]:
            s1, a = alpha(s)
            return (s1, f(a))

        return beta

    return pushed


def exchange_target(sigma: Processor, g: Callable[[Any], Any], N: Monoid[Any]) -> Processor:
    """STREAM-THM-EXCHANGE: for ``σ = (S, id, s_ε, o_ε) : State[S, M] ⇝ M`` and a
    homomorphism ``g : M → N``, ``τ = (S, id, s_ε, g(o_ε)) : State[S, N] ⇝ N``;
    then ``σ ; pure g ∼ pure g_* ; τ``."""
    M = state_monoid(N, (sigma.s_eps,))
    return Processor(lambda alpha: alpha, sigma.s_eps, g(sigma.o_eps), M, N, f"τ[{sigma.name}]")


def eval_g_star(sigma: Processor, P: Monoid[Any], g_name: str = "g") -> Processor:
    """STREAM-COR-3.36: ``eval_{g_*} σ ≜ (S, id, s_ε, ε_P) : State[S, P] ⇝ P``."""
    M = state_monoid(P, (sigma.s_eps,))
    return Processor(lambda alpha: alpha, sigma.s_eps, P.identity, M, P, f"eval_{g_name}* {sigma.name}")
