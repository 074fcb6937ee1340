"""First-order int specialisations of stream laws, for CrossHair.

Each law is a top-level typed function returning ``bool`` with ``post: __return__``
and bounded by ``pre:`` conditions. Laws in :data:`HOLDS` must get no
counterexample; their broken twins in :data:`FAILS` (one deliberate fault each)
must get one, so every symbolic check is shown able to fail. CrossHair finding
no counterexample within its time bound is not a proof.
"""

from __future__ import annotations

from collections.abc import Callable

from reference.algebra.monoid import direct_product, free_monoid, integers, state_monoid
from reference.streams.feedback import fix_sequence_feedback
from reference.streams.functions import PS, delta_PS, prefix_sum_compact
from reference.streams.integral import D, I
from reference.streams.parallel import merge
from reference.streams.processors import o_after, o_total, pure, run
from reference.streams.representations import f as adder
from reference.streams.sequential import compose, eval_, fuse


def prefix_sum_condition_1(p0: int, p1: int, a0: int, a1: int) -> bool:
    """STREAM-EX-3.15: PS(p ++ a) = PS(p) ++ ΔPS(p, a) for lists of two.

    post: __return__
    """
    p, a = (p0, p1), (a0, a1)
    return PS(p + a) == PS(p) + delta_PS(p, a)


def prefix_sum_condition_1_broken(p0: int, p1: int, a0: int, a1: int) -> bool:
    """Broken twin: the update restarts the sum (ΔPS(p, a) = PS(a)).

    post: __return__
    """
    p, a = (p0, p1), (a0, a1)
    return PS(p + a) == PS(p) + PS(a)


def decomposition_law(x0: int, x1: int, x2: int) -> bool:
    """STREAM-THM-3.18: the compact decomposition of prefix sum runs to PS.

    post: __return__
    """
    xs = (x0, x1, x2)
    return bool(run(prefix_sum_compact())(xs) == PS(xs))


def _forgetful_prefix_sum(xs: tuple[int, ...]) -> tuple[int, ...]:
    s, out = 0, []
    for n in xs:
        s, o = n, s + n  # broken: the new state forgets s
        out.append(o)
    return tuple(out)


def decomposition_law_broken(x0: int, x1: int, x2: int) -> bool:
    """Broken twin: f([n]) = s ↦ (n, [s + n]).

    post: __return__
    """
    xs = (x0, x1, x2)
    return _forgetful_prefix_sum(xs) == PS(xs)


def integral_derivative_law(a0: int, a1: int, a2: int) -> bool:
    """STREAM-THM-3.38 over Z, lists of three: I ; D = id = D ; I.

    post: __return__
    """
    Z = integers()
    xs = (a0, a1, a2)
    return D(Z, I(Z, xs)) == xs == I(Z, D(Z, xs))


def integral_derivative_law_broken(a0: int, a1: int, a2: int) -> bool:
    """Broken twin: a derivative that drops its first entry (ε in place of ε⁻¹·a1).

    post: __return__
    """
    Z = integers()
    xs = (a0, a1, a2)
    broken_derivative = (Z.identity, *D(Z, I(Z, xs))[1:])
    return broken_derivative == xs


def fixed_point_iff_zero(m: int, i: int) -> bool:
    """STREAM-CLAIM-3.57-NONTERM: u_{i+1} = u_i iff m = 0, for the fix sequence of the
    reference ``shift_add`` (:func:`reference.streams.feedback.fix_sequence_feedback`).

    pre: 0 <= i <= 6
    pre: m >= 0
    post: __return__
    """
    us = fix_sequence_feedback(m, i + 1)
    return (us[i + 1] == us[i]) == (m == 0)


def fixed_point_iff_zero_broken(m: int, i: int) -> bool:
    """Broken twin: the claim for m ≤ 1 instead of m = 0.

    pre: 0 <= i <= 6
    pre: m >= 0
    post: __return__
    """
    us = fix_sequence_feedback(m, i + 1)
    return (us[i + 1] == us[i]) == (m <= 1)


def _is_homomorphic(m: Callable[[tuple[int, int]], int], a: int, b: int, c: int, d: int) -> bool:
    Z = integers()
    ZZ = direct_product(Z, Z)
    return bool(m(ZZ.op((a, b), (c, d))) == Z.op(m((a, b)), m((c, d))))


def _product_merge(ab: tuple[int, int]) -> int:
    return ab[0] * ab[1]


def merge_homomorphism(a: int, b: int, c: int, d: int) -> bool:
    """STREAM-PROP-3.43 on (Z, +): the reference ``merge`` satisfies
    merge((a, b) · (c, d)) = merge((a, b)) + merge((c, d)) in Z × Z → Z.

    post: __return__
    """
    return _is_homomorphic(merge(integers()), a, b, c, d)


def merge_homomorphism_broken(a: int, b: int, c: int, d: int) -> bool:
    """Broken twin: a "merge" by multiplication, (a, b) ↦ a·b, is not a homomorphism into (Z, +).

    post: __return__
    """
    return _is_homomorphic(_product_merge, a, b, c, d)


def full_adder_law(a0: int, a1: int, a2: int, b0: int, b1: int, b2: int, c: int) -> bool:
    """STREAM-EX-4.1: the adder's bits and final carry are a + b + c (three bits, LSB first).

    pre: 0 <= a0 <= 1 and 0 <= a1 <= 1 and 0 <= a2 <= 1
    pre: 0 <= b0 <= 1 and 0 <= b1 <= 1 and 0 <= b2 <= 1
    pre: 0 <= c <= 1
    post: __return__
    """
    carry, bits = adder(((a0, b0), (a1, b1), (a2, b2)))(c)
    total = bits[0] + 2 * bits[1] + 4 * bits[2] + 8 * carry
    return bool(total == (a0 + 2 * a1 + 4 * a2) + (b0 + 2 * b1 + 4 * b2) + c)


def full_adder_law_broken(a0: int, a1: int, a2: int, b0: int, b1: int, b2: int, c: int) -> bool:
    """Broken twin: the carry is dropped between digits.

    pre: 0 <= a0 <= 1 and 0 <= a1 <= 1 and 0 <= a2 <= 1
    pre: 0 <= b0 <= 1 and 0 <= b1 <= 1 and 0 <= b2 <= 1
    pre: 0 <= c <= 1
    post: __return__
    """
    bits = [(a + b + c) % 2 for a, b in ((a0, b0), (a1, b1), (a2, b2))]
    total = bits[0] + 2 * bits[1] + 4 * bits[2]
    return total == (a0 + 2 * a1 + 4 * a2) + (b0 + 2 * b1 + 4 * b2) + c


IM_STATE = state_monoid(free_monoid(), ())


def incremental_outputs_law(p: int, a0: int, a1: int, b: int) -> bool:
    """STREAM-LEM-3.23 (1)-(4) for the compact prefix-sum processor, p = [p], a = [a0, a1], b = [b].

    post: __return__
    """
    sigma = prefix_sum_compact()
    pp, a, bb = (p,), (a0, a1), (b,)
    return bool(
        o_after(sigma, pp, ()) == ()
        and o_after(sigma, pp, a + bb) == o_after(sigma, pp, a) + o_after(sigma, pp + a, bb)
        and o_total(sigma, a + bb) == o_total(sigma, a) + o_after(sigma, a, bb)
        and run(sigma)(pp + a) == o_total(sigma, pp + a)
    )


def incremental_outputs_law_broken(p: int, a0: int, a1: int, b: int) -> bool:
    """Broken twin: the output after p of ab is taken as o_{p⇝a} ++ o_{p⇝b} (b from the wrong state).

    post: __return__
    """
    sigma = prefix_sum_compact()
    pp, a, bb = (p,), (a0, a1), (b,)
    return bool(o_after(sigma, pp, a + bb) == o_after(sigma, pp, a) + o_after(sigma, pp, bb))


def _shift(xs: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(x + 1 for x in xs)


def fusion_law(x0: int, x1: int, x2: int) -> bool:
    """STREAM-PROP-3.30 and STREAM-COR-3.33 for f = List[x ↦ x + 1] and σ = compact prefix sum.

    post: __return__
    """
    sigma = prefix_sum_compact()
    xs = (x0, x1, x2)
    hom = pure(sigma.f, sigma.M, IM_STATE, "f")
    pure_f = pure(_shift, sigma.M, sigma.M, "shift")
    fused = run(fuse(_shift, sigma.M, sigma))(xs)
    return bool(fused == run(compose(pure_f, sigma))(xs) and run(compose(hom, eval_(sigma)))(xs) == run(sigma)(xs))


def fusion_law_broken(x0: int, x1: int, x2: int) -> bool:
    """Broken twin: fusing in the wrong order (σ's output shifted instead of its input).

    post: __return__
    """
    sigma = prefix_sum_compact()
    xs = (x0, x1, x2)
    pure_f = pure(_shift, sigma.M, sigma.M, "shift")
    return bool(_shift(run(sigma)(xs)) == run(compose(pure_f, sigma))(xs))


HOLDS = (
    "prefix_sum_condition_1", "decomposition_law", "integral_derivative_law",
    "fixed_point_iff_zero", "merge_homomorphism", "full_adder_law", "incremental_outputs_law",
    "fusion_law",
)
FAILS = (
    "prefix_sum_condition_1_broken", "decomposition_law_broken", "integral_derivative_law_broken",
    "fixed_point_iff_zero_broken", "merge_homomorphism_broken", "full_adder_law_broken",
    "incremental_outputs_law_broken", "fusion_law_broken",
)
