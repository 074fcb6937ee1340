"""Well-formedness and incremental correctness (SKIP §4.1, §5): the three
strengths of "well-formed" (SKIP-DEF-7, SKIP-DEF-7-GLOBAL, SKIP-DEF-7-SKIPDOC),
the incremental correctness property (SKIP-DEF-11), and Theorem 2 in both
directions with the witnesses its proof constructs.

Partial reducers (SKIP-DEC-PARTIAL): a removal that declines (``None``) makes
the runtime recompute, so each law is required only where ``remove`` answers,
and incremental correctness is checked against
:func:`~reference.skip.partial.update_or_recompute`. For a total reducer the
checkers are the paper's definitions verbatim.

Implications (checked in ``tests/skip``): SKIPDOC ⇒ GLOBAL ⇒ DEF-7 ⇔ DEF-11
(the last under Def. 6's commutativity); neither of the first two converses
holds (SKIP-CLAIM-DEF-7-IMPLIES-GLOBAL, SKIP-CLAIM-GLOBAL-IMPLIES-SKIPDOC).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from reference.algebra.multiset import Multiset
from reference.skip.carriers import multisets_up_to, submultisets
from reference.skip.commutativity import check_pairwise_commutative
from reference.skip.core import (
    Collection,
    Delta,
    Reducer,
    apply_delta,
    fold,
    reduce_at,
    values_at,
)
from reference.skip.partial import lifted_remove, update_or_recompute
from reference.verdict import Verdict, fails, holds

A = TypeVar("A")
V = TypeVar("V")

KEY = "k"  # the one key of the single-key collections the proofs build


# --- reachable accumulators ---------------------------------------------------


@dataclass(frozen=True)
class Reachable:
    """The accumulators fold_⊕(ι, M) for |M| ≤ ``depth``, each with a multiset M
    reaching it. ``closed`` when one more addition reaches nothing new: then
    (⊕ being pairwise commutative) these are *all* reachable accumulators."""

    witnesses: Mapping[Any, Multiset]
    closed: bool
    depth: int


def reachable_accumulators(R: Reducer[A, V], values: Sequence[V], max_size: int) -> Reachable:
    """Breadth-first: level d holds the accumulators first reached by d additions.

    For a pairwise commutative ⊕ (Def. 6) fold_⊕(ι, M ⊎ {v}) = fold_⊕(ι, M) ⊕ v
    (Lemma 1), so extending only the new accumulators finds every fold_⊕(ι, M).
    """
    found: dict[Any, Multiset] = {R.initial: Multiset()}
    frontier: list[tuple[Any, Multiset]] = [(R.initial, Multiset())]
    depth = 0
    while frontier and depth < max_size:
        depth += 1
        next_frontier: list[tuple[Any, Multiset]] = []
        for a, M in frontier:
            for v in values:
                b = R.add(a, v)
                if b not in found:
                    found[b] = M | Multiset.of(v)
                    next_frontier.append((b, found[b]))
        frontier = next_frontier
    closed = not frontier or all(
        R.add(a, v) in found for a, _ in frontier for v in values
    )
    return Reachable(found, closed, depth)


# --- the three well-formedness notions ----------------------------------------


@dataclass(frozen=True)
class InverseLawFailure:
    """(a ⊕ v) ⊖ v ≠ a at a = fold_⊕(ι, M) (``M`` is None for the global law)."""

    M: Multiset | None
    a: Any
    v: Any
    result: Any  # (a ⊕ v) ⊖ v


def inverse_law_fails(R: Reducer[A, V], a: A, v: V) -> bool:
    """(a ⊕ v) ⊖ v ≠ a, where a declined removal (None) is not a failure (SKIP-DEC-PARTIAL)."""
    back = R.remove(R.add(a, v), v)
    return back is not None and back != a


def check_well_formed(
    R: Reducer[A, V], values: Sequence[V], max_size: int, *, exhaustive: bool = False
) -> Verdict:
    """SKIP-DEF-7: "R is well-formed if ⊖ is the inverse of ⊕ on reachable
    accumulator values, that is, for all finite multisets M ∈ M(V) and all
    v ∈ V: (fold_⊕(ι, M) ⊕ v) ⊖ v = fold_⊕(ι, M)."

    Over the accumulators reached by |M| ≤ ``max_size`` additions of ``values``.
    *Decided* when ``values`` is all of V (``exhaustive``) and the reachable set
    closed within the bound. A failure returns M, v, a and (a ⊕ v) ⊖ v.
    """
    reach = reachable_accumulators(R, values, max_size)
    cases = 0
    for a, M in reach.witnesses.items():
        for v in values:
            cases += 1
            if inverse_law_fails(R, a, v):
                return fails("SKIP-DEF-7", f"|M| <= {max_size}", cases,
                             M=M, v=v, a=a, result=R.remove(R.add(a, v), v))
    searched = f"{len(reach.witnesses)} reachable accumulators (|M| <= {reach.depth}) x {len(values)} values"
    return holds("SKIP-DEF-7", searched, cases, decided=exhaustive and reach.closed)


def is_well_formed(R: Reducer[A, V], values: Sequence[V], max_size: int) -> bool:
    """SKIP-DEF-7 as a boolean (see :func:`check_well_formed` for the bound)."""
    return check_well_formed(R, values, max_size).holds


def well_formedness_failure(R: Reducer[A, V], verdict: Verdict) -> InverseLawFailure | None:
    """The counterexample of a failed :func:`check_well_formed` verdict, typed."""
    if verdict.holds or verdict.counterexample is None:
        return None
    c = verdict.counterexample
    return InverseLawFailure(c.get("M"), c["a"], c["v"], c["result"])


def check_globally_well_formed(
    R: Reducer[A, V], accumulators: Iterable[A], values: Sequence[V], *, exhaustive: bool = False
) -> Verdict:
    """SKIP-DEF-7-GLOBAL (the earlier draft's Def. 7): "⊖ is the inverse of ⊕:
    ∀a ∈ A, v ∈ V. (a ⊕ v) ⊖ v = a." Decided when the carriers are exhaustive."""
    cases = 0
    for a in accumulators:
        for v in values:
            cases += 1
            if inverse_law_fails(R, a, v):
                return fails("SKIP-DEF-7-GLOBAL", "given carriers", cases,
                             a=a, v=v, result=R.remove(R.add(a, v), v))
    return holds("SKIP-DEF-7-GLOBAL", f"{cases} pairs (a, v) of the given carriers", cases,
                 decided=exhaustive)


def check_skipdoc_well_formed(
    R: Reducer[A, V], accumulators: Iterable[A], values: Sequence[V], *, exhaustive: bool = False
) -> Verdict:
    """SKIP-DEF-7-SKIPDOC, the Skip runtime's documented contract: ``accum``,
    ``add(remove(accum, v), v)`` and ``remove(add(accum, v), v)`` are all equal
    for any accum and v, unless ``remove`` returns null (None).

    That is the global law (a ⊕ v) ⊖ v = a *and* its converse (a ⊖ v) ⊕ v = a,
    each where ``remove`` answers. A failure names the law that failed.
    """
    cases = 0
    for a in accumulators:
        for v in values:
            cases += 1
            removed = R.remove(a, v)
            if removed is not None and R.add(removed, v) != a:
                return fails("SKIP-DEF-7-SKIPDOC", "given carriers", cases, a=a, v=v,
                             law="add(remove(accum, v), v) = accum",
                             result=R.add(removed, v))
            if inverse_law_fails(R, a, v):
                return fails("SKIP-DEF-7-SKIPDOC", "given carriers", cases, a=a, v=v,
                             law="remove(add(accum, v), v) = accum",
                             result=R.remove(R.add(a, v), v))
    return holds("SKIP-DEF-7-SKIPDOC", f"{cases} pairs (a, v) of the given carriers", cases,
                 decided=exhaustive)


def check_reducer(
    R: Reducer[A, V], accumulators: Sequence[A], values: Sequence[V], *, exhaustive: bool = False
) -> Verdict:
    """SKIP-DEF-6: R = (ι, ⊕, ⊖) is a reducer when "both ⊕ and ⊖ are pairwise
    commutative in the sense of Definition 2". A declined removal is absorbing
    (once the runtime recomputes, later removals do not matter), so a partial
    ⊖ is checked as the operation A ∪ {None} x V -> A ∪ {None} that maps None
    to None (at a = None both sides are None, so only a ∈ A is enumerated).
    ``cases`` counts the triples (a, v1, v2) actually compared for ⊕ and ⊖
    (⊖ as :func:`~reference.skip.partial.lifted_remove`)."""
    lifted: list[A | None] = list(accumulators)
    verdicts = {
        "add": check_pairwise_commutative(R.add, accumulators, values, exhaustive=exhaustive),
        "remove": check_pairwise_commutative(lifted_remove(R), lifted, values,
                                             exhaustive=exhaustive),
    }
    for name, verdict in verdicts.items():
        if not verdict.holds:
            return fails("SKIP-DEF-6", verdict.searched, verdict.cases, operation=name,
                         **dict(verdict.counterexample or {}))
    cases = sum(verdict.cases for verdict in verdicts.values())
    return holds("SKIP-DEF-6", "⊕ and ⊖ on the given carriers", cases, decided=exhaustive)


def check_total(
    R: Reducer[A, V], accumulators: Iterable[A], values: Sequence[V], *, exhaustive: bool = False
) -> Verdict:
    """Whether ``remove`` never declines on the carriers: R is a reducer in the
    strict sense of Def. 6 (SKIP-DEF-6), not a partial one (SKIP-DEC-PARTIAL)."""
    cases = 0
    for a in accumulators:
        for v in values:
            cases += 1
            if R.remove(a, v) is None:
                return fails("SKIP-DEF-6", "given carriers", cases, a=a, v=v, declined=True)
    return holds("SKIP-DEF-6", f"remove answers on {cases} pairs", cases, decided=exhaustive)


def check_remove_add_commutative(
    R: Reducer[A, V], accumulators: Iterable[A], values: Sequence[V]
) -> Verdict:
    """SKIP-REM-1's property: ∀a, v1, v2. (a ⊖ v1) ⊕ v2 = (a ⊕ v2) ⊖ v1
    (where ``remove`` answers)."""
    cases = 0
    for a in accumulators:
        for v1 in values:
            for v2 in values:
                cases += 1
                removed_first, added_first = R.remove(a, v1), R.remove(R.add(a, v2), v1)
                if removed_first is None or added_first is None:
                    continue
                if R.add(removed_first, v2) != added_first:
                    return fails("SKIP-REM-1", "given carriers", cases, a=a, v1=v1, v2=v2,
                                 remove_then_add=R.add(removed_first, v2),
                                 add_then_remove=added_first)
    return holds("SKIP-REM-1", f"{cases} triples of the given carriers", cases)


# --- incremental correctness (Def. 11) -----------------------------------------


@dataclass(frozen=True)
class IncorrectUpdate:
    """A failure of SKIP-DEF-11: on ``collection`` and the valid ``delta``, at
    ``key``, reduce_R(C • Δ)(k) = ``recomputed`` but update_R(reduce_R(C)(k), Δ, k)
    = ``updated``."""

    collection: Collection
    delta: Delta
    key: Any
    recomputed: Any
    updated: Any


def incorrect_update(R: Reducer[A, V], C: Collection, delta: Delta) -> IncorrectUpdate | None:
    """SKIP-DEF-11 on one collection and delta: the first key (in ``repr`` order)
    where recomputation and the incremental update differ, or None.

    Keys outside C and Δ map to ι on both sides, so only those are compared.
    Raises :class:`~reference.skip.core.InvalidDelta` for an invalid delta.
    """
    C_next = apply_delta(C, delta)
    for k in sorted(frozenset(C) | delta.keys(), key=repr):
        recomputed = reduce_at(R, C_next, k)
        updated = update_or_recompute(R, reduce_at(R, C, k), delta, k, values_at(C_next, k))
        if recomputed != updated:
            return IncorrectUpdate(dict(C), delta, k, recomputed, updated)
    return None


def check_incremental_correctness(
    R: Reducer[A, V], values: Sequence[V], max_size: int, max_added: int = 1
) -> Verdict:
    """SKIP-DEF-11: "for all collections C, all valid deltas Δ for C, and all keys k:
    reduce_R(C • Δ)(k) = update_R(reduce_R(C)(k), Δ, k)."

    Both sides at k depend only on C(k), Δ⁺(k), Δ⁻(k), so single-key collections
    suffice: every C(k) = M with |M| ≤ ``max_size`` over ``values``, every
    Δ⁻(k) ⊆ M and every Δ⁺(k) with at most ``max_added`` values. Holds "up to
    the bound"; a failure returns the collection, the delta, the key and both sides.
    """
    additions = list(multisets_up_to(values, max_added))
    cases = 0
    for M in multisets_up_to(values, max_size):
        C = {KEY: M}
        for removed in submultisets(M):
            for added in additions:
                cases += 1
                failure = incorrect_update(R, C, Delta(plus={KEY: added}, minus={KEY: removed}))
                if failure is not None:
                    return fails("SKIP-DEF-11", f"|C(k)| <= {max_size}, |Δ⁺(k)| <= {max_added}",
                                 cases, collection=failure.collection, delta=failure.delta,
                                 key=failure.key, recomputed=failure.recomputed,
                                 updated=failure.updated)
    return holds("SKIP-DEF-11", f"|C(k)| <= {max_size}, Δ⁻(k) ⊆ C(k), |Δ⁺(k)| <= {max_added}"
                 f" over {len(values)} values", cases)


def decide_incremental_correctness(
    R: Reducer[A, V], accumulators: Sequence[A], values: Sequence[V]
) -> Verdict:
    """SKIP-DEF-11 *decided* on finite carriers, for a reducer whose ⊕ and ⊖ are
    pairwise commutative (Def. 6; the caller checks it, e.g. with :func:`check_reducer`).

    ``accumulators`` must be all of A (closed under ⊕ and ⊖) and ``values`` all
    of V. With commutative operations a multiset D acts by f_D = λa. fold_⊕(a, D)
    and g_D = λa. fold_⊖(a, D), and Def. 11 at C(k) = M₀ ⊎ D, Δ⁻(k) = D,
    Δ⁺(k) = P reads f_P(r) = f_P(g_D(f_D(r))) for r = fold_⊕(ι, M₀); P = ∅ is the
    strongest instance, so Def. 11 holds iff g_D(f_D(r)) = r for every reachable r
    and every D (or ⊖ declines on the way: SKIP-DEC-PARTIAL). The pairs (f_D, g_D)
    form a finite set, explored breadth-first; a failure returns the collection
    and delta built from the witnesses M₀ and D.
    """
    carrier = tuple(accumulators)
    if not check_reducer(R, carrier, values).holds:
        raise ValueError("Def. 11 is decided here only for pairwise commutative ⊕ and ⊖ (Def. 6)")
    index = {a: i for i, a in enumerate(carrier)}
    Pair = tuple[tuple[Any, ...], tuple[Any, ...]]
    start: Pair = (carrier, carrier)
    actions: dict[Pair, Multiset] = {start: Multiset()}
    frontier = [start]
    remove = lifted_remove(R)
    while frontier:
        next_frontier: list[Pair] = []
        for f, g in frontier:
            for v in values:
                f_next = tuple(R.add(x, v) for x in f)
                g_next = tuple(remove(x, v) for x in g)
                if any(x not in index for x in f_next) or any(
                    x is not None and x not in index for x in g_next
                ):
                    raise ValueError("the accumulators are not closed under ⊕ and ⊖")
                if (f_next, g_next) not in actions:
                    actions[(f_next, g_next)] = actions[(f, g)] | Multiset.of(v)
                    next_frontier.append((f_next, g_next))
        frontier = next_frontier
    reach = reachable_accumulators(R, values, len(carrier))
    cases = 0
    for r, M0 in reach.witnesses.items():
        for (f, g), D in actions.items():
            cases += 1
            back = g[index[f[index[r]]]]
            if back is not None and back != r:
                return fails("SKIP-DEF-11", "decided on the finite carriers", cases,
                             collection={KEY: M0 | D}, delta=Delta(plus={}, minus={KEY: D}),
                             key=KEY, recomputed=r, updated=back)
    return holds("SKIP-DEF-11", f"{len(reach.witnesses)} reachable accumulators x "
                 f"{len(actions)} actions of multisets", cases, decided=True)


# --- Theorem 2, constructively --------------------------------------------------


def theorem_2_witness(R: Reducer[A, V], M: Multiset, v: V) -> IncorrectUpdate | None:
    """SKIP-THM-2 (2 ⇒ 1), by contraposition and constructively: from a failure
    of Def. 7 at (M, v), the proof's collection C(k) = M ⊎ {v} and delta
    Δ⁻(k) = {v}, Δ⁺(k) = ∅, on which the update differs from recomputation.

    Returns None if they agree (the law holds at (M, v), or ⊕ is not pairwise
    commutative, so reduce_R(C)(k) need not be fold_⊕(ι, M) ⊕ v).
    """
    C = {KEY: M | Multiset.of(v)}
    delta = Delta(plus={}, minus={KEY: Multiset.of(v)})
    return incorrect_update(R, C, delta)


def ill_formedness_witness(R: Reducer[A, V], failure: IncorrectUpdate) -> InverseLawFailure | None:
    """SKIP-THM-2 (1 ⇒ 2), by contraposition and constructively: from an incorrect
    update, the reachable accumulator and value where the inverse law fails.

    The proof writes C(k) = M₀ ⊎ Δ⁻(k) and undoes Δ⁻(k) = [d₁, ..., dₘ] one value
    at a time, each step an instance of the law at M₀ ⊎ {dᵢ₊₁, ..., dₘ} and dᵢ;
    if every instance held, the update would equal recomputation. The first
    failing instance is returned (None if all hold: then ⊕ is not pairwise
    commutative, outside the theorem's hypotheses).
    """
    M = values_at(failure.collection, failure.key)
    removed = list(failure.delta.removed(failure.key).elements())
    M0 = M - failure.delta.removed(failure.key)
    for i, d in enumerate(removed):
        rest = M0 | Multiset.from_iterable(removed[i + 1:])
        a = fold(R.add, R.initial, rest)
        if inverse_law_fails(R, a, d):
            return InverseLawFailure(rest, a, d, R.remove(R.add(a, d), d))
    return None
