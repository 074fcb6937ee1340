"""§3.5 Parallel composition (STREAM-DEF-3.39 ... STREAM-DEF-3.49)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from reference.algebra.monoid import Monoid, StateFn, TensorProduct, direct_product
from reference.streams.equivalence import check_equivalent
from reference.streams.functions import StreamFunction
from reference.streams.processors import Processor, pure
from reference.streams.sequential import compose, seq
from reference.verdict import Verdict


def product_fn(f: Callable[[Any], Any], g: Callable[[Any], Any]) -> Callable[[tuple[Any, Any]], tuple[Any, Any]]:
    """STREAM-DEF-3.40: ``(f × g)((m, n)) ≜ (f(m), g(n))``."""
    return lambda mn: (f(mn[0]), g(mn[1]))


def product_stream_function(F: StreamFunction, G: StreamFunction) -> StreamFunction:
    """STREAM-PROP-3.40-SF: ``F × G`` with ``Δ(F × G)((m, n), (a, c)) = (ΔF(m, a), ΔG(n, c))``."""
    return StreamFunction(
        product_fn(F.F, G.F),
        lambda mn, ac: (F.dF(mn[0], ac[0]), G.dF(mn[1], ac[1])),
        direct_product(F.M, G.M), direct_product(F.N, G.N), f"{F.name}×{G.name}",
    )


def product(sigma: Processor, tau: Processor) -> Processor:
    """STREAM-DEF-3.41: ``σ × τ ≜ (S × T, h, (s_ε, t_ε), (p_ε, q_ε))`` with
    ``h((m, n)) = (s, t) ↦ let (α, β) = (f × g)((m, n)) in let (s', p) = α(s) and
    (t', q) = β(t) in ((s', t'), (p, q))``."""

    def h(mn: tuple[Any, Any]) -> StateFn:
        alpha, beta = product_fn(sigma.f, tau.f)(mn)

        def step(st: tuple[Any, Any]) -> tuple[tuple[Any, Any], tuple[Any, Any]]:
            s1, p = alpha(st[0])
            t1, q = beta(st[1])
            return ((s1, t1), (p, q))

        return step

    return Processor(
        h, (sigma.s_eps, tau.s_eps), (sigma.o_eps, tau.o_eps),
        direct_product(sigma.M, tau.M), direct_product(sigma.N, tau.N), f"({sigma.name} × {tau.name})",
    )


def merge(M: Monoid[Any]) -> Callable[[tuple[Any, Any]], Any]:
    """STREAM-DEF-3.42: ``merge((a, b)) ≜ a + b`` on a commutative monoid."""
    return lambda ab: M.op(ab[0], ab[1])


def pure_merge(M: Monoid[Any]) -> Processor:
    return pure(merge(M), direct_product(M, M), M, "merge")


def pure_id(M: Monoid[Any]) -> Processor:
    return pure(lambda m: m, M, M, "id")


def check_splitter(split: Processor, inputs: Sequence[Any]) -> Verdict:
    """STREAM-DEF-3.44: ``σ ; pure merge ∼ pure id`` (on ``inputs``, every batching)."""
    return check_equivalent(compose(split, pure_merge(split.M)), pure_id(split.M), inputs)


def parallel_pure(split: Processor, f: Callable[[Any], Any], name: str = "f") -> Processor:
    """STREAM-PROP-3.45 right-hand side: ``split ; (pure f × pure f) ; pure merge``."""
    M = split.M
    pf = pure(f, M, M, name)
    return seq(split, product(pf, pf), pure_merge(M))


# --- tensor product and Pairs (Def. 3.46-3.49) --------------------------------


def pairs_function(tensor: TensorProduct) -> StreamFunction:
    """STREAM-PROP-3.48: ``Pairs`` with ``ΔPairs((m, n), (m', n')) = m⊗n' + m'⊗n + m'⊗n'``."""
    ot, P = tensor.otimes, tensor.result

    def F(mn: tuple[Any, Any]) -> Any:
        return ot(mn[0], mn[1])

    def dF(mn: tuple[Any, Any], d: tuple[Any, Any]) -> Any:
        (m, n), (m1, n1) = mn, d
        return P.prod([ot(m, n1), ot(m1, n), ot(m1, n1)])

    return StreamFunction(F, dF, direct_product(tensor.left, tensor.right), P, "Pairs")


def pairs(tensor: TensorProduct) -> Processor:
    """STREAM-DEF-3.49: a processor with ``⟦pairs⟧ = Pairs``: the compact one of §2,
    state ``(E1, E2)``, ``f_pairs((δE1, δE2)) = (E1, E2) ↦ ((E1 + δE1, E2 + δE2),
    E1⊗δE2 + δE1⊗E2 + δE1⊗δE2)``. (§2 prints the first term as ``E1⊗δE1``, a typo.)"""
    L, R, P, ot = tensor.left, tensor.right, tensor.result, tensor.otimes

    def f_pairs(d: tuple[Any, Any]) -> StateFn:
        dm, dn = d

        def step(s: tuple[Any, Any]) -> tuple[tuple[Any, Any], Any]:
            m, n = s
            return ((L.op(m, dm), R.op(n, dn)), P.prod([ot(m, dn), ot(dm, n), ot(dm, dn)]))

        return step

    return Processor(f_pairs, (L.identity, R.identity), P.identity, direct_product(L, R), P, "pairs")
