"""First-order, int-specialised laws of DD §2 for CrossHair (symbolic evidence).

Each law is a top-level typed function returning ``bool`` with ``post: __return__``
and its bounds as ``pre:`` conditions; each has a broken twin (one fault) that
CrossHair must refute, so every symbolic check is shown able to fail. CrossHair
finding no counterexample is not a proof.
"""

from __future__ import annotations

from collections.abc import Callable

from reference.algebra.group import Integers
from reference.differential.differentials import bilinear_rule_chain, lift2
from reference.differential.mobius import Stream, mobius_by_recursion, mobius_transform, summation
from reference.differential.orders import Naturals


def mobius_n_law(s: int, t: int) -> bool:
    """DD-CLAIM-MU-N: the closed form of μ_N equals the recursion.

    pre: 0 <= s <= 6
    pre: 0 <= t <= 6
    post: __return__
    """
    return Naturals().mobius(s, t) == mobius_by_recursion(Naturals(), s, t)


def mobius_n_law_broken(s: int, t: int) -> bool:
    """Twin with a wrong closed form (μ(n - 1, n) = +1).

    pre: 0 <= s <= 6
    pre: 0 <= t <= 6
    post: __return__
    """
    closed = 1 if s == t or s == t - 1 else 0
    return closed == mobius_by_recursion(Naturals(), s, t)


def inversion_n_law(a: int, b: int, c: int) -> bool:
    """DD-THM-MOBIUS-INVERSION on N, for f = (a, b, c) on 0..2.

    pre: -100 <= a <= 100 and -100 <= b <= 100 and -100 <= c <= 100
    post: __return__
    """
    f = Stream((0, 1, 2), (a, b, c))
    n, z = Naturals(), Integers()
    return summation(n, z, mobius_transform(n, z, f)) == f == mobius_transform(n, z, summation(n, z, f))


def inversion_n_law_broken(a: int, b: int, c: int) -> bool:
    """Twin: S without its last term (Σ over t' < t) after the reference δ_N.

    pre: -100 <= a <= 100 and -100 <= b <= 100 and -100 <= c <= 100
    post: __return__
    """
    f = Stream((0, 1, 2), (a, b, c))
    n, z = Naturals(), Integers()
    delta = mobius_transform(n, z, f)
    strict = Stream.tabulate(f.domain, lambda t: sum(delta(s) for s in n.down(t) if s != t))
    return strict == f


def _mul(x: int, y: int) -> int:
    return x * y


def _chain_without_correction(
    f: Callable[[int, int], int], cod: Integers, c: Stream[int, int], d: Stream[int, int],
    dc: Stream[int, int], dd: Stream[int, int], t: int,
) -> int:
    """The bilinear rule with its correction term ``- f(δc_n, δd_n)`` dropped."""
    return cod.add(f(c(t), dd(t)), f(dc(t), d(t)))


def _bilinear_n_holds(rule: Callable[..., int], c0: int, c1: int, d0: int, d1: int) -> bool:
    """``rule`` at n = 1 equals δ(mul^N(c, d))_1 computed by the reference δ_N and lifting."""
    n, z = Naturals(), Integers()
    c, d = Stream((0, 1), (c0, c1)), Stream((0, 1), (d0, d1))
    dc, dd = mobius_transform(n, z, c), mobius_transform(n, z, d)
    expected = mobius_transform(n, z, lift2(_mul)(c, d))(1)
    return bool(rule(_mul, z, c, d, dc, dd, 1) == expected)


def bilinear_n_law(c0: int, c1: int, d0: int, d1: int) -> bool:
    """DD-CLAIM-BILINEAR-N for f = mul on Z at n = 1: the reference
    :func:`~reference.differential.differentials.bilinear_rule_chain`
    (δ(f^N(c, d))_1 = c_1 δd_1 + δc_1 d_1 - δc_1 δd_1) against δ_N of the lifted product.

    pre: -50 <= c0 <= 50 and -50 <= c1 <= 50 and -50 <= d0 <= 50 and -50 <= d1 <= 50
    post: __return__
    """
    return _bilinear_n_holds(bilinear_rule_chain, c0, c1, d0, d1)


def bilinear_n_law_broken(c0: int, c1: int, d0: int, d1: int) -> bool:
    """Twin without the correction term - δc_1 δd_1.

    pre: -50 <= c0 <= 50 and -50 <= c1 <= 50 and -50 <= d0 <= 50 and -50 <= d1 <= 50
    post: __return__
    """
    return _bilinear_n_holds(_chain_without_correction, c0, c1, d0, d1)


HOLDS = ("mobius_n_law", "inversion_n_law", "bilinear_n_law")
FAILS = tuple(f"{law}_broken" for law in HOLDS)
