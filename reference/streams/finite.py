"""Deciding stream-function statements on finite monoids (STREAM-PROP-3.13-LC, -IDEM).

On monoids given by tables over ``{0, …, n-1}`` (identity 0) every function
``F`` and every update ``ΔF`` can be enumerated, so "F is a stream function"
(there *exists* a ΔF with (1), (2a), (2b)) is decided, not sampled.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import product as cartesian

from reference.algebra.monoid import Monoid
from reference.verdict import Verdict, fails, holds

Table = dict[int, int]
Update = dict[tuple[int, int], int]
Finite = tuple[Monoid[int], int]  # a table monoid and its order


def solutions_of_1(F: Table, M: Finite, N: Finite) -> dict[tuple[int, int], list[int]]:  # noqa: N803
    """Per ``(p, a)``: every ``x`` with ``F(p)·x = F(pa)`` (condition (1))."""
    (m, sm), (n, sn) = M, N
    return {(p, a): [x for x in range(sn) if n.op(F[p], x) == F[m.op(p, a)]]
            for p in range(sm) for a in range(sm)}


def updates(sol: dict[tuple[int, int], list[int]]) -> Iterator[Update]:
    cells = list(sol)
    for picks in cartesian(*(sol[c] for c in cells)):
        yield dict(zip(cells, picks, strict=True))


def is_regular(dF: Update, M: Finite, N: Finite) -> bool:  # noqa: N803
    """Conditions (2a) and (2b) for ``ΔF`` (decided)."""
    (m, sm), (n, _) = M, N
    if any(dF[(p, 0)] != n.identity for p in range(sm)):
        return False
    return all(dF[(p, m.op(a, b))] == n.op(dF[(p, a)], dF[(m.op(p, a), b)])
               for p in range(sm) for a in range(sm) for b in range(sm))


def stream_update(F: Table, M: Finite, N: Finite) -> Update | None:  # noqa: N803
    """A ΔF making ``F`` a stream function, or ``None`` when none exists (decided)."""
    for dF in updates(solutions_of_1(F, M, N)):
        if is_regular(dF, M, N):
            return dF
    return None


def image_is_left_cancellative_monoid(F: Table, N: Finite, submonoid: bool) -> bool:
    """``Im(F)`` is closed, left-cancellative and a monoid: with its own identity
    (``submonoid=False``, the literal reading) or containing ``ε_N`` (``submonoid=True``)."""
    n, _ = N
    im = set(F.values())
    if not all(n.op(a, b) in im for a in im for b in im):
        return False
    if submonoid:
        if n.identity not in im:
            return False
    elif not any(all(n.op(e, a) == a == n.op(a, e) for a in im) for e in im):
        return False
    return all(not (n.op(x, a) == n.op(x, b) and a != b) for x in im for a in im for b in im)


def check_left_cancellative_proposition(monoids: Sequence[Finite], submonoid: bool) -> Verdict:
    """STREAM-PROP-3.13-LC decided over all pairs of ``monoids`` and all ``F``: if some ΔF
    satisfies (1) and Im(F) is a left-cancellative monoid, some ΔF satisfies (1) and (2)."""
    spec = "STREAM-CLAIM-3.13-LC-SUBMONOID" if submonoid else "STREAM-PROP-3.13-LC"
    searched = f"all F between {len(monoids)} finite monoids ({'submonoid' if submonoid else 'own identity'} reading)"
    cases = 0
    for M, N in cartesian(monoids, repeat=2):
        for values in cartesian(range(N[1]), repeat=M[1]):
            F = dict(enumerate(values))
            if not image_is_left_cancellative_monoid(F, N, submonoid):
                continue
            if any(not xs for xs in solutions_of_1(F, M, N).values()):
                continue
            cases += 1
            if stream_update(F, M, N) is None:
                return fails(spec, searched, cases, M=M[0].name, N=N[0].name, F=F)
    return holds(spec, searched, cases, decided=True)
