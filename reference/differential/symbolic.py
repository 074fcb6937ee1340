"""First-order, int-specialised laws of DD §2 for CrossHair (symbolic evidence).

Each law is a top-level typed function returning ``bool`` with ``post: __return__``
and its bounds as ``pre:`` conditions; each has a broken twin (one fault) that
CrossHair must refute, so every symbolic check is shown able to fail. CrossHair
finding no counterexample is not a proof.
"""

from __future__ import annotations

from reference.algebra.group import Integers
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


def bilinear_n_law(c0: int, c1: int, d0: int, d1: int) -> bool:
    """DD-CLAIM-BILINEAR-N for f = mul on Z at n = 1:
    δ(f^N(c, d))_1 = c_1 δd_1 + δc_1 d_1 - δc_1 δd_1.

    pre: -50 <= c0 <= 50 and -50 <= c1 <= 50 and -50 <= d0 <= 50 and -50 <= d1 <= 50
    post: __return__
    """
    dc1, dd1 = c1 - c0, d1 - d0
    return c1 * d1 - c0 * d0 == c1 * dd1 + dc1 * d1 - dc1 * dd1


def bilinear_n_law_broken(c0: int, c1: int, d0: int, d1: int) -> bool:
    """Twin without the correction term - δc_1 δd_1.

    pre: -50 <= c0 <= 50 and -50 <= c1 <= 50 and -50 <= d0 <= 50 and -50 <= d1 <= 50
    post: __return__
    """
    dc1, dd1 = c1 - c0, d1 - d0
    return c1 * d1 - c0 * d0 == c1 * dd1 + dc1 * d1


HOLDS = ("mobius_n_law", "inversion_n_law", "bilinear_n_law")
FAILS = tuple(f"{law}_broken" for law in HOLDS)
