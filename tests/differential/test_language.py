"""DD §4: types, expressions, typing (Proposition 4), the standard and differential
semantics, and Theorem 1 on randomly generated well-typed programs."""

from __future__ import annotations

from itertools import product
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.algebra.zset import ZSet
from reference.differential.builtins import BAG, INT, REL
from reference.differential.checks import check_theorem_1
from reference.differential.language import (
    Add,
    App,
    Context,
    Expr,
    Fst,
    IllTyped,
    Iter,
    Let,
    Neg,
    Out,
    Pair,
    Prod,
    Semantics,
    Snd,
    Star,
    Streams,
    Type,
    UnitType,
    Var,
    Zero,
    denote_type,
    derivations,
    type_of,
)
from reference.differential.mobius import Stream
from tests.differential.language_programs import (
    GAMMA,
    HORIZON,
    SIG,
    environments,
    exprs,
    loops,
    record,
    target_types,
)

# --- typing ----------------------------------------------------------------------------


def test_typing_rules_examples() -> None:
    """A few judgments of DD-DEF-TYPING, and refusals."""
    e = Iter("x", BAG, App("distinct", (Add(Var("x"), Var("a")),)), Var("a"))
    assert type_of(SIG, GAMMA, e) == Streams(BAG)
    assert type_of(SIG, GAMMA, Out(1, e)) == BAG
    assert type_of(SIG, GAMMA, Fst(Pair(Var("n"), Star()))) == INT
    assert type_of(SIG, GAMMA, Let("y", INT, Var("n"), App("mul", (Var("y"), Var("y"))))) == INT
    for bad in (Add(Var("a"), Var("n")), Out(0, Var("a")), Iter("a", BAG, Var("a"), Var("a")),
                App("join", (Var("r"),)), Fst(Var("n"))):
        with pytest.raises(IllTyped):
            type_of(SIG, GAMMA, bad)


def small_expressions(size: int, ctx_vars: tuple[str, ...]) -> list[Expr]:
    """Every expression with at most ``size`` constructors over a small grammar: the
    variables, 0 of int and bag, +, -, <,>, fst, snd, *, distinct, size, singleton,
    mul, iter y:int / y:bag, out_0, out_1, let y:int (ill-typed ones included)."""
    if size == 0:
        return []
    leaves: list[Expr] = [*(Var(x) for x in ctx_vars), Zero(INT), Zero(BAG), Star()]
    if size == 1:
        return leaves
    smaller = small_expressions(size - 1, ctx_vars)
    out: list[Expr] = list(leaves)
    for e in smaller:
        out += [Neg(e), Fst(e), Snd(e), Out(0, e), Out(1, e), App("distinct", (e,)),
                App("size", (e,)), App("singleton", (e,))]
    for left, right in product(small_expressions(size - 2, ctx_vars), repeat=2) if size > 2 else []:
        out += [Add(left, right), Pair(left, right), App("mul", (left, right))]
    if size > 2:
        for body, start in product(small_expressions(size - 2, (*ctx_vars, "y")), small_expressions(1, ctx_vars)):
            out += [Iter("y", INT, body, start), Iter("y", BAG, body, start), Let("y", INT, start, body)]
    return out


@pytest.mark.spec("DD-PROP-4", evidence="exhaustive")
def test_unique_typing_exhaustive() -> None:
    """Every expression of at most 4 constructors over the small grammar, in the
    context n : int, a : bag: at most one derivation (hence one type), and the
    checker ``type_of`` finds exactly the derivable type (11,130 expressions, 750
    of them well typed)."""
    gamma: Context = (("n", INT), ("a", BAG))
    exprs_ = small_expressions(4, ("n", "a"))
    typed = 0
    for e in exprs_:
        found = derivations(SIG, gamma, e)
        assert len(found) <= 1
        try:
            sigma: Type | None = type_of(SIG, gamma, e)
        except IllTyped:
            sigma = None
        assert sigma == (found[0][0] if found else None)
        typed += bool(found)
    assert len(exprs_) == 11_130 and typed == 750


@pytest.mark.spec("DD-PROP-4", evidence="property")
@given(target_types().flatmap(lambda t: exprs(t, 3, GAMMA)))
def test_unique_typing_generated(e: Expr) -> None:
    found = derivations(SIG, GAMMA, e)
    assert len(found) == 1 and found[0][0] == type_of(SIG, GAMMA, e)


@pytest.mark.spec("DD-PROP-4", evidence="example")
def test_unique_typing_needs_no_repetition() -> None:
    """With a repeated variable (x : int, x : bag), x has two types: the hypothesis
    that environments have no repetition is needed."""
    assert {s for s, _ in derivations(SIG, (("x", INT), ("x", BAG)), Var("x"))} == {INT, BAG}


# --- semantics ------------------------------------------------------------------------------


def test_denotation_of_types() -> None:
    """D[[σ+]] is D[[σ]]^N on 0..horizon; products and unit."""
    g = denote_type(SIG, Prod(Streams(INT), UnitType()), 2)
    assert g.zero() == (Stream((0, 1, 2), (0, 0, 0)), ())


def test_standard_semantics_example() -> None:
    """D[[iter x:bag to distinct(x + map_inc(x)) in a]] on a = {0}: {0}, {0,1}, {0,1,2}."""
    e = Iter("x", BAG, App("distinct", (Add(Var("x"), App("map_inc", (Var("x"),))),)), Var("a"))
    gamma: Context = (("a", BAG),)
    d = Semantics(SIG, 2)(gamma, e, (ZSet({0: 1}),))
    assert d.values == (ZSet({0: 1}), ZSet({0: 1, 1: 1}), ZSet({0: 1, 1: 1, 2: 1}))
    assert Semantics(SIG, 2)(gamma, Out(2, e), (ZSet({0: 1}),)) == ZSet({0: 1, 1: 1, 2: 1})


@pytest.mark.spec("DD-DEC-ITER-START", evidence="example")
def test_iter_start_is_the_start_expression() -> None:
    """Dδ[[iter x:int to square(x) in n]](α) with α(n) = 3 (δ = id on Z): the start is
    Dδ[[e']](α) = 3, giving δ(3, 9, 81) = (3, 6, 72). The printed Dδ[[e]](α) would
    evaluate the body square(x) without a value for x: ill-formed."""
    e = Iter("x", INT, App("square", (Var("x"),)), Var("n"))
    gamma: Context = (("n", INT),)
    assert Semantics(SIG, 2, differential=True)(gamma, e, (3,)).values == (3, 6, 72)
    with pytest.raises(ValueError):
        Semantics(SIG, 2, differential=True)(gamma, App("square", (Var("x"),)), (3,))


@pytest.mark.spec("DD-DEC-ITER-START", evidence="property")
@given(st.integers(-3, 3), st.lists(st.tuples(st.integers(0, 3), st.integers(-2, 2)), max_size=3))
def test_iter_start_reading_satisfies_theorem_1(n: int, pairs: list[tuple[int, int]]) -> None:
    """With the start read as Dδ[[e']](α), Theorem 1's first form holds for iter whose
    start is not a variable (so a misreading would show)."""
    a = ZSet.from_pairs(pairs)
    e = Iter("x", BAG, App("distinct", (Add(Var("x"), App("singleton", (Var("n"),))),)),
             App("map_inc", (App("distinct", (Var("a"),)),)))
    gamma: Context = (("n", INT), ("a", BAG))
    assert check_theorem_1(SIG, gamma, e, [(n, a)], 3)


# --- Theorem 1 -----------------------------------------------------------------------------------

programs = target_types().flatmap(lambda t: exprs(t, 4, GAMMA, iterin=False))


@pytest.mark.spec("DD-THM-1", evidence="property", part="first")
@given(programs, environments())
def test_theorem_1_first_form(e: Expr, alpha: tuple[Any, ...]) -> None:
    """Dδ[[e]](α) = δ(D[[e]](S α)) for random well-typed e (at most 4 constructs deep,
    nested iter and out_k included, §4 constructs only) in the context
    a : bag, r : rel, n : int, s : bag+, horizon 2."""
    record(e)
    type_of(SIG, GAMMA, e)
    verdict = check_theorem_1(SIG, GAMMA, e, [alpha], HORIZON, form="first")
    assert verdict, verdict.describe()


@pytest.mark.spec("DD-THM-1", evidence="property", part="second")
@given(programs, environments())
def test_theorem_1_second_form(e: Expr, alpha: tuple[Any, ...]) -> None:
    """Dδ[[e]](δ α) = δ(D[[e]](α)), same programs."""
    record(e)
    verdict = check_theorem_1(SIG, GAMMA, e, [alpha], HORIZON, form="second")
    assert verdict, verdict.describe()


@pytest.mark.spec("DD-THM-1", evidence="property", part="first")
@pytest.mark.spec("DD-THM-1", evidence="property", part="second")
@given(loops(2), environments())
def test_theorem_1_on_nested_loops(e: Expr, alpha: tuple[Any, ...]) -> None:
    """Both forms on programs that are loops with a loop inside their body (nesting >= 2),
    the four sub-expressions random of depth <= 2."""
    record(e)
    for form in ("first", "second"):
        verdict = check_theorem_1(SIG, GAMMA, e, [alpha], HORIZON, form=form)
        assert verdict, verdict.describe()


NESTED = Iter(  # iter x:bag to distinct(x + out_1(iter y:bag to map_inc(y) + x in x)) in a
    "x", BAG,
    App("distinct", (Add(Var("x"), Out(1, Iter("y", BAG, Add(App("map_inc", (Var("y"),)), Var("x")), Var("x")))),)),
    Var("a"),
)


@pytest.mark.spec("DD-THM-1", evidence="exhaustive", part="first")
@pytest.mark.spec("DD-THM-1", evidence="exhaustive", part="second")
def test_theorem_1_exhaustive_on_a_nested_loop() -> None:
    """A nested loop with non-linear body, for every a ∈ A({0,1}) with weights in -1..1
    (9 environments), both forms, horizon 3."""
    gamma: Context = (("a", BAG),)
    alphas = [(ZSet({0: u, 1: v}),) for u, v in product(range(-1, 2), repeat=2)]
    for form in ("first", "second"):
        verdict = check_theorem_1(SIG, gamma, NESTED, alphas, 3, form=form)
        assert verdict, verdict.describe()


@pytest.mark.spec("DD-THM-1", evidence="example", part="first")
def test_theorem_1_worked_example() -> None:
    """e = out_1(iter x:int to square(x) in n), α(n) = 2: D[[e]] = 4; Dδ[[e]](2) = 2 + 2 = 4."""
    e = Out(1, Iter("x", INT, App("square", (Var("x"),)), Var("n")))
    gamma: Context = (("n", INT),)
    assert Semantics(SIG, 2)(gamma, e, (2,)) == 4
    assert Semantics(SIG, 2, differential=True)(gamma, e, (2,)) == 4
    assert check_theorem_1(SIG, gamma, e, [(2,)], 2)


def test_theorem_1_checker_rejects_a_broken_semantics() -> None:
    """The checker can fail: with Bδ[[f]] = B[[f]] (no δ, no S), ingress (whose
    differential is not itself, Proposition 3) is caught, with its counterexample:
    Dδ must give (a, -a, 0), the broken semantics gives in(a) = (a, 0, 0)."""
    e = App("ingress", (Var("a"),))
    gamma: Context = (("a", BAG),)
    a = ZSet({1: 1})

    class Broken(Semantics):
        def basic(self, f: Any, args: list[Any]) -> Any:
            return f.meaning(*args)

    assert check_theorem_1(SIG, gamma, e, [(a,)], HORIZON)
    verdict = check_theorem_1(SIG, gamma, e, [(a,)], HORIZON, differential=Broken(SIG, HORIZON, True))
    assert not verdict and verdict.counterexample is not None
    assert verdict.counterexample["differential"] == Stream((0, 1, 2), (a, ZSet(), ZSet()))
    assert verdict.counterexample["expected"] == Stream((0, 1, 2), (a, -a, ZSet()))


@pytest.mark.spec("DD-CLAIM-ITER-EQ1", evidence="property")
@given(st.sampled_from([INT, BAG, REL]).flatmap(
    lambda t: st.tuples(st.just(t), exprs(t, 3, (*GAMMA, ("x9", t))), exprs(t, 2, GAMMA))), environments())
def test_iter_denotes_the_solution_of_equation_1(parts: tuple[Type, Expr, Expr], alpha: tuple[Any, ...]) -> None:
    """D[[iter x9:σ to e in e']](α) = the causal solution of (1) with c = D[[e']](α)."""
    from reference.differential.loops import loop_equation, n_streams, solve_causal

    sigma, body, start = parts
    sem = Semantics(SIG, HORIZON)
    d = sem(GAMMA, Iter("x9", sigma, body, start), alpha)
    f = lambda a: sem((*GAMMA, ("x9", sigma)), body, (*alpha, a))  # noqa: E731
    streams = n_streams(denote_type(SIG, sigma, HORIZON), HORIZON)
    assert solve_causal(streams, loop_equation(streams, f, sem(GAMMA, start, alpha))) == d


@pytest.mark.spec("DD-CLAIM-ITER-EQ1", evidence="example")
def test_iter_equation_1_example() -> None:
    """iter x:int to square(x) + 1 in n at n = 1: 1, 2, 5 — d_0 = c, d_{n+1} = f(d_n)."""
    e = Iter("x", INT, Add(App("square", (Var("x"),)), Var("one")), Var("n"))
    gamma: Context = (("n", INT), ("one", INT))
    assert Semantics(SIG, 2)(gamma, e, (1, 1)).values == (1, 2, 5)
