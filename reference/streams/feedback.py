"""§3.8 Feedback composition (STREAM-DEF-3.57 ... STREAM-PROP-3.61-RIGHT)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from reference.algebra.monoid import (
    StateFn,
    direct_product,
    free_monoid,
    hom_on_generators,
    naturals,
    powerset,
    state_monoid,
)
from reference.streams.functions import StreamFunction, homomorphism_as_stream_function
from reference.streams.processors import Processor


def loop_function(sf: StreamFunction, ms: Sequence[Any]) -> tuple[Any, ...]:
    """STREAM-DEF-3.57: for ``F : M × U → N × U`` and inputs ``m1, …, mk``,
    ``x0 = F(ε)``, ``x_i = ΔF(y1 ⋯ y_{i-1}, y_i)`` with ``(n_i, u_i) = x_i`` and
    ``y_i = (m_i, u_{i-1})``; ``(loop F)([m1, …, mk]) ≜ [n0, n1, …, nk]``.

    The result depends on the chosen ``ΔF`` (not only on F) when N × U is not
    left-cancellative; see STREAM-DEC-LOOP-DELTA."""
    n, u = sf.F(sf.M.identity)
    outputs = [n]
    prefix = sf.M.identity
    for m in ms:
        y = (m, u)
        n, u = sf.dF(prefix, y)
        prefix = sf.M.op(prefix, y)
        outputs.append(n)
    return tuple(outputs)


def loop_processor(sigma: Processor) -> Processor:
    """STREAM-DEF-3.59: for ``σ : M × U ⇝ N × U = (S, f, s_ε, o_ε)`` with
    ``(n0, u0) = o_ε``, ``loop σ ≜ (S × U, g, (s_ε, u0), [n0]) : List[M] ⇝ List[N]``
    where, on the generators, ``g([m]) = (s, u) ↦ let (s', (n, u')) = f((m, u))(s)
    in ((s', u'), [n])``."""
    n0, u0 = sigma.o_eps
    lists_in, lists_out = free_monoid(f"List[{sigma.M.name}]"), free_monoid(f"List[{sigma.N.name}]")

    def on_generator(g: tuple[Any, ...]) -> StateFn:
        (m,) = g

        def step(su: tuple[Any, Any]) -> tuple[tuple[Any, Any], tuple[Any, ...]]:
            s, u = su
            s1, (n, u1) = sigma.f((m, u))(s)
            return ((s1, u1), (n,))

        return step

    g = hom_on_generators(lists_in, state_monoid(lists_out, ()), on_generator)
    return Processor(g, (sigma.s_eps, u0), (n0,), lists_in, lists_out, f"loop {sigma.name}")


def map_list(f: Callable[[Any], Any]) -> Callable[[tuple[Any, ...]], tuple[Any, ...]]:
    """``List[f] : List[A] → List[B]``, the homomorphism applying ``f`` elementwise."""
    return lambda xs: tuple(f(x) for x in xs)


# --- Example 3.58: monotone Datalog (transitive closure) ----------------------

Edge = tuple[Any, Any]


def immediate_consequence(ei: tuple[frozenset[Edge], frozenset[Edge]]) -> tuple[frozenset[Edge], frozenset[Edge]]:
    """STREAM-EX-3.58: ``T_P : E × I → I × I`` for ``path(x, y) :- edge(x, y)`` and
    ``path(x, z) :- path(x, y), edge(y, z)``: ``J = E ∪ I∘E``, output ``(J, J)``."""
    e, i = ei
    j = e | frozenset((x, z) for (x, y) in i for (y2, z) in e if y == y2)
    return (j, j)


def transitive_closure_step() -> StreamFunction:
    """``T_P`` as a stream function on ``P(V²) × P(V²)``, with the incremental update
    ``ΔT_P(p, a) = T_P(pa) \\ T_P(p)`` (componentwise); valid because ``T_P`` is monotone."""
    P = powerset("P(V²)")
    PP = direct_product(P, P)

    def dF(p: tuple[frozenset[Edge], frozenset[Edge]], a: tuple[frozenset[Edge], frozenset[Edge]]) -> Any:
        before, after = immediate_consequence(p), immediate_consequence(PP.op(p, a))
        return (after[0] - before[0], after[1] - before[1])

    return StreamFunction(immediate_consequence, dF, PP, PP, "T_P")


def transitive_closure(edges: frozenset[Edge]) -> frozenset[Edge]:
    """The transitive closure by naive iteration (the oracle for Example 3.58)."""
    closure = set(edges)
    while True:
        new = {(x, z) for (x, y) in closure for (y2, z) in edges if y == y2} - closure
        if not new:
            return frozenset(closure)
        closure |= new


# --- the non-terminating example F(m, u) = (u, u + m) -------------------------


def shift_add() -> StreamFunction:
    """§3.8: ``F : N × N → N × N``, ``F(m, u) = (u, u + m)``: a homomorphism, hence a
    stream function with ``ΔF(p, a) = F(a)`` (STREAM-EX-3.14)."""
    NN = direct_product(naturals(), naturals())
    return homomorphism_as_stream_function(lambda mu: (mu[1], mu[1] + mu[0]), NN, NN)


def fix_sequence_feedback(m: int, rounds: int) -> tuple[int, ...]:
    """The feedback values ``u_0, …, u_rounds`` of the fix sequence of ``shift_add``
    with input held at ``m`` (closed form: ``u_i = i·m``)."""
    sf = shift_add()
    _, u = sf.F(sf.M.identity)
    us = [u]
    prefix = sf.M.identity
    for _ in range(rounds):
        y = (m, u)
        _, u = sf.dF(prefix, y)
        prefix = sf.M.op(prefix, y)
        us.append(u)
    return tuple(us)


def reaches_fixed_point(m: int, rounds: int) -> bool:
    """Whether ``u_{k+1} = u_k`` for some ``k < rounds`` in the fix sequence."""
    us = fix_sequence_feedback(m, rounds)
    return any(a == b for a, b in zip(us, us[1:], strict=False))

