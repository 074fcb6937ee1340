"""Skip's reactive ``reduce`` combinator (Calcagno, *A Formal Semantics for
Skip's Reactive reduce Combinator*, Nov. 2025). Catalog: ``spec/skip.toml``.

The names and the order follow the paper: collections (Def. 1), pairwise
commutativity (Def. 2), folds (Def. 3, Thm 1, Def. 4, Lemma 1), ``reduce``
(Def. 5), reducers (Def. 6), well-formedness (Def. 7), deltas (Defs 8-9,
Remark 2), ``update`` (Def. 10) and incremental correctness (Def. 11, Thm 2).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from reference.algebra.multiset import Multiset

A = TypeVar("A")
V = TypeVar("V")

#: SKIP-DEF-1: "A collection is a function C : K -> M(V)". Keys absent from the
#: mapping map to the empty multiset.
Collection = Mapping[Any, Multiset]

UpdateOp = Callable[[A, V], A]


def values_at(C: Collection, k: Any) -> Multiset:
    """C(k), the multiset of values associated with key k (SKIP-DEF-1)."""
    return C.get(k, Multiset())


# --- §2.2 Folds --------------------------------------------------------------


def fold_seq(star: Callable[[A, V], A], a: A, s: Iterable[V]) -> A:
    """SKIP-DEF-3: fold^seq_⋆(a, []) = a and fold^seq_⋆(a, v1 :: s') = fold^seq_⋆(a ⋆ v1, s')."""
    for v in s:
        a = star(a, v)
    return a


def fold(star: Callable[[A, V], A], a: A, M: Multiset) -> A:
    """SKIP-DEF-4: fold_⋆(a, M) := fold^seq_⋆(a, s) for any enumeration s of M.

    Well defined only when ⋆ is pairwise commutative (SKIP-THM-1); this function
    uses the canonical enumeration ``M.elements()``.
    """
    return fold_seq(star, a, M.elements())


# --- §4.1 Reducers -----------------------------------------------------------


@dataclass(frozen=True)
class Reducer(Generic[A, V]):
    """SKIP-DEF-6: "A reducer is a triple R = (ι, ⊕, ⊖) where ι ∈ A is an initial
    value, and ⊕, ⊖ : A × V -> A are update operations such that both ⊕ and ⊖
    are pairwise commutative."

    ``remove`` may return ``None`` to *decline* (Skip's ``null``: "recompute this
    key from scratch"); see SKIP-DEC-PARTIAL. A reducer whose ``remove`` never
    declines is *total*.
    """

    initial: A
    add: Callable[[A, V], A]
    remove: Callable[[A, V], A | None]
    name: str = field(default="", compare=False)


# --- §3 The reduce combinator ------------------------------------------------


def reduce(R: Reducer[A, V], C: Collection) -> dict[Any, A]:
    """SKIP-DEF-5: reduce_{ι,⊕}(C)(k) = fold_⊕(ι, C(k)), on the keys of C.

    The paper's view is total (a key with an empty multiset maps to ι); this
    returns its restriction to the keys present in ``C`` (see SKIP-DEC-VIEW).
    """
    return {k: fold(R.add, R.initial, M) for k, M in C.items()}


# --- §4.2 Deltas -------------------------------------------------------------


class InvalidDelta(ValueError):
    """A delta removes a value that the collection does not hold (violates Δ⁻(k) ⊆ C(k))."""

    def __init__(self, key: Any, value: Any, available: int, removed: int) -> None:
        self.key, self.value, self.available, self.removed = key, value, available, removed
        super().__init__(
            f"invalid delta: key {key!r} holds value {value!r} {available} time(s) "
            f"but the delta removes it {removed} time(s) (SKIP-DEF-8 requires Δ⁻(k) ⊆ C(k))"
        )


@dataclass(frozen=True)
class Delta:
    """SKIP-DEF-8: a pair (Δ⁺, Δ⁻) of functions K -> M(V): added and removed values."""

    plus: Mapping[Any, Multiset] = field(default_factory=dict)
    minus: Mapping[Any, Multiset] = field(default_factory=dict)

    def keys(self) -> frozenset[Any]:
        return frozenset(self.plus) | frozenset(self.minus)

    def added(self, k: Any) -> Multiset:
        return self.plus.get(k, Multiset())

    def removed(self, k: Any) -> Multiset:
        return self.minus.get(k, Multiset())


def check_valid(C: Collection, delta: Delta) -> None:
    """SKIP-DEF-8 validity: Δ⁻(k) ⊆ C(k) for all k; raises :class:`InvalidDelta` naming
    the first offending key and value."""
    for k in sorted(delta.minus, key=repr):
        have = values_at(C, k)
        for v, n in delta.minus[k].items():
            if n > have.multiplicity(v):
                raise InvalidDelta(k, v, have.multiplicity(v), n)


def is_valid(C: Collection, delta: Delta) -> bool:
    """Whether ``delta`` is a valid delta for ``C`` (SKIP-DEF-8)."""
    return all(delta.removed(k).issubset(values_at(C, k)) for k in delta.minus)


def apply_delta(C: Collection, delta: Delta) -> dict[Any, Multiset]:
    """SKIP-DEF-9: C • Δ = λk. (C(k) \\ Δ⁻(k)) ⊎ Δ⁺(k).

    Refuses an invalid delta with :class:`InvalidDelta`. Keys whose multiset
    becomes empty are dropped from the result (they denote the empty multiset).
    """
    check_valid(C, delta)
    result = dict(C)
    for k in delta.keys():
        result[k] = (values_at(C, k) - delta.removed(k)) | delta.added(k)
        if result[k].is_empty():
            del result[k]
    return result


def delta_between(old: Collection, new: Collection) -> Delta:
    """SKIP-REM-2: Δ⁺(k) = new(k) \\ old(k) and Δ⁻(k) = old(k) \\ new(k)."""
    keys = frozenset(old) | frozenset(new)
    plus = {k: values_at(new, k) - values_at(old, k) for k in keys}
    minus = {k: values_at(old, k) - values_at(new, k) for k in keys}
    return Delta(
        plus={k: m for k, m in plus.items() if not m.is_empty()},
        minus={k: m for k, m in minus.items() if not m.is_empty()},
    )


# --- §4.3 Incremental update -------------------------------------------------


class Declined(Exception):
    """``remove`` returned ``None`` (Skip's ``null``): the key must be recomputed."""


def _remove_strict(R: Reducer[A, V]) -> Callable[[A, V], A]:
    def remove(a: A, v: V) -> A:
        result = R.remove(a, v)
        if result is None:
            raise Declined(v)
        return result

    return remove


def update(R: Reducer[A, V], a_k: A, delta: Delta, k: Any) -> A:
    """SKIP-DEF-10: update_R(a_k, Δ, k) = fold_⊕(fold_⊖(a_k, Δ⁻(k)), Δ⁺(k)).

    Removals first, then additions. Raises :class:`Declined` if ``remove`` declines.
    """
    return fold(R.add, fold(_remove_strict(R), a_k, delta.removed(k)), delta.added(k))
