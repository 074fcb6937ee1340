"""§3.7 Ticks and stratified set difference (STREAM-DEF-3.52 ... STREAM-PROP-3.56).

``T[M] = M ⋆ B`` (Def. 3.54). Because ``⊤ ∨ ⊤ = ⊤``, two ticks in a row are
one tick: ``x ⊤ ⊤ y = x ⊤ y``, so an empty stratum cannot be told apart from
no stratum. The formula of Proposition 3.55 gives different outputs for two
formal products denoting the same element (:func:`tick_collapse_witness`), so
the project reads ticks as *counted*, ``T_N[M] = M ⋆ (N, +, 0)``
(STREAM-DEC-COUNTED-TICKS). Both readings are implemented; the checks say
which holds where.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from reference.algebra.monoid import (
    Monoid,
    Word,
    booleans,
    direct_product,
    free_monoid,
    free_product,
    naturals,
    powerset,
)
from reference.streams.functions import StreamFunction
from reference.verdict import Verdict, fails, holds

SetPair = tuple[frozenset[Any], frozenset[Any]]


# --- Proposition 3.53 --------------------------------------------------------


def set_difference(ab: SetPair) -> frozenset[Any]:
    """STREAM-PROP-3.53: ``F((A, B)) = A \\ B`` on ``P(A) × P(A)``."""
    return ab[0] - ab[1]


def set_difference_witness(a: Any) -> tuple[SetPair, SetPair]:
    """The proof's inputs: ``p = ({a}, ∅)`` (positive) and ``n = (∅, {a})`` (negative)."""
    return ((frozenset([a]), frozenset()), (frozenset(), frozenset([a])))


def defeat(dF: Callable[[SetPair, SetPair], frozenset[Any]], a: Any) -> Verdict:  # noqa: N803
    """STREAM-PROP-3.53, constructively: any candidate ``ΔF`` violates condition (1) at
    ``(p, n)``: ``F(p + n) = ∅`` while ``F(p) ∪ ΔF(p, n) ⊇ {a}``. Returns the failing verdict."""
    p, n = set_difference_witness(a)
    PP = direct_product(powerset(), powerset())
    lhs = set_difference(PP.op(p, n))
    rhs = set_difference(p) | dF(p, n)
    if lhs == rhs:
        return holds("STREAM-PROP-3.53", "candidate ΔF at (p, n)", 1)
    return fails("STREAM-PROP-3.53", "candidate ΔF at (p, n)", 1, p=p, n=n, lhs=lhs, rhs=rhs)


# --- ticked monoids (Def. 3.54) and strata -----------------------------------


def ticked(M: Monoid[Any], counted: bool = True) -> Monoid[Word]:
    """``T[M] = M ⋆ B`` (``counted=False``, the paper's Def. 3.54) or the project's
    ``T_N[M] = M ⋆ N`` (``counted=True``, STREAM-DEC-COUNTED-TICKS)."""
    return free_product(M, naturals() if counted else booleans())


def tick(counted: bool = True) -> Word:
    """``_ ⋆ ⊤``: one tick."""
    return ((1, 1 if counted else True),)


def embed(value: Any, M: Monoid[Any]) -> Word:
    """``value ⋆ _``."""
    return () if M.equal(value, M.identity) else ((0, value),)


def strata(word: Word, M: Monoid[Any], counted: bool = True) -> list[Any]:
    """The strata of a ticked word: the M-values between ticks (``k + 1`` strata for
    ``k`` ticks). Under ``B`` a tick syllable is one boundary; counted, ``k`` boundaries."""
    out = [M.identity]
    for side, value in word:
        if side == 0:
            out[-1] = M.op(out[-1], value)
        else:
            out.extend([M.identity] * (value if counted else 1))
    return out


def from_strata(layers: Sequence[Any], T: Monoid[Word], M: Monoid[Any], counted: bool = True) -> Word:
    """``l1 ⊤ l2 ⊤ … ⊤ lk`` as an element of ``T`` (the formal product, normalised)."""
    word: Word = embed(layers[0], M)
    for layer in layers[1:]:
        word = T.op(T.op(word, tick(counted)), embed(layer, M))
    return word


# --- Proposition 3.55 (ticked stratified difference) -------------------------


def stratified_difference_layers(layers: Sequence[SetPair]) -> list[frozenset[Any]]:
    """The formula of STREAM-PROP-3.55 on a list of strata:
    ``[(A1, B1), (A2, B2), …] ↦ [A1 \\ ∅, A2 \\ B1, A3 \\ B2, …]``."""
    previous: frozenset[Any] = frozenset()
    out = []
    for a, b in layers:
        out.append(a - previous)
        previous = b
    return out


def stratified_difference(counted: bool = True) -> StreamFunction:
    """STREAM-PROP-3.55: ``F : T[P(A) × P(A)] → T[P(A)]`` with, on generators ``x``,
    ``ΔF(… ⊤ (A1, B1) ⊤ (A2, B2), x) = ε | ⊤ | A2' \\ B1`` for ``x = ε | ⊤ | (A2', B2')``,
    extended to all ``x`` by (2b)."""
    P = powerset()
    PP = direct_product(P, P)
    In, Out = ticked(PP, counted), ticked(P, counted)

    def F(word: Word) -> Word:
        return from_strata(stratified_difference_layers(strata(word, PP, counted)), Out, P, counted)

    def delta_generator(p: Word, x: Word) -> Word:
        if not x:
            return Out.identity
        side, value = x[0]
        if side == 1:
            return tick(counted) if value else Out.identity
        layers = strata(p, PP, counted)
        previous_negative = layers[-2][1] if len(layers) >= 2 else frozenset()
        return embed(value[0] - previous_negative, P)

    def dF(p: Word, a: Word) -> Word:
        total = Out.identity
        for g in In.generators_of(a):
            total = Out.op(total, delta_generator(p, g))
            p = In.op(p, g)
        return total

    return StreamFunction(F, dF, In, Out, "stratified-difference")


def tick_collapse_witness(a: Any) -> dict[str, Any]:
    """STREAM-DEC-COUNTED-TICKS: under ``T[M] = M ⋆ B`` the formal products
    ``w1 = (∅, {a}) ⊤ (∅, ∅) ⊤ ({a}, ∅)`` and ``w2 = (∅, {a}) ⊤ ({a}, ∅)`` are the same
    element (``⊤⊤ = ⊤`` and ``(ε ⋆ _) = ε``), but the printed formula maps them to
    ``⊤ {a}`` and ``⊤ ∅ = ⊤``: different elements of ``T[P(A)]``."""
    P = powerset()
    PP = direct_product(P, P)
    T_in, T_out = ticked(PP, counted=False), ticked(P, counted=False)
    e: frozenset[Any] = frozenset()
    s = frozenset([a])
    layers1 = [(e, s), (e, e), (s, e)]
    layers2 = [(e, s), (s, e)]
    w1 = from_strata(layers1, T_in, PP, counted=False)
    w2 = from_strata(layers2, T_in, PP, counted=False)
    o1 = from_strata(stratified_difference_layers(layers1), T_out, P, counted=False)
    o2 = from_strata(stratified_difference_layers(layers2), T_out, P, counted=False)
    return {"w1": w1, "w2": w2, "same_input": w1 == w2, "F_w1": o1, "F_w2": o2, "same_output": o1 == o2}


# --- Proposition 3.56 (lists of set pairs) -----------------------------------


def G(pairs: tuple[SetPair, ...]) -> tuple[frozenset[Any], ...]:  # noqa: N802 (paper's name)
    """STREAM-PROP-3.56: ``G([(A1, B1), (A2, B2), …]) = [A1 \\ ∅, A2 \\ B1, …]``."""
    return tuple(stratified_difference_layers(pairs))


def delta_G(p: tuple[SetPair, ...], a: tuple[SetPair, ...]) -> tuple[frozenset[Any], ...]:  # noqa: N802
    """``ΔG([…, (A1, B1)], [(A2, B2)]) = [A2 \\ B1]`` on generators, extended by (2b)."""
    out = []
    previous = p[-1][1] if p else frozenset()
    for a_i, b_i in a:
        out.append(a_i - previous)
        previous = b_i
    return tuple(out)


def list_stratified_difference() -> StreamFunction:
    """STREAM-PROP-3.56: ``G : List[P(A) × P(A)] → List[P(A)]``."""
    return StreamFunction(G, delta_G, free_monoid("List[P×P]"), free_monoid("List[P]"), "G")
