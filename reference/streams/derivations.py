"""Derivations of the paper replayed with the rewriting laws (besides §2's in
:mod:`.joins` and §3.4's in :mod:`.integral`).

MapReduce (§3.5, after Proposition 3.45):

    σ ∼ pure f ; eval σ                                           (Cor. 3.33)
      ∼ split ; (pure f × pure f) ; pure merge ; eval σ            (Prop. 3.45)

Proposition 3.45 is stated for ``f : M → M``; here ``f : M → State[S, N]``. The
step is sound when ``M`` is commutative: then ``Im(f)`` is commutative
(``f(a)f(b) = f(ab) = f(ba) = f(b)f(a)``), so ``merge((α, β)) = α ⊙ β`` is a
homomorphism on the pairs that reach it.
"""

from __future__ import annotations

from typing import Any

from reference.algebra.monoid import direct_product
from reference.streams.processors import Processor
from reference.streams.rewriting import Atom, Derivation, Pure, decompose_at, parallelize_pure


def mapreduce(sigma: Processor, split: Pure) -> Derivation:
    """σ rewritten into a parallel map (``pure f`` twice) and a reduction (``eval σ``)."""

    def step(e: Any) -> Any:
        hom = e.stages[0]
        P = hom.N
        merge = Pure(lambda ab: P.op(ab[0], ab[1]), direct_product(P, P), P, "merge")
        return parallelize_pure(e, 0, split, merge)

    d = Derivation(Atom(sigma))
    d = d.then("Corollary 3.33", "STREAM-COR-3.33", lambda e: decompose_at(e, 0))
    return d.then("Proposition 3.45", "STREAM-PROP-3.45", step)
