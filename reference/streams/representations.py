"""§4 Efficient representations for State[S, N] (STREAM-EX-4.1, STREAM-DEF-4.1-P1, STREAM-DEF-4.2-P2).

The full adder ``σ = (B, f, 0, ε) : List[B × B] ⇝ List[B]`` and two monoids
``P`` into which ``Im(f)`` embeds, with homomorphisms ``φ : Im(f) → P``,
``ψ : P → Im(f)`` and ``φ ; ψ = id_{Im(f)}``:

- ``P1 = ⟨x, y, z⟩`` (defunctionalization, §4.1): ``ψ1`` maps each generator to its
  function and ``f = defunctionalize ; ψ1``; but ``φ1``, defined on the generators,
  is not a homomorphism: ``Im(f)`` is not free on them (``x ⊙ y = z ⊙ x``,
  :func:`phi1_relation_witness`, STREAM-CLAIM-4.1-PHI1);
- ``P2`` (bounded static variation, "The Trick", §4.2): pairs ``(α(0), α(1))`` with
  ``⊙`` specialised to the two carries.
"""

from __future__ import annotations

from typing import Any

from reference.algebra.monoid import Monoid, StateFn, free_monoid, hom_on_generators, state_monoid
from reference.streams.processors import Processor

Bit = int
Bits = tuple[Bit, ...]
Result = tuple[Bit, Bits]  # (carry out, output bits)
P2Element = tuple[Result, Result]  # (0 ↦ α(0), 1 ↦ α(1))

CARRIES = (0, 1)
BITS_IN = free_monoid("List[B×B]")
BITS_OUT = free_monoid("List[B]")
IM_F = state_monoid(BITS_OUT, CARRIES)  # State[B, List[B]], equality decided on both carries


def gen_x(c: Bit) -> Result:
    """``c ↦ (0, [c])``: input (0, 0)."""
    return (0, (c,))


def gen_y(c: Bit) -> Result:
    """``c ↦ (c, [c̄])``: input (0, 1) or (1, 0)."""
    return (c, (1 - c,))


def gen_z(c: Bit) -> Result:
    """``c ↦ (1, [c])``: input (1, 1)."""
    return (1, (c,))


GENERATORS: dict[str, StateFn] = {"x": gen_x, "y": gen_y, "z": gen_z}


def generator_name(a: Bit, b: Bit) -> str:
    return {0: "x", 1: "y", 2: "z"}[a + b]


def f(m: tuple[tuple[Bit, Bit], ...]) -> StateFn:
    """Eq. (2): ``f([(a, b)])`` is ``x``, ``y`` or ``z`` by ``a + b``; ``f`` is the
    homomorphism ``List[B × B] → State[B, List[B]]`` defined on those generators."""
    return hom_on_generators(BITS_IN, IM_F, lambda g: GENERATORS[generator_name(*g[0])])(m)


def full_adder(carry: Bit = 0) -> Processor:
    """STREAM-EX-4.1: ``σ = (B, f, 0, ε)``; ``carry`` is the initial state (0 in the paper)."""
    if carry not in CARRIES:
        raise ValueError(f"a carry is a bit, got {carry!r}")
    return Processor(f, carry, (), BITS_IN, BITS_OUT, "full_adder")


# --- §4.1 defunctionalization ------------------------------------------------

P1 = free_monoid("⟨x,y,z⟩")


def defunctionalize(m: tuple[tuple[Bit, Bit], ...]) -> tuple[str, ...]:
    """``f`` with its closures replaced by their names: the homomorphism
    ``List[B × B] → P1`` with ``[(a, b)] ↦ x | y | z``. Then ``f = defunctionalize ; ψ1``."""
    return tuple(generator_name(a, b) for a, b in m)


def phi1_on_generators(alpha: StateFn) -> str:
    """§4.1: ``φ1(α) = x | y | z`` for ``α`` one of the three generator functions."""
    for name, g in GENERATORS.items():
        if IM_F.equal(alpha, g):
            return name
    raise ValueError("not a generator of Im(f)")


def phi1_relation_witness() -> dict[str, Any]:
    """STREAM-CLAIM-4.1-PHI1 refuted: ``Im(f)`` is not free on ``x, y, z``:
    ``x ⊙ y = z ⊙ x`` (both are ``c ↦ (0, [c, 1])``), while ``xy ≠ zx`` in ``P1``,
    so ``φ1`` defined on the generators does not extend to a homomorphism on ``Im(f)``."""
    left, right = ("x", "y"), ("z", "x")
    return {
        "left": left, "right": right,
        "same_in_Im_f": IM_F.equal(psi1(left), psi1(right)),
        "same_in_P1": left == right,
        "value_at_0": psi1(left)(0), "value_at_1": psi1(left)(1),
    }


def psi1(word: tuple[str, ...]) -> StateFn:
    """``ψ1 : P1 → Im(f)``, defined on the generators as ``φ1⁻¹``."""
    return hom_on_generators(P1, IM_F, lambda g: GENERATORS[g[0]])(word)


# --- §4.2 bounded static variation -------------------------------------------


def p2_product(x: P2Element, y: P2Element) -> P2Element:
    """``x ⊙ y = (0 ↦ let c = 0 in let (c, a) = x(c) in let (c, b) = y(c) in (c, a ++ b), 1 ↦ …)``."""

    def at(c0: Bit) -> Result:
        c, a = x[c0]
        c, b = y[c]
        return (c, a + b)

    return (at(0), at(1))


P2: Monoid[P2Element] = Monoid("P2", ((0, ()), (1, ())), p2_product)


def phi2(alpha: StateFn) -> P2Element:
    """``φ2(α) = (0 ↦ α(0), 1 ↦ α(1))``."""
    return (alpha(0), alpha(1))


def psi2(x: P2Element) -> StateFn:
    """``ψ2(x) = c ↦ x(c)``."""
    return lambda c: x[c]
