"""Priorities (DD §5): iteration that takes new input at each step, prioritised
iteration built from it, and why the lexicographic order was dropped.

"One use of this generality is for prioritized iteration, in which elements with
priority i are introduced at iteration i × k; this scheme provides exactly k
iterations for each priority, before moving to the next priority starting from
where the previous priority left off."
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reference.algebra.group import ZSets
from reference.algebra.zset import ZSet
from reference.differential.builtins import prioritize
from reference.differential.language import iterate_with_input
from reference.differential.loops import iterate, n_streams
from reference.differential.mobius import Stream, StreamGroup
from reference.differential.orders import Lexicographic, Naturals, naturals


def equation_3(
    streams: StreamGroup, f: Callable[[Any], Any], c: Stream[int, Any]
) -> Callable[[Stream[int, Any]], Stream[int, Any]]:
    """DD-DEF-ITERIN, equation (3) as a map: ``F(d) = c + fb(f^N(d))``."""
    g = streams.inner

    def F(d: Stream[int, Any]) -> Stream[int, Any]:
        return Stream.tabulate(
            streams.domain, lambda n: c(n) if n == 0 else g.add(c(n), f(d(n - 1)))
        )

    return F


def prioritized_iteration(
    f: Callable[[ZSet], ZSet], c: ZSet, k: int, horizon: int
) -> Stream[int, ZSet]:
    """DD-EX-PRIORITIZED: equation (3) with the input ``prioritize(c)``: the elements
    of priority ``i`` enter at iteration ``i × k``."""
    streams = n_streams(ZSets(), horizon)
    return iterate_with_input(streams, f, prioritize(c, k, horizon), differential=False)


def batch_then_k_iterations(
    f: Callable[[ZSet], ZSet], c: ZSet, k: int, horizon: int
) -> Stream[int, ZSet]:
    """The intended behaviour, stated directly: at ``n = i·k + j`` (``0 <= j < k``) the
    value is ``f^j(batch_i + f(value at i·k - 1))``, the previous priority's last value
    carried over (nothing before priority 0)."""
    batches = prioritize(c, k, horizon)
    values: list[ZSet] = []
    for n in range(horizon + 1):
        i, j = divmod(n, k)
        start = batches(i * k) + (f(values[i * k - 1]) if i > 0 else ZSet.zero())
        values.append(iterate(f, j, start))
    return Stream(tuple(range(horizon + 1)), tuple(values))


def lexicographic_infinite_down_set(count: int) -> list[tuple[int, Any]]:
    """DD-CLAIM-LEX-NOT-LF: in ``N ×_lex N``, ``(1, 0)`` is above every ``(0, s)``;
    the first ``count`` of these (all distinct, all ``≤ (1, 0)``): ``↓(1, 0)`` is infinite."""
    lex = Lexicographic(Naturals())
    witness: list[tuple[int, Any]] = []
    for point in lex.below((1, 0), naturals()):
        if len(witness) == count:
            break
        witness.append(point)
    return witness
