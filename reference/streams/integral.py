"""§3.4 The discrete integral and derivative are inverses (STREAM-DEF-3.37, STREAM-THM-3.38)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reference.algebra.monoid import (
    Monoid,
    StateFn,
    free_monoid,
    hom_on_generators,
    integers,
    state_monoid,
)
from reference.streams.processors import Processor
from reference.streams.rewriting import (
    Atom,
    Derivation,
    Pure,
    Seq,
    decompose_at,
    exchange_at,
    pure_fusion_at,
)


def _inverse(G: Monoid[Any]) -> Any:
    if G.inverse is None:
        raise ValueError(f"{G.name} is not a group")
    return G.inverse


def I(G: Monoid[Any], xs: Sequence[Any]) -> tuple[Any, ...]:  # noqa: E743, N802 (paper's name)
    """STREAM-DEF-3.37: ``I([a1, …, an]) = [a1, a1a2, a1a2a3, …, Π ai]``."""
    out, acc = [], G.identity
    for a in xs:
        acc = G.op(acc, a)
        out.append(acc)
    return tuple(out)


def D(G: Monoid[Any], xs: Sequence[Any]) -> tuple[Any, ...]:  # noqa: N802 (paper's name)
    """STREAM-DEF-3.37: ``D([a1, a2, …, an]) = [ε⁻¹a1, a1⁻¹a2, …, a_{n-1}⁻¹a_n]``."""
    inv = _inverse(G)
    previous, out = G.identity, []
    for a in xs:
        out.append(G.op(inv(previous), a))
        previous = a
    return tuple(out)


def integral_processor(G: Monoid[Any] | None = None) -> Processor:
    """σ of the second proof: ``(G, f, ε, [])``, ``f([a]) = s ↦ (s·a, [s·a])``."""
    G = G or integers()
    L = free_monoid(f"List[{G.name}]")

    def on_generator(g: tuple[Any, ...]) -> StateFn:
        (a,) = g
        return lambda s: (G.op(s, a), (G.op(s, a),))

    return Processor(hom_on_generators(L, state_monoid(L, ()), on_generator), G.identity, (), L, L, "σ_I")


def derivative_processor(G: Monoid[Any] | None = None) -> Processor:
    """τ of the second proof: ``(G, g, ε, [])``, ``g([b]) = t ↦ (b, [t⁻¹·b])``."""
    G = G or integers()
    inv = _inverse(G)
    L = free_monoid(f"List[{G.name}]")

    def on_generator(g: tuple[Any, ...]) -> StateFn:
        (b,) = g
        return lambda t: (b, (G.op(inv(t), b),))

    return Processor(hom_on_generators(L, state_monoid(L, ()), on_generator), G.identity, (), L, L, "τ_D")


def second_proof(G: Monoid[Any] | None = None) -> Derivation:
    """The syntactic proof of STREAM-THM-3.38, replayed as law applications:

        σ ; τ ∼ pure f ; eval σ ; pure g ; eval τ          (Cor. 3.33, twice)
              ∼ pure f ; pure g_* ; eval_g* σ ; eval τ      (Cor. 3.36)
              ∼ pure (f ; g_*) ; eval_g* σ ; eval τ         (Cor. 3.31)
              ∼ pure id                                     (Eq. (1) of the proof, evaluated)
    """
    G = G or integers()
    sigma, tau = integral_processor(G), derivative_processor(G)
    L = sigma.M
    d = Derivation(Seq((Atom(sigma), Atom(tau))))
    d = d.then("Corollary 3.33 (σ)", "STREAM-COR-3.33", lambda e: decompose_at(e, 0))
    d = d.then("Corollary 3.33 (τ)", "STREAM-COR-3.33", lambda e: decompose_at(e, 2))
    d = d.then("Corollary 3.36", "STREAM-COR-3.36", lambda e: exchange_at(e, 1))
    d = d.then("Corollary 3.31", "STREAM-COR-3.31", lambda e: pure_fusion_at(e, 0))
    d = d.then("Eq. (1): (f ; g_*)([a1..an]) evaluated at ε, ε", "STREAM-THM-3.38",
               lambda e: Pure(lambda m: m, L, L, "id"))
    return d


def eq1(G: Monoid[Any], xs: Sequence[Any], s: Any, t: Any) -> tuple[Any, tuple[Any, tuple[Any, ...]]]:
    """Eq. (1) of the second proof, the closed form of ``(f ; g_*)([a1, …, an])`` at ``s``
    then ``t``: ``(A(s), (A(s), [t⁻¹·s·a1, a2, …, an]))`` with ``A(s) = s·Π ai``
    (for ``n ≥ 1``; for ``n = 0`` it is ``(s, (t, []))``)."""
    inv = _inverse(G)
    if not xs:
        return (s, (t, ()))
    a_s = G.op(s, G.prod(xs))
    return (a_s, (a_s, (G.op(G.op(inv(t), s), xs[0]), *xs[1:])))
