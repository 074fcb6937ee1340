"""§3.4 The discrete integral and derivative are inverses (Theorem 3.38), both proofs."""

from __future__ import annotations

from itertools import product as cartesian

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.algebra.monoid import cyclic, integers, permutations3
from reference.streams.equivalence import check_equivalent
from reference.streams.integral import (
    D,
    I,
    derivative_processor,
    eq1,
    integral_processor,
    second_proof,
)
from reference.streams.processors import run
from reference.streams.rewriting import check_derivation, denote
from reference.streams.sequential import compose, f_star

S3 = permutations3()
PERMS = [p for p in cartesian(range(3), repeat=3) if len(set(p)) == 3]
ints = st.lists(st.integers(-9, 9), max_size=8).map(tuple)
perms = st.lists(st.sampled_from(PERMS), max_size=6).map(tuple)


@pytest.mark.spec("STREAM-DEF-3.37", evidence="property")
@pytest.mark.spec("STREAM-THM-3.38", evidence="property", part="I;D=id")
@pytest.mark.spec("STREAM-THM-3.38", evidence="property", part="D;I=id")
@given(ints, perms)
def test_semantic_proof(xs: tuple[int, ...], ps: tuple[tuple[int, int, int], ...]) -> None:
    """The first (semantic) proof as a property, over Z and the non-commutative S3."""
    Z = integers()
    assert D(Z, I(Z, xs)) == xs == I(Z, D(Z, xs))
    assert D(S3, I(S3, ps)) == ps == I(S3, D(S3, ps))


@pytest.mark.spec("STREAM-THM-3.38", evidence="exhaustive", part="I;D=id")
@pytest.mark.spec("STREAM-THM-3.38", evidence="exhaustive", part="D;I=id")
def test_inverse_exhaustive() -> None:
    """Every list of length ≤ 3 over S3 (259 lists) and over Z_5 (156): decided on those."""
    for G, carrier in ((S3, PERMS), (cyclic(5), list(range(5)))):
        for n in range(4):
            for xs in cartesian(carrier, repeat=n):
                assert D(G, I(G, xs)) == xs == I(G, D(G, xs))


@pytest.mark.spec("STREAM-THM-3.38", evidence="example", part="I;D=id")
def test_syntactic_proof_replayed() -> None:
    """The second proof, step by step: each law application checked by the equivalence
    checker on inputs and all their batchings, ending at pure id."""
    d = second_proof()
    assert [s.law for s in d.steps] == [
        "Corollary 3.33 (σ)", "Corollary 3.33 (τ)", "Corollary 3.36", "Corollary 3.31",
        "Eq. (1): (f ; g_*)([a1..an]) evaluated at ε, ε"]
    xs = [(), (3,), (1, -2, 5), (4, 4, 4, 4), (7, 0, -7, 1, 2, 3, 4, 5, 6)]
    for verdict in check_derivation(d, xs):
        assert verdict, verdict.describe()
    assert run(denote(d.last))((1, 2, 3)) == (1, 2, 3)


@pytest.mark.spec("STREAM-THM-3.38", evidence="example", part="D;I=id")
def test_syntactic_proof_other_order_on_s3() -> None:
    """The symmetric equality by the processors, on S3 (the derivation for I;D replayed on S3 too)."""
    sigma, tau = integral_processor(S3), derivative_processor(S3)
    xs = [(), (PERMS[1],), (PERMS[1], PERMS[2], PERMS[3])]
    assert check_equivalent(compose(tau, sigma), compose(sigma, tau), xs)
    for verdict in check_derivation(second_proof(S3), xs):
        assert verdict, verdict.describe()


@pytest.mark.spec("STREAM-THM-3.38", evidence="property", part="I;D=id")
@given(ints, st.integers(-5, 5), st.integers(-5, 5))
def test_eq1_closed_form(xs: tuple[int, ...], s: int, t: int) -> None:
    """Eq. (1): (f ; g_*)([a1..an]) = s ↦ (A(s), t ↦ (A(s), [t⁻¹·s·a1, a2, …, an]))."""
    Z = integers()
    sigma, tau = integral_processor(Z), derivative_processor(Z)
    s1, inner = f_star(tau.f)(sigma.f(xs))(s)
    assert (s1, inner(t)) == eq1(Z, xs, s, t)


@pytest.mark.spec("STREAM-THM-3.38", evidence="exhaustive", part="I;D=id")
def test_eq1_closed_form_on_s3() -> None:
    """Eq. (1) where the order of t⁻¹·s·a1 matters: every list of length ≤ 2 over the
    non-commutative S3 (43 lists) and every pair of states s, t (36). (The reading
    s·t⁻¹·a1 differs from the processors on 756 of the 1548 cases.)"""
    sigma, tau = integral_processor(S3), derivative_processor(S3)
    assert S3.inverse is not None
    inv, other_reading = S3.inverse, 0
    for n in range(3):
        for xs in cartesian(PERMS, repeat=n):
            for s, t in cartesian(PERMS, repeat=2):
                s1, inner = f_star(tau.f)(sigma.f(xs))(s)
                assert (s1, inner(t)) == eq1(S3, xs, s, t)
                if xs:
                    other_reading += inner(t)[1][0] != S3.op(S3.op(s, inv(t)), xs[0])
    assert other_reading == 756
