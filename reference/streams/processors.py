"""§3.2 Stream processors (STREAM-DEF-3.19 ... STREAM-PROP-3.26)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

from reference.algebra.monoid import Monoid, StateFn, check_homomorphism, out, state, state_monoid
from reference.streams.functions import Processor, StreamFunction, decompose
from reference.verdict import Verdict

__all__ = [
    "STAR", "Processor", "check_processor", "o_after", "o_total", "processor_of", "pure",
    "run", "run_batches", "s_after", "stream_function_of",
]

#: The single state ``∗`` of the trivial state set ``{∗}``.
STAR = "*"


def run(sigma: Processor) -> Callable[[Any], Any]:
    """STREAM-DEF-3.20: ``run (S, f, s_ε, o_ε) = m ↦ o_ε · out(f(m)(s_ε))``;
    ``⟦σ⟧ ≜ run σ`` (STREAM-THM-3.21)."""
    return lambda m: sigma.N.op(sigma.o_eps, out(sigma.f(m)(sigma.s_eps)))


def run_batches(sigma: Processor, batches: Sequence[Any]) -> Any:
    """The processor at work: feed the batches one at a time, threading the
    state and appending each incremental output ``o_{p⇝b}`` (STREAM-DEF-3.23)
    to the initial output. Equals ``⟦σ⟧(b1 ⋯ bk)`` because ``f`` is a homomorphism."""
    s, total = sigma.s_eps, sigma.o_eps
    for b in batches:
        s, o = sigma.f(b)(s)
        total = sigma.N.op(total, o)
    return total


def s_after(sigma: Processor, p: Any) -> Any:
    """STREAM-DEF-3.23: ``s_p ≜ state(f(p)(s_ε))``."""
    return state(sigma.f(p)(sigma.s_eps))


def o_after(sigma: Processor, p: Any, q: Any) -> Any:
    """STREAM-DEF-3.23: ``o_{p⇝q} ≜ out(f(q)(s_p))``."""
    return out(sigma.f(q)(s_after(sigma, p)))


def o_total(sigma: Processor, q: Any) -> Any:
    """STREAM-DEF-3.23: ``o_q ≜ o_ε · o_{ε⇝q}``."""
    return sigma.N.op(sigma.o_eps, o_after(sigma, sigma.M.identity, q))


def check_processor(sigma: Processor, inputs: Sequence[Any], states: Sequence[Hashable]) -> Verdict:
    """STREAM-DEF-3.19: ``f : M → State[S, N]`` is a homomorphism, checked on
    pairs of ``inputs`` with State elements compared on ``states``."""
    return check_homomorphism(sigma.f, sigma.M, state_monoid(sigma.N, states), inputs)


def stream_function_of(sigma: Processor) -> StreamFunction:
    """STREAM-THM-3.21 (expressive soundness), constructively: ``⟦σ⟧`` with
    ``ΔF(p, a) = o_{p⇝a}``."""
    return StreamFunction(run(sigma), lambda p, a: o_after(sigma, p, a), sigma.M, sigma.N, f"⟦{sigma.name}⟧")


def processor_of(sf: StreamFunction) -> Processor:
    """STREAM-THM-3.22 (expressive completeness): the processor ``σ_F`` with
    ``⟦σ_F⟧ = F``; "a restatement of Theorem 3.18"."""
    return decompose(sf)


def pure(f: Callable[[Any], Any], M: Monoid[Any], N: Monoid[Any], name: str = "f") -> Processor:
    """STREAM-DEF-3.24: ``pure f ≜ ({∗}, f', ∗, ε_N)`` with ``f'(a) = ∗ ↦ (∗, f(a))``."""

    def f_prime(a: Any) -> StateFn:
        image = f(a)
        return lambda s: (STAR, image)

    return Processor(f_prime, STAR, N.identity, M, N, f"pure {name}")
