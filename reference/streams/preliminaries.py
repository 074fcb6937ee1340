"""§3.0 Preliminaries: finite monoids by their tables, Example 3.12, and the
composition of homomorphisms (STREAM-PROP-3.12-COMP)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import product as cartesian
from typing import Any

from reference.algebra.monoid import Monoid

Table = tuple[tuple[int, ...], ...]


def table_monoid(name: str, table: Table) -> Monoid[int]:
    """The finite monoid on ``{0, …, n-1}`` with product ``table[a][b]`` and identity 0
    (a candidate: whether it is a monoid is :func:`~reference.algebra.monoid.check_monoid_laws`'s call)."""
    return Monoid(name, 0, lambda a, b: table[a][b], factor=lambda m: [] if m == 0 else [m])


def monoids_of_order(n: int) -> Iterator[Monoid[int]]:
    """Every monoid structure on ``{0, …, n-1}`` with identity 0 (labelled; ``n ≤ 3``
    keeps this to 3^4 candidate tables)."""
    rest = range(1, n)
    cells = [(a, b) for a in rest for b in rest]
    for values in cartesian(range(n), repeat=len(cells)):
        rows = [[a if b == 0 else b if a == 0 else 0 for b in range(n)] for a in range(n)]
        for (a, b), v in zip(cells, values, strict=True):
            rows[a][b] = v
        table = tuple(tuple(r) for r in rows)
        if all(table[table[a][b]][c] == table[a][table[b][c]] for a, b, c in cartesian(range(n), repeat=3)):
            yield table_monoid(f"T{n}{values}", table)


def right_zero_band() -> Monoid[int]:
    """``{ε, e1, e2}`` with ``xy = y`` for ``x, y ≠ ε``: an idempotent, non-commutative monoid."""
    return table_monoid("RZ", ((0, 1, 2), (1, 1, 2), (2, 1, 2)))


def to_set(word: tuple[Any, ...]) -> frozenset[Any]:
    """STREAM-EX-3.12: ``f(a1 a2 … ak) = {a1, a2, …, ak}``, a homomorphism ``List[S] → P(S)``."""
    return frozenset(word)


def compose_homs(f: Callable[[Any], Any], g: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """STREAM-PROP-3.12-COMP: ``f ∘ g`` (apply ``g`` first), a homomorphism when both are."""
    return lambda x: f(g(x))


def has_trivial_units(m: Monoid[int], carrier: range) -> bool:
    """``ab = ε ⟹ a = b = ε`` (no non-trivial invertible elements): the hypothesis the
    idempotent proposition's proof needs (STREAM-PROP-3.13-IDEM notes)."""
    e = m.identity
    return all(not (m.op(a, b) == e and (a != e or b != e)) for a in carrier for b in carrier)
