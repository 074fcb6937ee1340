"""§2 and §3.6: join optimisation (STREAM-DEF-3.50, STREAM-LEM-3.6, STREAM-THM-3.51).

The whole optimisation of §2 is replayed as a derivation
(:func:`optimisation_derivation`):

    pairs ; pure filter
  ∼ pure f_pairs ; eval pairs ; pure filter                  (Cor. 3.33)
  ∼ pure f_pairs ; pure filter_* ; eval_filter* pairs        (Cor. 3.36)
  ∼ pure (f_pairs ; filter_*) ; eval_filter* pairs           (Cor. 3.31)
  ∼ join                                                     (Prop. 3.30, fusion)
  ∼ pure split ; pure merge ; join                           (Def. 3.44, split is a splitter)
  ∼ pure split ; (join × join) ; pure merge                  (Lemma 3.6, independent inputs)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from reference.algebra.monoid import TensorProduct, direct_product, hom_on_generators
from reference.streams.parallel import pairs, product, pure_merge
from reference.streams.processors import Processor, pure, run
from reference.streams.rewriting import (
    Atom,
    Derivation,
    Pure,
    Seq,
    decompose_at,
    exchange_at,
    fusion_at,
    introduce_splitter,
    partition_at,
    pure_fusion_at,
)
from reference.streams.sequential import eval_g_star, f_star, fuse, seq
from reference.verdict import Verdict, fails, holds


def independent(sigma: Processor, a: Any, b: Any) -> bool:
    """STREAM-DEF-3.50: for ``σ`` with empty initial output, ``a, b`` are independent
    inputs when ``⟦σ⟧(ab) = ⟦σ⟧(a)·⟦σ⟧(b)``."""
    if not sigma.N.equal(sigma.o_eps, sigma.N.identity):
        raise ValueError(f"{sigma.name} has a non-empty initial output; Def. 3.50 does not apply")
    F, M, N = run(sigma), sigma.M, sigma.N
    return N.equal(F(M.op(a, b)), N.op(F(a), F(b)))


def check_independent_images(tau: Processor, sigma: Processor, inputs: Sequence[Any]) -> Verdict:
    """The hypothesis of STREAM-LEM-3.6: for every output ``(n1, n2)`` of ``⟦τ⟧`` on
    ``inputs``, ``n1`` and ``n2`` are independent inputs to ``σ``."""
    T = run(tau)
    for i, m in enumerate(inputs, 1):
        n1, n2 = T(m)
        if not independent(sigma, n1, n2):
            return fails("STREAM-DEF-3.50", f"images of {len(inputs)} inputs", i, input=m, n1=n1, n2=n2)
    return holds("STREAM-DEF-3.50", f"images of {len(inputs)} inputs", len(inputs))


def lemma_sides(tau: Processor, sigma: Processor) -> tuple[Processor, Processor]:
    """STREAM-LEM-3.6: ``τ ; pure merge_N ; σ`` and ``τ ; (σ × σ) ; pure merge_P``."""
    return (seq(tau, pure_merge(sigma.M), sigma), seq(tau, product(sigma, sigma), pure_merge(sigma.N)))


# --- Theorem 3.51 ------------------------------------------------------------

Hash = Callable[[Any], int]
Pred = Callable[[Any, Any], bool]


def split(tensor: TensorProduct, hash_A: Hash, hash_B: Hash) -> Callable[[Any], Any]:  # noqa: N803
    """STREAM-THM-3.51: ``split : M × N → (M × N) × (M × N)``, the homomorphism with
    ``split((a, ε)) = ((a, ε), ε)`` if ``hash_A(a) = 0`` else ``(ε, (a, ε))``, and the
    same for ``(ε, b)`` with ``hash_B``. Generators ``a`` are singletons of M."""
    MN = direct_product(tensor.left, tensor.right)
    out = direct_product(MN, MN)

    def on_generator(g: tuple[Any, Any]) -> Any:
        m, n = g
        is_left = not tensor.left.equal(m, tensor.left.identity)
        (element,) = list(m if is_left else n)
        bucket = (hash_A if is_left else hash_B)(element)
        return ((g, MN.identity) if bucket == 0 else (MN.identity, g))

    return hom_on_generators(MN, out, on_generator)


def filter_(tensor: TensorProduct, pred: Pred) -> Callable[[Any], Any]:
    """STREAM-THM-3.51: ``filter : M⊗N → M⊗N``, the homomorphism with
    ``filter(a⊗b) = a⊗b`` if ``pred(a, b)`` else ``ε``."""
    P = tensor.result
    return hom_on_generators(P, P, lambda g: g if pred(*next(iter(g))) else P.identity)


def join(tensor: TensorProduct, pred: Pred) -> Processor:
    """§2 / §3.6: ``join``, the fused processor ``pure (f_pairs ; filter_*) ; eval_filter* pairs``
    (STREAM-PROP-3.30): state ``(E1, E2)``; each batch emits the filtered new pairs."""
    p = pairs(tensor)
    filt = f_star(filter_(tensor, pred))
    fused = fuse(lambda d: filt(p.f(d)), p.M, eval_g_star(p, tensor.result, "filter"), "f_pairs ; filter*")
    return Processor(fused.f, fused.s_eps, fused.o_eps, fused.M, fused.N, "join")


def partitioned_join(tensor: TensorProduct, pred: Pred, hash_A: Hash, hash_B: Hash) -> Processor:  # noqa: N803
    """STREAM-THM-3.51 right-hand side: ``pure split ; (join × join) ; pure merge``."""
    MN = direct_product(tensor.left, tensor.right)
    j = join(tensor, pred)
    splitter = pure(split(tensor, hash_A, hash_B), MN, direct_product(MN, MN), "split")
    return seq(splitter, product(j, j), pure_merge(tensor.result))


def k_partitioned_join(tensor: TensorProduct, pred: Pred, hash_A: Hash, hash_B: Hash, k: int) -> Processor:  # noqa: N803
    """Theorem 3.51 applied ``k - 1`` times: partition ``j`` takes the elements with
    hash ``j``; ``pure split_0 ; (join × rest) ; pure merge`` where ``rest`` partitions
    the others among ``1 … k-1`` the same way (``k = 1``: plain ``join``)."""
    if k <= 1:
        return join(tensor, pred)
    MN = direct_product(tensor.left, tensor.right)
    rest = _shifted(tensor, pred, hash_A, hash_B, 1, k)
    splitter = pure(split(tensor, lambda a: 0 if hash_A(a) == 0 else 1, lambda b: 0 if hash_B(b) == 0 else 1),
                    MN, direct_product(MN, MN), "split_0")
    return seq(splitter, product(join(tensor, pred), rest), pure_merge(tensor.result))


def _shifted(tensor: TensorProduct, pred: Pred, hash_A: Hash, hash_B: Hash, j: int, k: int) -> Processor:  # noqa: N803
    if j == k - 1:
        return join(tensor, pred)
    MN = direct_product(tensor.left, tensor.right)
    splitter = pure(split(tensor, lambda a: 0 if hash_A(a) == j else 1, lambda b: 0 if hash_B(b) == j else 1),
                    MN, direct_product(MN, MN), f"split_{j}")
    return seq(splitter, product(join(tensor, pred), _shifted(tensor, pred, hash_A, hash_B, j + 1, k)),
               pure_merge(tensor.result))


def check_hash_hypothesis(hash_A: Hash, hash_B: Hash, pred: Pred, A: Sequence[Any], B: Sequence[Any]) -> Verdict:  # noqa: N803
    """The hypothesis of STREAM-THM-3.51: ``hash_A(a) ≠ hash_B(b) ⟹ pred(a, b) = ⊥``."""
    cases = 0
    for a in A:
        for b in B:
            cases += 1
            if hash_A(a) != hash_B(b) and pred(a, b):
                return fails("STREAM-THM-3.51", "hash hypothesis", cases, a=a, b=b)
    return holds("STREAM-THM-3.51", f"hash hypothesis on {len(A)}×{len(B)} generators", cases)


def optimisation_derivation(tensor: TensorProduct, pred: Pred, hash_A: Hash, hash_B: Hash) -> Derivation:  # noqa: N803
    """§2, replayed: from ``pairs ; pure filter`` to ``pure split ; (join × join) ; pure merge``."""
    P = tensor.result
    MN = direct_product(tensor.left, tensor.right)
    start = Pure(filter_(tensor, pred), P, P, "filter")
    split_stage = Pure(split(tensor, hash_A, hash_B), MN, direct_product(MN, MN), "split")
    merge_in = Pure(lambda ab: MN.op(ab[0], ab[1]), direct_product(MN, MN), MN, "merge")
    merge_out = Pure(lambda ab: P.op(ab[0], ab[1]), direct_product(P, P), P, "merge")
    d = Derivation(Seq((Atom(pairs(tensor)), start)))
    d = d.then("Corollary 3.33", "STREAM-COR-3.33", lambda e: decompose_at(e, 0))
    d = d.then("Corollary 3.36", "STREAM-COR-3.36", lambda e: exchange_at(e, 1))
    d = d.then("Corollary 3.31", "STREAM-COR-3.31", lambda e: pure_fusion_at(e, 0))
    d = d.then("Proposition 3.30 (fusion)", "STREAM-PROP-3.30", lambda e: fusion_at(e, 0, "join"))
    d = d.then("Definition 3.44 (split is a splitter)", "STREAM-DEF-3.44",
               lambda e: introduce_splitter(e, 0, split_stage, merge_in))
    d = d.then("Lemma 3.6 (independent inputs)", "STREAM-LEM-3.6", lambda e: partition_at(e, 0, merge_out))
    return d

