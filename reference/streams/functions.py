"""§3.1 Stream functions (STREAM-DEF-3.13 ... STREAM-THM-3.18)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import product as cartesian
from typing import Any

from reference.algebra.monoid import Monoid, StateFn, free_monoid, hom_on_generators, state_monoid
from reference.verdict import Verdict, fails, holds


@dataclass(frozen=True)
class StreamFunction:
    """STREAM-DEF-3.13: ``F : M → N`` with an update ``ΔF : M × M → N`` such that
    (1) ``F(pa) = F(p)·ΔF(p, a)``, (2a) ``ΔF(p, ε) = ε``,
    (2b) ``ΔF(p, ab) = ΔF(p, a)·ΔF(pa, b)``.

    Whether the conditions hold is checked, not assumed: see
    :func:`check_condition_1`, :func:`check_condition_2a`, :func:`check_condition_2b`."""

    F: Callable[[Any], Any]
    dF: Callable[[Any, Any], Any]
    M: Monoid[Any]
    N: Monoid[Any]
    name: str = "F"


def check_condition_1(sf: StreamFunction, elements: Sequence[Any], decided: bool = False) -> Verdict:
    """Condition (1) ``F(pa) = F(p)·ΔF(p, a)`` for all ``p, a`` among ``elements``."""
    cases = 0
    for p, a in cartesian(elements, repeat=2):
        cases += 1
        lhs = sf.F(sf.M.op(p, a))
        rhs = sf.N.op(sf.F(p), sf.dF(p, a))
        if not sf.N.equal(lhs, rhs):
            return fails("STREAM-DEF-3.13", f"(1) over {len(elements)} elements", cases,
                         condition="(1)", p=p, a=a, lhs=lhs, rhs=rhs)
    return holds("STREAM-DEF-3.13", f"(1) over pairs of {len(elements)} elements", cases, decided)


def check_condition_2a(sf: StreamFunction, elements: Sequence[Any], decided: bool = False) -> Verdict:
    """Condition (2a) ``ΔF(p, ε) = ε``."""
    for i, p in enumerate(elements, 1):
        got = sf.dF(p, sf.M.identity)
        if not sf.N.equal(got, sf.N.identity):
            return fails("STREAM-DEF-3.13", f"(2a) over {len(elements)} elements", i,
                         condition="(2a)", p=p, got=got)
    return holds("STREAM-DEF-3.13", f"(2a) over {len(elements)} elements", len(elements), decided)


def check_condition_2b(sf: StreamFunction, elements: Sequence[Any], decided: bool = False) -> Verdict:
    """Condition (2b) ``ΔF(p, ab) = ΔF(p, a)·ΔF(pa, b)``."""
    cases = 0
    M, N = sf.M, sf.N
    for p, a, b in cartesian(elements, repeat=3):
        cases += 1
        lhs = sf.dF(p, M.op(a, b))
        rhs = N.op(sf.dF(p, a), sf.dF(M.op(p, a), b))
        if not N.equal(lhs, rhs):
            return fails("STREAM-DEF-3.13", f"(2b) over {len(elements)} elements", cases,
                         condition="(2b)", p=p, a=a, b=b, lhs=lhs, rhs=rhs)
    return holds("STREAM-DEF-3.13", f"(2b) over triples of {len(elements)} elements", cases, decided)


def check_stream_function(sf: StreamFunction, elements: Sequence[Any], decided: bool = False) -> Verdict:
    """All three conditions of STREAM-DEF-3.13 (the first failing one is reported)."""
    for check in (check_condition_1, check_condition_2a, check_condition_2b):
        verdict = check(sf, elements, decided)
        if not verdict:
            return verdict
    return holds("STREAM-DEF-3.13", f"(1), (2a), (2b) over {len(elements)} elements",
                 len(elements) ** 3, decided)


# --- the two constructive propositions (unnumbered in the paper) -------------


def update_for_left_cancellative(sf: StreamFunction) -> StreamFunction:
    """STREAM-PROP-3.13-LC: when (1) holds and the image is left-cancellative,
    the *same* ``ΔF`` satisfies (2): the proof cancels ``F(p)`` in
    ``F(p)·ΔF(p, ε) = F(p)`` and ``F(p)·ΔF(p, ab) = F(p)·ΔF(p, a)·ΔF(pa, b)``.
    (The cancellation needs ``F(p)`` to be cancellable in N, where the ΔF values
    live, not only in Im(F): see the catalog entry.)"""
    return sf


def update_for_idempotent(sf: StreamFunction) -> StreamFunction:
    """STREAM-PROP-3.13-IDEM: the proof's construction
    ``ΔF'(p, a) = ε if a = ε else F(p)·ΔF(p, a)``."""
    M, N = sf.M, sf.N

    def dF_prime(p: Any, a: Any) -> Any:
        if M.equal(a, M.identity):
            return N.identity
        return N.op(sf.F(p), sf.dF(p, a))

    return StreamFunction(sf.F, dF_prime, M, N, f"{sf.name}'")


# --- Examples 3.14 and 3.15 --------------------------------------------------


def homomorphism_as_stream_function(f: Callable[[Any], Any], M: Monoid[Any], N: Monoid[Any]) -> StreamFunction:
    """STREAM-EX-3.14: a homomorphism is a stream function with ``Δf(p, b) = f(b)``."""
    return StreamFunction(f, lambda p, b: f(b), M, N, "f")


def PS(xs: tuple[int, ...]) -> tuple[int, ...]:  # noqa: N802 (paper's name)
    """STREAM-EX-3.15: prefix sum, ``PS([1, 2, 3]) = [1, 3, 6]``."""
    out: list[int] = []
    total = 0
    for x in xs:
        total += x
        out.append(total)
    return tuple(out)


def delta_PS(xs: tuple[int, ...], ys: tuple[int, ...]) -> tuple[int, ...]:  # noqa: N802
    """STREAM-EX-3.15: ``ΔPS(xs, ys) = [(Σ xs) + y : y ∈ PS(ys)]``."""
    return tuple(sum(xs) + y for y in PS(ys))


def prefix_sum() -> StreamFunction:
    """STREAM-EX-3.15: prefix sum as a stream function ``List[Z] → List[Z]``."""
    lists = free_monoid("List[Z]")
    return StreamFunction(PS, delta_PS, lists, lists, "PS")


# --- Theorem 3.18 (decomposition) --------------------------------------------


@dataclass(frozen=True)
class Processor:
    """STREAM-DEF-3.19 (the tuple of STREAM-THM-3.18): ``σ : M ⇝ N = (S, f, s_ε, o_ε)``
    where ``f : M → State[S, N]`` is a homomorphism, ``s_ε ∈ S`` an initial state
    and ``o_ε ∈ N`` an initial output. ``S`` is implicit (the states ``f`` handles);
    that ``f`` is a homomorphism is checked (:func:`reference.streams.processors.check_processor`),
    not assumed."""

    f: Callable[[Any], StateFn]
    s_eps: Any
    o_eps: Any
    M: Monoid[Any]
    N: Monoid[Any]
    name: str = "σ"


def decompose(sf: StreamFunction) -> Processor:
    """STREAM-THM-3.18, the generic construction of its proof: ``S = M``,
    ``f(m) = s ↦ (s·m, ΔF(s, m))``, ``s_ε = ε_M``, ``o_ε = F(ε_M)``."""
    M = sf.M

    def f(m: Any) -> StateFn:
        return lambda s: (M.op(s, m), sf.dF(s, m))

    return Processor(f, M.identity, sf.F(M.identity), M, sf.N, f"generic({sf.name})")


def prefix_sum_compact() -> Processor:
    """STREAM-THM-3.18 worked example: prefix sum with ``S = Z``, defined on the
    generators by ``f([n]) = s ↦ (s + n, [s + n])`` and extended by
    ``f(a ++ b) = f(a) ⊙ f(b)``; ``s_ε = 0``, ``o_ε = []``."""
    lists = free_monoid("List[Z]")

    def on_generator(g: tuple[int, ...]) -> StateFn:
        (n,) = g
        return lambda s: (s + n, (s + n,))

    f = hom_on_generators(lists, state_monoid(lists, ()), on_generator)
    return Processor(f, 0, (), lists, lists, "compact(PS)")
