"""Checkers for the universally quantified statements of DD §2-§4: each returns a
:class:`~reference.verdict.Verdict`, decided when the cases enumerate a finite
carrier, "holds up to the bound" otherwise, or a concrete counterexample."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from reference.algebra.group import Group
from reference.differential.language import (
    Context,
    Expr,
    Semantics,
    Signature,
    delta_context,
    denote_type,
    integrate_context,
    type_of,
)
from reference.differential.mobius import mobius_by_recursion
from reference.differential.orders import LocallyFiniteOrder
from reference.verdict import Verdict, fails, holds


def check_mobius_closed_form(
    spec_id: str, order: LocallyFiniteOrder[Any], domain: tuple[Any, ...], searched: str
) -> Verdict:
    """The order's closed-form ``μ(s, t)`` equals the recursion, for all ``s, t`` in ``domain``."""
    cases = 0
    for t in domain:
        for s in domain:
            cases += 1
            closed, recursive = order.mobius(s, t), mobius_by_recursion(order, s, t)
            if closed != recursive:
                return fails(spec_id, searched, cases, s=s, t=t, closed=closed, recursion=recursive)
    return holds(spec_id, searched, cases, decided=True)


def check_linear_inverses(
    spec_id: str, group: Group[Any], elements: Iterable[Any], searched: str, decided: bool = False
) -> Verdict:
    """``S(δ(x)) = x = δ(S(x))`` and ``δ``, ``S`` additive, over the given elements
    (pairs drawn from them for additivity)."""
    pool = list(elements)
    cases = 0
    for x in pool:
        cases += 1
        if group.integrate(group.delta(x)) != x or group.delta(group.integrate(x)) != x:
            return fails(spec_id, searched, cases, x=x, S_delta=group.integrate(group.delta(x)),
                         delta_S=group.delta(group.integrate(x)))
    for x, y in zip(pool, pool[1:] + pool[:1], strict=True):
        cases += 1
        for name, op in (("delta", group.delta), ("S", group.integrate)):
            if op(group.add(x, y)) != group.add(op(x), op(y)):
                return fails(spec_id, searched, cases, x=x, y=y, operation=name)
    return holds(spec_id, searched, cases, decided)


def check_theorem_1(
    sig: Signature, gamma: Context, e: Expr, alphas: Iterable[tuple[Any, ...]], horizon: int,
    form: str = "first", differential: Semantics | None = None,
) -> Verdict:
    """DD-THM-1 for one well-typed ``Γ ⊢ e : σ`` over the given environments ``α``:

    first form:  ``Dδ[[e]](α) = δ(D[[e]](S α))``;
    second form: ``Dδ[[e]](δ α) = δ(D[[e]](α))``.

    ``differential`` replaces ``Dδ`` (to show the checker failing on a wrong one).
    """
    standard = Semantics(sig, horizon)
    differential = differential or Semantics(sig, horizon, differential=True)
    group = denote_type(sig, type_of(sig, gamma, e), horizon)
    cases = 0
    for alpha in alphas:
        cases += 1
        if form == "first":
            lhs = differential(gamma, e, alpha)
            rhs = group.delta(standard(gamma, e, integrate_context(sig, gamma, horizon, alpha)))
        else:
            lhs = differential(gamma, e, delta_context(sig, gamma, horizon, alpha))
            rhs = group.delta(standard(gamma, e, alpha))
        if lhs != rhs:
            return fails("DD-THM-1", f"{e}", cases, alpha=alpha, differential=lhs, expected=rhs)
    return holds("DD-THM-1", f"{form} form, horizon {horizon}", cases)
