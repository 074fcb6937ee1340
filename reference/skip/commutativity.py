"""Pairwise commutativity and folds over multisets (SKIP §2.1-2.2): the checker
of Def. 2, the two directions of Theorem 1 with their witnesses, and Lemma 1.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from reference.algebra.multiset import Multiset
from reference.skip.carriers import enumerations, multisets_up_to
from reference.skip.core import fold, fold_seq
from reference.verdict import Verdict, fails, holds

A = TypeVar("A")
V = TypeVar("V")


def check_pairwise_commutative(
    star: Callable[[A, V], A],
    accumulators: Iterable[A],
    values: Sequence[V],
    *,
    exhaustive: bool = False,
) -> Verdict:
    """SKIP-DEF-2: "⋆ is pairwise commutative if ∀a ∈ A, v1, v2 ∈ V.
    (a ⋆ v1) ⋆ v2 = (a ⋆ v2) ⋆ v1."

    Checks every ``a`` in ``accumulators`` and every pair of ``values``; the
    verdict is *decided* when the caller says these are the whole carriers
    (``exhaustive=True``). A failure returns ``a, v1, v2`` and both sides.
    """
    cases = 0
    for a in accumulators:
        for i, v1 in enumerate(values):
            for v2 in values[i + 1:]:
                cases += 1
                left, right = star(star(a, v1), v2), star(star(a, v2), v1)
                if left != right:
                    return fails("SKIP-DEF-2", "given carriers", cases,
                                 a=a, v1=v1, v2=v2, left=left, right=right)
    return holds("SKIP-DEF-2", f"{cases} triples (a, v1, v2) of the given carriers", cases,
                 decided=exhaustive)


# --- Theorem 1 ---------------------------------------------------------------


@dataclass(frozen=True)
class EnumerationWitness:
    """Statement (1) of SKIP-THM-1 fails: two enumerations s1, s2 of the same
    multiset whose folds from ``a`` differ."""

    a: Any
    s1: tuple[Any, ...]
    s2: tuple[Any, ...]
    fold_s1: Any
    fold_s2: Any


@dataclass(frozen=True)
class CommutativityWitness:
    """Statement (2) of SKIP-THM-1 (Def. 2) fails at ``a, v1, v2``."""

    a: Any
    v1: Any
    v2: Any
    left: Any  # (a ⋆ v1) ⋆ v2
    right: Any  # (a ⋆ v2) ⋆ v1


def enumeration_witness(star: Callable[[A, V], A], a: A, v1: V, v2: V) -> EnumerationWitness | None:
    """SKIP-THM-1 (1 ⇒ 2), constructively: from a failure of Def. 2 at (a, v1, v2),
    the enumerations [v1, v2] and [v2, v1] of {v1, v2} fold differently (the
    paper's proof). Returns None when ⋆ commutes at (a, v1, v2)."""
    f1, f2 = fold_seq(star, a, (v1, v2)), fold_seq(star, a, (v2, v1))
    return None if f1 == f2 else EnumerationWitness(a, (v1, v2), (v2, v1), f1, f2)


def commutativity_witness(
    star: Callable[[A, V], A], a: A, s1: Sequence[V], s2: Sequence[V]
) -> CommutativityWitness | None:
    """SKIP-THM-1 (2 ⇒ 1), constructively: given two enumerations of one multiset
    whose folds differ, find the adjacent transposition that changes the fold
    (the paper's proof sorts s1 into s2 by adjacent swaps): at the prefix's
    accumulator a', ⋆ does not commute. Returns None when the folds agree.
    """
    if Multiset.from_iterable(s1) != Multiset.from_iterable(s2):
        raise ValueError("s1 and s2 do not enumerate the same multiset")
    if fold_seq(star, a, s1) == fold_seq(star, a, s2):
        return None
    current = list(s1)
    for i, target in enumerate(s2):
        j = current.index(target, i)
        while j > i:  # bubble current[j] left to position i
            a_prefix = fold_seq(star, a, current[:j - 1])
            x, y = current[j - 1], current[j]
            left, right = star(star(a_prefix, x), y), star(star(a_prefix, y), x)
            if left != right:
                return CommutativityWitness(a_prefix, x, y, left, right)
            current[j - 1], current[j] = y, x
            j -= 1
    raise AssertionError("unreachable: every swap preserved the fold, yet the folds differ")


def check_enumeration_independence(
    star: Callable[[A, V], A], accumulators: Iterable[A], values: Sequence[V], max_size: int
) -> Verdict:
    """SKIP-THM-1 statement (1): fold^seq(a, s1) = fold^seq(a, s2) for every two
    enumerations s1, s2 of every M over ``values`` with |M| ≤ ``max_size``."""
    cases = 0
    for a in accumulators:
        for M in multisets_up_to(values, max_size):
            seqs = enumerations(M)
            first = fold_seq(star, a, seqs[0])
            for s in seqs[1:]:
                cases += 1
                other = fold_seq(star, a, s)
                if other != first:
                    return fails("SKIP-THM-1", f"|M| <= {max_size}", cases,
                                 a=a, s1=seqs[0], s2=s, fold_s1=first, fold_s2=other)
    return holds("SKIP-THM-1", f"|M| <= {max_size} over the given values", cases)


# --- Lemma 1 -----------------------------------------------------------------


def check_fold_union(
    star: Callable[[A, V], A], accumulators: Iterable[A], values: Sequence[V], max_size: int
) -> Verdict:
    """SKIP-LEM-1: fold_⋆(a, M ⊎ N) = fold_⋆(fold_⋆(a, M), N), for |M|, |N| ≤ ``max_size``.

    Holds when ⋆ is pairwise commutative; for a non-commutative ⋆ the canonical
    fold of M ⊎ N interleaves M and N and the checker returns the counterexample.
    """
    small = list(multisets_up_to(values, max_size))
    cases = 0
    for a in accumulators:
        for M in small:
            for N in small:
                cases += 1
                whole, parts = fold(star, a, M | N), fold(star, fold(star, a, M), N)
                if whole != parts:
                    return fails("SKIP-LEM-1", f"|M|, |N| <= {max_size}", cases,
                                 a=a, M=M, N=N, whole=whole, parts=parts)
    return holds("SKIP-LEM-1", f"|M|, |N| <= {max_size} over the given values", cases)


# --- "invertible distributive aggregate" (after Def. 7) --------------------------


def check_distributive(
    star: Callable[[A, V], A], iota: A, values: Sequence[V], max_size: int
) -> Verdict:
    """SKIP-CLAIM-DEF-7-DISTRIBUTIVE: "the fold can be computed over partitions
    independently": fold_⋆(ι, M ⊎ N) is a function of fold_⋆(ι, M) and
    fold_⋆(ι, N), i.e. fold_⋆(ι, M) = fold_⋆(ι, M') and fold_⋆(ι, N) = fold_⋆(ι, N')
    imply fold_⋆(ι, M ⊎ N) = fold_⋆(ι, M' ⊎ N'), for |M|, |N|, |M'|, |N'| ≤ ``max_size``.

    Pairwise commutativity suffices (the merge is a ⊙ b = fold_⋆(a, N) for any N
    reaching b, well defined because the actions of multisets commute). A
    failure returns the two partitions and their different merged folds.
    """
    small = list(multisets_up_to(values, max_size))
    by_fold: dict[Any, Multiset] = {}  # each fold -> the first multiset reaching it
    for M in small:
        by_fold.setdefault(fold(star, iota, M), M)
    cases = 0
    for M in small:
        a = fold(star, iota, M)
        for N in small:
            cases += 1
            b = fold(star, iota, N)
            M0, N0 = by_fold[a], by_fold[b]
            merged, expected = fold(star, iota, M | N), fold(star, iota, M0 | N0)
            if merged != expected:
                return fails("SKIP-CLAIM-DEF-7-DISTRIBUTIVE", f"|M|, |N| <= {max_size}", cases,
                             M=M, N=N, M_other=M0, N_other=N0, merged=merged, merged_other=expected)
    return holds("SKIP-CLAIM-DEF-7-DISTRIBUTIVE",
                 f"|M|, |N| <= {max_size} over the given values ({len(by_fold)} folds)", cases)
