"""The core of Skip's ``reduce`` (Calcagno, *A Formal Semantics for Skip's
Reactive reduce Combinator*, Nov. 2025), §§2-4: collections (Def. 1), folds
(Defs 3-4), ``reduce`` (Def. 5), reducers (Def. 6), deltas (Defs 8-9, Remark 2)
and ``update`` (Def. 10). Catalog: ``spec/skip.toml``.

The checkers of the paper's universally quantified statements (Def. 2, Thm 1,
Lemma 1, Def. 7 and its variants, Def. 11, Thm 2) live in the sibling modules;
:mod:`reference.reduce` re-exports everything.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from reference.algebra.multiset import Multiset
from reference.algebra.persistent import PMap

A = TypeVar("A")
V = TypeVar("V")

#: SKIP-DEF-1: "A collection is a function C : K -> M(V)". Keys absent from the
#: mapping map to the empty multiset.
Collection = Mapping[Any, Multiset]

UpdateOp = Callable[[A, V], A]


def collection_of(values: Mapping[Any, Iterable[Any]]) -> dict[Any, Multiset]:
    """The collection k -> M(V) enumerated by ``values`` (key -> values, with repetition);
    keys with no values are left out (they denote the empty multiset)."""
    C = {k: Multiset.from_iterable(vs) for k, vs in values.items()}
    return {k: M for k, M in C.items() if not M.is_empty()}


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
    uses the canonical enumeration ``M.elements()`` (SKIP-DEC-FOLD-ORDER).
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
    """SKIP-DEF-5: reduce_{ι,⊕}(C)(k) = fold_⊕(ι, C(k)), observed as a reactive
    collection.

    The paper's view is total (a key with an empty multiset maps to ι); this
    returns its restriction to the keys whose multiset is non-empty, which is
    what a reactive collection shows (SKIP-DEC-VIEW). The total view is
    :func:`reduce_at`, and :func:`reference.skip.view.total_view` derives it
    from this one.
    """
    return {k: fold(R.add, R.initial, M) for k, M in C.items() if not M.is_empty()}


def reduce_at(R: Reducer[A, V], C: Collection, k: Any) -> A:
    """SKIP-DEF-5, the paper's total view at any key: fold_⊕(ι, C(k)) (ι when C(k) = ∅)."""
    return fold(R.add, R.initial, values_at(C, k))


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


def delta_of(
    plus: Mapping[Any, Iterable[Any]] | None = None,
    minus: Mapping[Any, Iterable[Any]] | None = None,
) -> Delta:
    """The delta (Δ⁺, Δ⁻) enumerated by key -> values lists (SKIP-DEF-8)."""
    return Delta(plus=collection_of(plus or {}), minus=collection_of(minus or {}))


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


def apply_delta(C: Collection, delta: Delta) -> PMap[Any, Multiset]:
    """SKIP-DEF-9: C • Δ = λk. (C(k) \\ Δ⁻(k)) ⊎ Δ⁺(k).

    Refuses an invalid delta with :class:`InvalidDelta`. Keys whose multiset
    is empty are left out of the result (absent keys denote the empty multiset).

    The result is persistent (SKIP-DEC-PERSISTENT-VIEW): only the keys Δ touches are
    written, every other key's multiset is shared with ``C``, so applying a delta to
    a persistent collection costs O(|keys(Δ)|) plus those keys' values (the first
    delta applied to a plain mapping builds the persistent collection, O(|C|)).
    """
    check_valid(C, delta)
    base = C if isinstance(C, PMap) else PMap((k, M) for k, M in C.items() if not M.is_empty())
    result = base.evolver()
    for k in delta.keys():
        M = (values_at(C, k) - delta.removed(k)) | delta.added(k)
        if M.is_empty():
            result.discard(k)
        else:
            result[k] = M
    return result.persistent()


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
    """``remove`` returned ``None`` (Skip's ``null``): the key must be recomputed
    (SKIP-DEC-PARTIAL; :func:`reference.skip.partial.update_or_recompute` does it)."""

    def __init__(self, value: Any) -> None:
        self.value = value
        super().__init__(f"remove declined value {value!r}: recompute the key (SKIP-DEC-PARTIAL)")


def strict_remove(R: Reducer[A, V]) -> Callable[[A, V], A]:
    """⊖ as a total operation A x V -> A that raises :class:`Declined` where ``remove``
    declines (returns None; SKIP-DEC-PARTIAL). :func:`update` folds with it."""

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
    return fold(R.add, fold(strict_remove(R), a_k, delta.removed(k)), delta.added(k))
