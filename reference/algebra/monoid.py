"""Monoids as values (STREAM §3.0, Definitions 3.1-3.11, 3.16, 3.39, 3.46, 3.52, 3.54).

A :class:`Monoid` is a value: its identity, its product, the equality of its
elements and, where the paper defines things on generators, a factorisation of
every element into generators (so that "a homomorphism defined on the
generators" extends to the whole monoid, :func:`hom_on_generators`).

Checkers for the monoid laws, the homomorphism laws, left-cancellativity,
commutativity and idempotence return a :class:`~reference.verdict.Verdict`
with a concrete counterexample when a law fails.

Elements are immutable Python values: tuples (free monoids), frozensets,
:class:`~reference.algebra.Multiset`, :class:`~reference.algebra.ZSet`, ints,
bools, pairs (direct products), normal-form words (free products). Elements
of ``State[S, M]`` are functions ``S -> (S, M)``; their equality is decided on
a given finite set of states.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import product as cartesian
from typing import Any, Generic, TypeVar

from reference.algebra.group import Group, Integers, ZSets
from reference.algebra.multiset import Multiset
from reference.algebra.weights import Weighted, canonical_order
from reference.algebra.zset import ZSet
from reference.verdict import Verdict, fails, holds

T = TypeVar("T")
U = TypeVar("U")


def _eq(a: Any, b: Any) -> bool:
    return bool(operator.eq(a, b))


@dataclass(frozen=True)
class Monoid(Generic[T]):
    """STREAM-DEF-3.1: "a set M equipped with a binary operator · : M × M → M
    called product and element ε ∈ M called identity" (laws: see :func:`check_monoid_laws`).

    ``factor(m)`` lists generators whose product is ``m`` (STREAM-DEF-3.5), or is
    ``None`` when the monoid has no chosen generating set. ``inverse`` is set for
    groups (STREAM-DEF-3.3).
    """

    name: str
    identity: T
    op: Callable[[T, T], T]
    factor: Callable[[T], Sequence[T]] | None = None
    equal: Callable[[T, T], bool] = field(default=_eq)
    inverse: Callable[[T], T] | None = None

    def prod(self, elements: Iterable[T]) -> T:
        """The product of a finite sequence, ε for the empty one."""
        result = self.identity
        for e in elements:
            result = self.op(result, e)
        return result

    def generators_of(self, m: T) -> Sequence[T]:
        if self.factor is None:
            raise ValueError(f"{self.name} has no chosen generators")
        return self.factor(m)


# --- homomorphisms -----------------------------------------------------------


def hom_on_generators(
    source: Monoid[T], target: Monoid[U], on_generator: Callable[[T], U]
) -> Callable[[T], U]:
    """The homomorphism defined on the generators of ``source``:
    ``f(g1 ⋯ gk) = f(g1) ⋯ f(gk)``. Well defined only when ``on_generator``
    respects the relations of ``source`` (trivially so for free monoids)."""

    def f(m: T) -> U:
        return target.prod(on_generator(g) for g in source.generators_of(m))

    return f


# --- the monoids of the paper ------------------------------------------------


def free_monoid(name: str = "List") -> Monoid[tuple[Any, ...]]:
    """STREAM-DEF-3.9: ``(List[S], ++, [])``; lists are tuples, generators singletons."""
    return Monoid(name, (), lambda a, b: a + b, factor=lambda m: [(x,) for x in m])


def powerset(name: str = "P") -> Monoid[frozenset[Any]]:
    """STREAM-EX-3.10: ``(P(S), ∪, ∅)``, commutative and idempotent; generators singletons."""
    return Monoid(
        name, frozenset(), lambda a, b: a | b,
        factor=lambda m: [frozenset([x]) for x in canonical_order(m)],
    )


def bags(name: str = "Bag") -> Monoid[Multiset]:
    """Finite multisets under ⊎ (commutative, left-cancellative); generators singletons."""
    return Monoid(
        name, Multiset(), lambda a, b: a | b,
        factor=lambda m: [Multiset.of(x) for x in m.elements()],
    )


def group_monoid(
    group: Group[T], name: str, factor: Callable[[T], Sequence[T]] | None = None
) -> Monoid[T]:
    """The monoid ``(G, +, 0)`` of an abelian group, with its inverse ``-``
    (STREAM-DEF-3.3: a group is a monoid where every element has an inverse)."""
    return Monoid(name, group.zero(), group.add, factor=factor, inverse=group.neg)


def zsets(name: str = "ZSet") -> Monoid[ZSet]:
    """Z-sets under + (the group ``A(X)`` of :class:`~reference.algebra.group.ZSets`);
    generators ±singletons."""

    def factor(z: ZSet) -> list[ZSet]:
        out: list[ZSet] = []
        for e, w in z.items():
            unit = ZSet({e: 1 if w > 0 else -1})
            out.extend([unit] * abs(w))
        return out

    return group_monoid(ZSets(), name, factor)


def booleans() -> Monoid[bool]:
    """STREAM-DEF-3.54: ``B = ({⊥, ⊤}, ∨, ⊥)`` with ``⊤ ∨ x = ⊤``; ⊥ is False, ⊤ is True."""
    return Monoid("B", False, lambda a, b: a or b, factor=lambda m: [True] if m else [])


def integers() -> Monoid[int]:
    """``(Z, +, 0)`` (the group :class:`~reference.algebra.group.Integers`), generated by ±1."""
    return group_monoid(Integers(), "Z", lambda n: [1 if n > 0 else -1] * abs(n))


def naturals() -> Monoid[int]:
    """``(N, +, 0)``: the free monoid on one generator (used for counted ticks)."""
    return Monoid("N", 0, lambda a, b: a + b, factor=lambda n: [1] * n)


def cyclic(n: int) -> Monoid[int]:
    """``Z_n``: the integers modulo ``n`` under addition, a finite group."""
    return Monoid(
        f"Z{n}", 0, lambda a, b: (a + b) % n,
        factor=lambda m: [1] * m, inverse=lambda m: (-m) % n,
    )


def permutations3() -> Monoid[tuple[int, int, int]]:
    """S_3 under composition ``(p·q)(i) = q(p(i))``: a non-commutative group
    (used to check the integral/derivative of §3.4 where order matters)."""

    def compose(p: tuple[int, int, int], q: tuple[int, int, int]) -> tuple[int, int, int]:
        return (q[p[0]], q[p[1]], q[p[2]])

    def invert(p: tuple[int, int, int]) -> tuple[int, int, int]:
        inv = [0, 0, 0]
        for i, pi in enumerate(p):
            inv[pi] = i
        return (inv[0], inv[1], inv[2])

    return Monoid("S3", (0, 1, 2), compose, factor=lambda p: [p], inverse=invert)


def direct_product(m: Monoid[Any], n: Monoid[Any]) -> Monoid[tuple[Any, Any]]:
    """STREAM-DEF-3.39: ``M × N``, componentwise product; generated by
    ``(m, ε)`` and ``(ε, n)`` (all M-generators first, then all N-generators:
    the two kinds commute, STREAM-REM-3.39)."""

    def op(a: tuple[Any, Any], b: tuple[Any, Any]) -> tuple[Any, Any]:
        return (m.op(a[0], b[0]), n.op(a[1], b[1]))

    def factor(x: tuple[Any, Any]) -> list[tuple[Any, Any]]:
        return [(g, n.identity) for g in m.generators_of(x[0])] + [
            (m.identity, g) for g in n.generators_of(x[1])
        ]

    def equal(a: tuple[Any, Any], b: tuple[Any, Any]) -> bool:
        return m.equal(a[0], b[0]) and n.equal(a[1], b[1])

    inverse = None
    if m.inverse is not None and n.inverse is not None:
        mi, ni = m.inverse, n.inverse

        def inverse(x: tuple[Any, Any]) -> tuple[Any, Any]:
            return (mi(x[0]), ni(x[1]))

    has_factor = m.factor is not None and n.factor is not None
    return Monoid(
        f"{m.name}×{n.name}", (m.identity, n.identity), op,
        factor=factor if has_factor else None, equal=equal, inverse=inverse,
    )


#: A word of the free product in normal form: alternating syllables
#: ``(side, value)`` with side 0 (from M) or 1 (from N), no identity syllable.
Word = tuple[tuple[int, Any], ...]


def free_product(m: Monoid[Any], n: Monoid[Any]) -> Monoid[Word]:
    """STREAM-DEF-3.52: ``M ⋆ N``, formal products of ``m ⋆ _`` and ``_ ⋆ n``
    subject to ``(ε_M ⋆ _) = ε = (_ ⋆ ε_N)``, ``(m1 ⋆ _)(m2 ⋆ _) = (m1m2 ⋆ _)``
    and ``(_ ⋆ n1)(_ ⋆ n2) = (_ ⋆ n1n2)``.

    Normal form: alternating non-identity syllables; the product concatenates
    and merges equal-side syllables at the seam (cancelling to ε if needed)."""
    sides = (m, n)

    def op(a: Word, b: Word) -> Word:
        left, right = list(a), list(b)
        while left and right and left[-1][0] == right[0][0]:
            side = left[-1][0]
            merged = sides[side].op(left.pop()[1], right.pop(0)[1])
            if not sides[side].equal(merged, sides[side].identity):
                left.append((side, merged))
                break
        return tuple(left + right)

    def factor(w: Word) -> list[Word]:
        return [((side, g),) for side, v in w for g in sides[side].generators_of(v)]

    return Monoid(f"{m.name}⋆{n.name}", (), op, factor=factor)


# --- tensor product of commutative monoids (Def. 3.46) -----------------------


@dataclass(frozen=True)
class TensorProduct:
    """STREAM-DEF-3.46: ``M ⊗ N`` for free commutative monoids ``M``, ``N``
    generated by sets ``A``, ``B``: it is the free commutative monoid of the same
    kind on ``A × B`` and ``m ⊗ n`` expands bilinearly into ``Σ a_i ⊗ b_j``.

    ``result`` is the monoid ``M ⊗ N``; ``otimes(m, n)`` is ``m ⊗ n``."""

    left: Monoid[Any]
    right: Monoid[Any]
    result: Monoid[Any]
    otimes: Callable[[Any, Any], Any]


W = TypeVar("W", bound=Weighted)


def _weighted_otimes(m: W, n: W) -> W:
    """Bags and Z-sets: ``(Σ w_a a) ⊗ (Σ w_b b) = Σ w_a w_b (a, b)``."""
    return type(m)({(a, b): wa * wb for a, wa in m.items() for b, wb in n.items()})


def _set_otimes(m: frozenset[Any], n: frozenset[Any]) -> frozenset[Any]:
    return frozenset(cartesian(m, n))


def bag_tensor() -> TensorProduct:
    return TensorProduct(bags(), bags(), bags("Bag⊗Bag"), _weighted_otimes)


def set_tensor() -> TensorProduct:
    return TensorProduct(powerset(), powerset(), powerset("P⊗P"), _set_otimes)


def zset_tensor() -> TensorProduct:
    return TensorProduct(zsets(), zsets(), zsets("ZSet⊗ZSet"), _weighted_otimes)


def Pairs(tensor: TensorProduct) -> Callable[[tuple[Any, Any]], Any]:  # noqa: N802 (paper's name)
    """STREAM-DEF-3.47: ``Pairs((m, n)) = m ⊗ n``."""
    return lambda mn: tensor.otimes(mn[0], mn[1])


# --- State[S, M] (Def. 3.16) -------------------------------------------------

#: An element of State[S, M]: a "hypothetical" S -> S × M.
StateFn = Callable[[Any], tuple[Any, Any]]


def odot(m: Monoid[Any]) -> Callable[[StateFn, StateFn], StateFn]:
    """STREAM-DEF-3.16: ``α ⊙ β = s ↦ let (sα, a) = α(s) in let (sβ, b) = β(sα) in (sβ, a ·_M b)``."""

    def product(alpha: StateFn, beta: StateFn) -> StateFn:
        def composed(s: Any) -> tuple[Any, Any]:
            s_alpha, a = alpha(s)
            s_beta, b = beta(s_alpha)
            return (s_beta, m.op(a, b))

        return composed

    return product


def state_identity(m: Monoid[Any]) -> StateFn:
    """``s ↦ (s, ε_M)``."""
    return lambda s: (s, m.identity)


def state_monoid(m: Monoid[Any], states: Sequence[Hashable]) -> Monoid[StateFn]:
    """STREAM-DEF-3.16: ``State[S, M] = (S → S × M, ⊙, s ↦ (s, ε_M))``. Two
    elements are equal when they agree on every state in ``states`` (decided
    exactly when ``states`` is all of S)."""

    def equal(alpha: StateFn, beta: StateFn) -> bool:
        for s in states:
            sa, a = alpha(s)
            sb, b = beta(s)
            if sa != sb or not m.equal(a, b):
                return False
        return True

    return Monoid(f"State[S,{m.name}]", state_identity(m), odot(m), equal=equal)


def state(result: tuple[Any, Any]) -> Any:
    """STREAM-DEF-3.17: the first projection ``S × M → S``."""
    return result[0]


def out(result: tuple[Any, Any]) -> Any:
    """STREAM-DEF-3.17: the second projection ``S × M → M``."""
    return result[1]


# --- checkers ----------------------------------------------------------------


def check_monoid_laws(m: Monoid[T], elements: Sequence[T], decided: bool = False) -> Verdict:
    """STREAM-DEF-3.1: identity ``aε = a = εa`` and associativity ``(ab)c = a(bc)``
    for all listed elements (``decided`` when they are the whole carrier)."""
    searched = f"{len(elements)} elements of {m.name}"
    cases = 0
    for a in elements:
        cases += 1
        if not (m.equal(m.op(a, m.identity), a) and m.equal(m.op(m.identity, a), a)):
            return fails("STREAM-DEF-3.1", searched, cases, law="identity", a=a)
    for a, b, c in cartesian(elements, repeat=3):
        cases += 1
        if not m.equal(m.op(m.op(a, b), c), m.op(a, m.op(b, c))):
            return fails("STREAM-DEF-3.1", searched, cases, law="associativity", a=a, b=b, c=c)
    return holds("STREAM-DEF-3.1", searched, cases, decided)


def check_homomorphism(
    f: Callable[[T], U], source: Monoid[T], target: Monoid[U], elements: Sequence[T],
    decided: bool = False,
) -> Verdict:
    """STREAM-DEF-3.11: (a) ``f(ε) = ε`` and (b) ``f(ab) = f(a)f(b)``."""
    searched = f"pairs of {len(elements)} elements of {source.name}"
    if not target.equal(f(source.identity), target.identity):
        return fails("STREAM-DEF-3.11", searched, 1, law="(a) identity", image=f(source.identity))
    cases = 1
    for a, b in cartesian(elements, repeat=2):
        cases += 1
        lhs, rhs = f(source.op(a, b)), target.op(f(a), f(b))
        if not target.equal(lhs, rhs):
            return fails("STREAM-DEF-3.11", searched, cases, law="(b) product", a=a, b=b, lhs=lhs, rhs=rhs)
    return holds("STREAM-DEF-3.11", searched, cases, decided)


def check_left_cancellative(m: Monoid[T], elements: Sequence[T], decided: bool = False) -> Verdict:
    """STREAM-DEF-3.4: ``xa = xb ⟹ a = b``; a counterexample is ``(x, a, b)``."""
    cases = 0
    for x, a, b in cartesian(elements, repeat=3):
        cases += 1
        if m.equal(m.op(x, a), m.op(x, b)) and not m.equal(a, b):
            return fails("STREAM-DEF-3.4", f"{len(elements)} elements", cases, x=x, a=a, b=b)
    return holds("STREAM-DEF-3.4", f"triples of {len(elements)} elements of {m.name}", cases, decided)


def check_commutative(m: Monoid[T], elements: Sequence[T], decided: bool = False) -> Verdict:
    """STREAM-DEF-3.7: ``ab = ba``."""
    cases = 0
    for a, b in cartesian(elements, repeat=2):
        cases += 1
        if not m.equal(m.op(a, b), m.op(b, a)):
            return fails("STREAM-DEF-3.7", f"{len(elements)} elements", cases, a=a, b=b)
    return holds("STREAM-DEF-3.7", f"pairs of {len(elements)} elements of {m.name}", cases, decided)


def check_idempotent(m: Monoid[T], elements: Sequence[T], decided: bool = False) -> Verdict:
    """STREAM-DEF-3.8: ``aa = a``."""
    for i, a in enumerate(elements, 1):
        if not m.equal(m.op(a, a), a):
            return fails("STREAM-DEF-3.8", f"{len(elements)} elements", i, a=a)
    return holds("STREAM-DEF-3.8", f"{len(elements)} elements of {m.name}", len(elements), decided)


def check_generated_by(m: Monoid[T], elements: Sequence[T]) -> Verdict:
    """STREAM-DEF-3.5: each element is the product of its chosen generators."""
    for i, x in enumerate(elements, 1):
        if not m.equal(m.prod(m.generators_of(x)), x):
            return fails("STREAM-DEF-3.5", f"{len(elements)} elements", i, element=x)
    return holds("STREAM-DEF-3.5", f"{len(elements)} elements of {m.name}", len(elements))
