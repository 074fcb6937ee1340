"""§3.4 "Formal Definitions (Reference)": rank (Def. 4), well-founded derivation
(Def. 5), semi-naive iteration (Def. 6) and the well-founded cascade (Def. 7),
as in the Lean development (``IncrementalFixpoint.lean``: ``iterF``,
``firstAppears``, ``hasWfDeriver``, ``semiNaiveN``, ``wfCascadeN``).

Ranks are finite maps; an element absent from a rank map has rank ∞ ("no
finite rank"), so it neither wf-derives nor is wf-derived (Lean: ``rankLt``
needs both first appearances).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from reference.fixpoint.general_pattern import Elem, Operator, kleene_chain, step

Rank = Mapping[Elem, int]


def rank(op: Operator) -> dict[Elem, int]:
    """FIX-DEF-4: rank(x) = min{n | x ∈ F^n(∅)}, the first appearance in the
    Kleene chain. Base elements have rank 1 here (F^1(∅) = base); the
    algorithms' BFS ranks start at 0 (see :func:`bfs_rank`, FIX-DEC-RANK-ORIGIN)."""
    first: dict[Elem, int] = {}
    for n, S in enumerate(kleene_chain(op)):
        for x in S:
            first.setdefault(x, n)
    return first


def bfs_rank(op: Operator) -> dict[Elem, int]:
    """FIX-DEC-RANK-ORIGIN: the BFS distance from base of §3.1.3 and §4
    ("rank: BFS distance from base"; R ↦ 0 in §4.1) is Def. 4's rank minus one."""
    return {x: n - 1 for x, n in rank(op).items()}


def rank_lt(r: Rank, y: Elem, x: Elem) -> bool:
    """rank(y) < rank(x), both finite (Lean ``rankLt``)."""
    return y in r and x in r and r[y] < r[x]


def wf_derives(op: Operator, r: Rank, y: Elem, x: Elem) -> bool:
    """FIX-DEF-5: y wf-derives x iff rank(y) < rank(x) and x ∈ step({y})."""
    return rank_lt(r, y, x) and x in step(op, (y,))


def has_wf_deriver(op: Operator, r: Rank, S: Iterable[Elem], x: Elem) -> bool:
    """∃y ∈ S. y wf-derives x (Lean ``hasWfDeriver``)."""
    return any(wf_derives(op, r, y, x) for y in S)


def semi_naive(op: Operator, I: frozenset[Elem]) -> tuple[tuple[frozenset[Elem], frozenset[Elem]], ...]:
    """FIX-DEF-6: C_0 = I, Δ_0 = I, Δ_{n+1} = step(Δ_n) \\ C_n, C_{n+1} = C_n ∪ Δ_{n+1};
    the pairs (C_n, Δ_n) until Δ is empty (that last pair included)."""
    chain = [(I, I)]
    while chain[-1][1]:
        C, D = chain[-1]
        D_next = step(op, D) - C
        chain.append((C | D_next, D_next))
    return tuple(chain)


def wf_cascade_step(op: Operator, r: Rank, K: frozenset[Elem]) -> frozenset[Elem]:
    """One step of FIX-DEF-7: K \\ {x ∈ K | x ∉ B ∧ no wf-deriver in K}."""
    return K - {x for x in K if x not in op.base and not has_wf_deriver(op, r, K, x)}


def wf_cascade(op: Operator, r: Rank, I: frozenset[Elem]) -> tuple[frozenset[Elem], ...]:
    """FIX-DEF-7: K_0 = I, K_{n+1} = K_n \\ {x | x ∉ B ∧ no wf-deriver in K_n},
    until K_{n+1} = K_n (it stabilises within |I| strict steps on a finite I:
    FIX-CLAIM-FINITENESS, the Lean axiom ``cascadeN_stabilizes``)."""
    chain = [I]
    while True:
        nxt = wf_cascade_step(op, r, chain[-1])
        if nxt == chain[-1]:
            return tuple(chain)
        chain.append(nxt)


def wf_cascade_fix(op: Operator, r: Rank, I: frozenset[Elem]) -> frozenset[Elem]:
    """⋂_n K_n (Lean ``wfCascadeFix`` / ``cascadeFixWithRanks``)."""
    return wf_cascade(op, r, I)[-1]


def expand_from(op: Operator, init: frozenset[Elem], frontier: frozenset[Elem]) -> frozenset[Elem]:
    """Lean ``expandFrom``: init ∪ ⋃_n step^n(frontier)."""
    seen, layer = set(frontier), frontier
    while layer:
        layer = step(op, layer) - seen
        seen |= layer
    return init | frozenset(seen)


def cascade_and_rederive(op_new: Operator, lfp_old: frozenset[Elem], r: Rank) -> frozenset[Elem]:
    """Lean ``cascadeAndRederive``: cascade lfp with the ranks ``r`` (any ranks,
    typically the stale ones of the old operator), then expand from the removed
    elements that a survivor derives. FIX-THM-CASCADE-REDERIVE: equals lfp(F')
    whenever F' ⊑ F, for *any* r."""
    after = wf_cascade_fix(op_new, r, lfp_old)
    dying = lfp_old - after
    frontier = frozenset(y for y in dying if any(y in step(op_new, (x,)) for x in after))
    return expand_from(op_new, after, frontier)
