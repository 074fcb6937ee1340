"""Hypothesis strategies for the Skip checks: small multisets, collections and
valid deltas over ints, and a family of reducers on tiny finite carriers
(Z_n accumulators, Z_m values) that includes well-formed, ill-formed,
reachable-only and non-commutative ones."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from reference.algebra.multiset import Multiset
from reference.reduce import Delta, Reducer
from reference.skip.carriers import Table

VALUES = st.integers(-3, 3)
KEYS = st.sampled_from(("a", "b", "c"))

multisets = st.lists(VALUES, max_size=6).map(Multiset.from_iterable)
collections = st.dictionaries(KEYS, multisets, max_size=3)


@st.composite
def submultiset_of(draw: st.DrawFn, M: Multiset) -> Multiset:
    """Some N ⊆ M: each copy of each value of M is kept or not."""
    elements = list(M.elements())
    keep = draw(st.lists(st.booleans(), min_size=len(elements), max_size=len(elements)))
    return Multiset.from_iterable(e for e, kept in zip(elements, keep, strict=True) if kept)


@st.composite
def collection_and_delta(
    draw: st.DrawFn, values: st.SearchStrategy[Any] = VALUES
) -> tuple[dict[str, Multiset], Delta]:
    """A collection over ``values`` and a valid delta for it (Δ⁻(k) ⊆ C(k))."""
    bags = st.lists(values, max_size=6).map(Multiset.from_iterable)
    C = draw(st.dictionaries(KEYS, bags, max_size=3))
    minus = {k: draw(submultiset_of(M)) for k, M in C.items()}
    plus = draw(st.dictionaries(KEYS, bags, max_size=3))
    return C, Delta(plus=plus, minus={k: M for k, M in minus.items() if not M.is_empty()})


# --- a family of reducers on Z_n x Z_m -----------------------------------------------


@dataclass(frozen=True)
class TinyReducer:
    """A reducer on A = Z_n, V = Z_m, with how it was built (for the failure report)."""

    reducer: Reducer[int, int]
    n: int
    m: int
    family: str

    @property
    def accumulators(self) -> tuple[int, ...]:
        return tuple(range(self.n))

    @property
    def values(self) -> tuple[int, ...]:
        return tuple(range(self.m))


def _power_table(f: tuple[int, ...], exponents: tuple[int, ...]) -> Table[int]:
    """⋆ v = f^(exponents[v]): powers of one function commute, so ⋆ is pairwise commutative."""
    rows = []
    for a in range(len(f)):
        row = []
        for e in exponents:
            x = a
            for _ in range(e):
                x = f[x]
            row.append(x)
        rows.append(tuple(row))
    return Table(tuple(rows))


@st.composite
def tiny_reducers(draw: st.DrawFn) -> TinyReducer:
    """Reducers on Z_n x Z_m (n <= 3, m <= 2) from five families:

    - ``powers``: ⊕ v = f^(c_v), ⊖ v = g^(d_v) for functions f, g on Z_n: always
      pairwise commutative, often ill-formed or well-formed on reachable values only;
    - ``group``: ⊕ v = a + s_v, ⊖ v = a - t_v (mod n): well-formed iff s_v = t_v
      wherever it matters;
    - ``partial``: ``powers`` whose ⊖ declines (None) on some cells
      (SKIP-DEC-PARTIAL), commutative or not once declines absorb;
    - ``permutations`` (n = 3, m = 2): ⊕ v a permutation p_v of Z_3 and ⊖ v = p_v⁻¹: globally
      well-formed, pairwise commutative exactly when p_0 and p_1 commute (the
      region where Theorem 2 needs its hypothesis);
    - ``tables``: arbitrary tables, mostly not pairwise commutative (outside Thm 2).
    """
    family = draw(st.sampled_from(("powers", "group", "partial", "permutations", "tables")))
    # permutations: S_3 on Z_3 with two values, where half of the pairs do not commute
    n, m = (3, 2) if family == "permutations" else (draw(st.integers(1, 3)), draw(st.integers(1, 2)))
    function = st.tuples(*[st.integers(0, n - 1)] * n)
    exponents = st.tuples(*[st.integers(0, 3)] * m)
    remove: Table[int] | Table[int | None]
    if family in ("powers", "partial"):
        add = _power_table(draw(function), draw(exponents))
        remove = _power_table(draw(function), draw(exponents))
        if family == "partial":
            declined = draw(st.lists(st.booleans(), min_size=n * m, max_size=n * m))
            remove = Table(tuple(
                tuple(None if declined[a * m + v] else remove.rows[a][v] for v in range(m))
                for a in range(n)))
    elif family == "permutations":
        perms = [draw(st.permutations(range(n))) for _ in range(m)]
        add = Table(tuple(tuple(p[a] for p in perms) for a in range(n)))
        remove = Table(tuple(tuple(p.index(a) for p in perms) for a in range(n)))
    elif family == "group":
        shifts = draw(st.tuples(*[st.integers(0, n - 1)] * m))
        unshifts = draw(st.one_of(st.just(shifts), st.tuples(*[st.integers(0, n - 1)] * m)))
        add = Table(tuple(tuple((a + s) % n for s in shifts) for a in range(n)))
        remove = Table(tuple(tuple((a - t) % n for t in unshifts) for a in range(n)))
    else:
        cell = st.integers(0, n - 1)
        add = Table(tuple(tuple(draw(cell) for _ in range(m)) for _ in range(n)))
        remove = Table(tuple(tuple(draw(cell) for _ in range(m)) for _ in range(n)))
    initial = draw(st.integers(0, n - 1))
    name = f"{family}: ι={initial}, ⊕={add.rows}, ⊖={remove.rows}"
    return TinyReducer(Reducer(initial, add, remove, name=name), n, m, family)
