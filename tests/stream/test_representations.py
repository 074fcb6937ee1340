"""§4 Efficient representations: the full adder, defunctionalization and bounded static
variation, with the embeddings φ, ψ and φ ; ψ = id checked."""

from __future__ import annotations

from itertools import product as cartesian
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.algebra.monoid import check_homomorphism
from reference.streams.processors import run, run_batches
from reference.streams.representations import (
    BITS_IN,
    IM_F,
    P1,
    P2,
    defunctionalize,
    f,
    full_adder,
    phi1_on_generators,
    phi1_relation_witness,
    phi2,
    psi1,
    psi2,
)

bit_pairs = st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1)), max_size=8).map(tuple)
WORDS = [w for n in range(5) for w in cartesian("xyz", repeat=n)]
INPUTS = [w for n in range(4) for w in cartesian([(0, 0), (0, 1), (1, 0), (1, 1)], repeat=n)]


def value(bits: tuple[int, ...]) -> int:
    return sum(b << i for i, b in enumerate(bits))


@pytest.mark.spec("STREAM-EX-4.1", evidence="property")
@given(bit_pairs, st.integers(0, 1))
def test_full_adder_adds(pairs: tuple[tuple[int, int], ...], carry: int) -> None:
    """Sum bits plus final carry, least significant bit first, are a + b + carry."""
    sigma = full_adder(carry)
    c_out, bits = f(pairs)(carry)
    a, b = value(tuple(p[0] for p in pairs)), value(tuple(p[1] for p in pairs))
    assert value(bits) + (c_out << len(pairs)) == a + b + carry
    assert run(sigma)(pairs) == bits == run_batches(sigma, [pairs[:3], pairs[3:]])


@pytest.mark.spec("STREAM-EX-4.1", evidence="example")
def test_full_adder_example() -> None:
    assert run(full_adder())(((0, 1), (0, 0), (1, 1))) == (1, 0, 0)  # 4 + 5 = 9 = 1001₂


# --- §4.1 defunctionalization ------------------------------------------------


@pytest.mark.spec("STREAM-DEF-4.1-P1", evidence="example")
@pytest.mark.spec("STREAM-CLAIM-4.1-PHI1", evidence="example")
def test_phi1_is_not_a_homomorphism() -> None:
    w = phi1_relation_witness()
    assert w["same_in_Im_f"] and not w["same_in_P1"]
    assert w["value_at_0"] == (0, (0, 1)) and w["value_at_1"] == (0, (1, 1))
    assert [phi1_on_generators(psi1((g,))) for g in "xyz"] == ["x", "y", "z"]


@pytest.mark.spec("STREAM-CLAIM-4.1-PHI1", evidence="exhaustive")
def test_im_f_is_not_free_exhaustive() -> None:
    """All words of length ≤ 4 over x, y, z: ψ1 is a homomorphism, f = defunctionalize ; ψ1 on all
    inputs of length ≤ 3, and ψ1 identifies distinct words, so no homomorphism φ1 with φ1(x) = x,
    φ1(y) = y, φ1(z) = z exists: φ1(ψ1(w)) would have to equal both words."""
    assert check_homomorphism(psi1, P1, IM_F, WORDS[:40], decided=False)
    for m in INPUTS:
        assert IM_F.equal(f(m), psi1(defunctionalize(m)))
    classes: dict[tuple[object, object], list[tuple[str, ...]]] = {}
    for w in WORDS:
        classes.setdefault((psi1(w)(0), psi1(w)(1)), []).append(w)
    collisions = [ws for ws in classes.values() if len(ws) > 1]
    assert any(("x", "y") in ws and ("z", "x") in ws for ws in collisions)
    assert len(classes) < len(WORDS)


# --- §4.2 bounded static variation -------------------------------------------


@pytest.mark.spec("STREAM-CLAIM-4.2-PHI2", evidence="exhaustive")
def test_phi2_psi2_exhaustive() -> None:
    """Im(f) restricted to images of inputs of length ≤ 3 (85 inputs): φ2 and ψ2 are
    homomorphisms (pairs of those), φ2 ; ψ2 = id (decided on both carries)."""
    alphas = [f(m) for m in INPUTS]
    assert check_homomorphism(phi2, IM_F, P2, alphas)
    codes = [phi2(a) for a in alphas]
    assert check_homomorphism(psi2, P2, IM_F, codes)
    assert all(IM_F.equal(psi2(phi2(a)), a) for a in alphas)


@pytest.mark.spec("STREAM-DEF-4-EMBED", evidence="property")
@pytest.mark.spec("STREAM-CLAIM-4.2-PHI2", evidence="property")
@given(bit_pairs, bit_pairs)
def test_phi2_psi2_property(m: tuple[tuple[int, int], ...], n: tuple[tuple[int, int], ...]) -> None:
    a, b = f(m), f(n)
    assert phi2(IM_F.op(a, b)) == P2.op(phi2(a), phi2(b))
    assert IM_F.equal(psi2(phi2(IM_F.op(a, b))), IM_F.op(a, b))
    assert phi2(f(BITS_IN.op(m, n))) == P2.op(phi2(f(m)), phi2(f(n)))


@pytest.mark.spec("STREAM-EX-4.2", evidence="example")
@pytest.mark.spec("STREAM-DEF-4.2-P2", evidence="example")
def test_paper_value_in_p2() -> None:
    """STREAM-EX-4.2: (f ; φ2)([(0,1),(0,0),(1,1)]) = (0 ↦ (1, [1,0,0]), 1 ↦ (1, [0,1,0]))."""
    assert phi2(f(((0, 1), (0, 0), (1, 1)))) == ((1, (1, 0, 0)), (1, (0, 1, 0)))


@pytest.mark.spec("STREAM-REM-4.2", evidence="property")
@given(st.lists(st.lists(st.integers(0, 3), max_size=3).map(tuple), min_size=1, max_size=3))
def test_stateless_representation_is_the_output_monoid(ns: list[tuple[int, ...]]) -> None:
    """State[{∗}, List] ≅ List: φ(α) = out(α(∗)) and ψ(n) = ∗ ↦ (∗, n) are inverse homomorphisms."""
    from reference.algebra.monoid import free_monoid, state_monoid

    L = free_monoid()
    S = state_monoid(L, ("*",))

    def phi(alpha: Any) -> tuple[int, ...]:
        result: tuple[int, ...] = alpha("*")[1]
        return result

    def psi(n: tuple[int, ...]) -> Any:
        return lambda s: ("*", n)

    assert check_homomorphism(psi, L, S, ns)
    alphas = [psi(n) for n in ns]
    assert check_homomorphism(phi, S, L, alphas)
    assert all(phi(psi(n)) == n for n in ns) and all(S.equal(psi(phi(a)), a) for a in alphas)
