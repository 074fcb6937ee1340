"""Equivalence of processors checked on every batching (STREAM-DEF-3.28).

``σ ∼ τ`` iff ``⟦σ⟧ = ⟦τ⟧``. The checker compares the two processors on given
inputs *and on every way of cutting each input into batches*: an input ``m``
is factored into its generators ``g1 ⋯ gn`` and each cut into contiguous
batches ``b1, …, bk`` is fed one batch at a time (:func:`run_batches`). Every
batching must give ``⟦σ⟧(m)`` (condition (1) of STREAM-DEF-3.13 in action: the
output does not depend on the batching), and ``σ`` and ``τ`` must agree.

Inputs with at most ``exhaustive_up_to`` generators are cut in all ``2^(n-1)``
ways; longer ones in a fixed family (one batch, all singletons, every split in
two, and an empty batch in front), so the cost stays linear.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations
from typing import Any

from reference.algebra.monoid import Monoid
from reference.streams.processors import Processor, run, run_batches
from reference.verdict import Verdict, fails, holds

EXHAUSTIVE_UP_TO = 7


def _batches(M: Monoid[Any], gens: Sequence[Any], bounds: Sequence[int]) -> list[Any]:
    edges = [0, *bounds, len(gens)]
    return [M.prod(gens[i:j]) for i, j in zip(edges, edges[1:], strict=False)]


def cuts(M: Monoid[Any], m: Any, exhaustive_up_to: int = EXHAUSTIVE_UP_TO) -> Iterator[list[Any]]:
    """Ways of cutting ``m`` into batches whose product is ``m`` (see module doc)."""
    if M.factor is None:  # no chosen generators: the whole input, and after an empty batch
        yield [m]
        yield [M.identity, m]
        return
    gens = list(M.generators_of(m))
    n = len(gens)
    if n <= exhaustive_up_to:
        for k in range(n):
            for bounds in combinations(range(1, n), k):
                yield _batches(M, gens, bounds)
        if n == 0:
            yield []
    else:
        yield [m]
        yield list(gens)
        for i in range(1, n):
            yield _batches(M, gens, [i])
    yield [M.identity, m]


def check_batching_invariant(sigma: Processor, inputs: Sequence[Any],
                             exhaustive_up_to: int = EXHAUSTIVE_UP_TO) -> Verdict:
    """Every batching of every input gives ``⟦σ⟧(m)`` (STREAM-DEF-3.13 (1) for ``⟦σ⟧``)."""
    F, N = run(sigma), sigma.N
    cases = 0
    for m in inputs:
        whole = F(m)
        for batches in cuts(sigma.M, m, exhaustive_up_to):
            cases += 1
            got = run_batches(sigma, batches)
            if not N.equal(got, whole):
                return fails("STREAM-DEF-3.28", f"batchings of {len(inputs)} inputs", cases,
                             processor=sigma.name, input=m, batches=batches, batched=got, whole=whole)
    return holds("STREAM-DEF-3.28", f"every batching (exhaustive up to {exhaustive_up_to} generators) "
                 f"of {len(inputs)} inputs", cases)


#: Per input ``m``: ``m`` and the batchings it is cut into.
Plan = list[tuple[Any, list[list[Any]]]]
#: Per input: ``⟦σ⟧(m)`` and the output of ``σ`` on each batching of the plan.
Runs = list[tuple[Any, list[Any]]]


def batchings(M: Monoid[Any], inputs: Sequence[Any], exhaustive_up_to: int = EXHAUSTIVE_UP_TO) -> Plan:
    return [(m, list(cuts(M, m, exhaustive_up_to))) for m in inputs]


def _runs(sigma: Processor, plan: Plan) -> Runs:
    F = run(sigma)
    return [(F(m), [run_batches(sigma, batches) for batches in cut]) for m, cut in plan]


def _compare(sigma: Processor, tau: Processor, plan: Plan, left: Runs, right: Runs,
             exhaustive_up_to: int) -> Verdict:
    """Both sides give ``⟦σ⟧(m)`` on every batching of every input of the plan."""
    N = sigma.N
    cases = 0
    for (m, cut), (expected, lefts), (_, rights) in zip(plan, left, right, strict=True):
        for batches, l_out, r_out in zip(cut, lefts, rights, strict=True):
            cases += 1
            if not (N.equal(l_out, expected) and N.equal(r_out, expected)):
                return fails("STREAM-DEF-3.28", f"batchings of {len(plan)} inputs", cases,
                             sigma=sigma.name, tau=tau.name, input=m, batches=batches,
                             sigma_out=l_out, tau_out=r_out, sigma_whole=expected)
    return holds("STREAM-DEF-3.28", f"{sigma.name} ∼ {tau.name} on {len(plan)} inputs, every batching "
                 f"(exhaustive up to {exhaustive_up_to} generators)", cases)


def check_equivalent(sigma: Processor, tau: Processor, inputs: Sequence[Any],
                     exhaustive_up_to: int = EXHAUSTIVE_UP_TO) -> Verdict:
    """STREAM-DEF-3.28: ``σ ∼ τ`` on ``inputs`` and all their batchings.

    A failing verdict names the input, the batching and both outputs."""
    plan = batchings(sigma.M, inputs, exhaustive_up_to)
    return _compare(sigma, tau, plan, _runs(sigma, plan), _runs(tau, plan), exhaustive_up_to)


def check_equivalent_chain(chain: Sequence[Processor], inputs: Sequence[Any],
                           exhaustive_up_to: int = EXHAUSTIVE_UP_TO) -> list[Verdict]:
    """``[check_equivalent(chain[i - 1], chain[i], inputs) for i ≥ 1]``, with each
    processor run once per batching: the outputs of ``chain[i]`` serve both steps
    it is in whenever the two steps cut the inputs the same way."""
    verdicts: list[Verdict] = []
    plan: Plan | None = None
    left: Runs = []
    for sigma, tau in zip(chain, chain[1:], strict=False):
        step_plan = batchings(sigma.M, inputs, exhaustive_up_to)
        if step_plan != plan:
            plan, left = step_plan, _runs(sigma, step_plan)
        right = _runs(tau, step_plan)
        verdicts.append(_compare(sigma, tau, step_plan, left, right, exhaustive_up_to))
        left = right
    return verdicts


def equal_processors(sigma: Processor, tau: Processor, inputs: Sequence[Any],
                     states: Sequence[Any]) -> bool:
    """Whether two processors are *equal* as tuples on the samples: same initial
    state and output, and ``f(m)`` agrees on ``states`` (STREAM-EX-3.29 shows
    equivalent processors that are not equal)."""
    if sigma.s_eps != tau.s_eps or not sigma.N.equal(sigma.o_eps, tau.o_eps):
        return False
    for m in inputs:
        for s in states:
            (s1, o1), (s2, o2) = sigma.f(m)(s), tau.f(m)(s)
            if s1 != s2 or not sigma.N.equal(o1, o2):
                return False
    return True
