"""Hypothesis strategies: well-typed dataflow programs and input deltas.

Element types: ``int`` and ``pair`` (a pair of ints). Inputs: ``a: int``,
``e: pair``, ``f: pair``. Outside loops every operator of the vocabulary may
appear; inside an ``iterate`` body the functions that create fresh values
(``inc``, ``double``, ``reduce``) are left out, so that the elements a loop can
reach form a finite set, and the body is ``distinct(var + E)`` with ``E`` any
expression: with ``negate`` rarely drawn, almost every loop converges within the
default bound (40); ``SMALL_BOUNDS`` makes some hit it.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from reference.algebra.zset import ZSet
from reference.differential.dataflow import (
    Distinct,
    Filter,
    Input,
    Iterate,
    Join,
    Map,
    Negate,
    Node,
    Plus,
    Program,
    Reduce,
    Var,
)

INPUT_TYPES = {"a": "int", "e": "pair", "f": "pair"}

INT_MAPS = ("inc", "double", "neg", "mod3")
LOOP_INT_MAPS = ("neg", "mod3")
INT_PREDS = ("even", "odd", "positive", "nonnegative", "small")
PAIR_PREDS = ("fst_even", "fst_lt_snd")
AGGS = ("count", "sum", "min", "max")

Scope = tuple[tuple[str, str], ...]  # bound loop variables (name, type)


@st.composite
def nodes(draw: st.DrawFn, ty: str, depth: int, in_loop: bool, scope: Scope) -> Node:
    """A node of element type ``ty``, at most ``depth`` operators deep."""
    leaves: list[Node] = [Input(n) for n, t in INPUT_TYPES.items() if t == ty]
    leaves += [Var(n) for n, t in scope if t == ty]
    if depth == 0:
        return draw(st.sampled_from(leaves))

    def sub(t: str) -> st.SearchStrategy[Node]:
        return nodes(t, depth - 1, in_loop, scope)

    options = ["leaf", "filter", "plus", "distinct", "negate", "map", "iterate"]
    if ty == "pair":
        options += ["join"] + ([] if in_loop else ["reduce"])
    choice = draw(st.sampled_from(options))
    if choice == "leaf":
        return draw(st.sampled_from(leaves))
    if choice == "filter":
        return Filter(draw(st.sampled_from(INT_PREDS if ty == "int" else PAIR_PREDS)), draw(sub(ty)))
    if choice == "plus":
        return Plus(draw(sub(ty)), draw(sub(ty)))
    if choice == "distinct":
        return Distinct(draw(sub(ty)))
    if choice == "negate":
        if in_loop and draw(st.integers(0, 3)) > 0:  # rarely inside loops
            return draw(sub(ty))
        return Negate(draw(sub(ty)))
    if choice == "join":  # (k, (a, b)) -> (a, b)
        return Map("snd", Join(draw(sub("pair")), draw(sub("pair"))))
    if choice == "reduce":
        return Reduce(draw(st.sampled_from(AGGS)), draw(sub("pair")))
    if choice == "map":
        return draw(_map_into(ty, depth, in_loop, scope))
    name = f"x{len(scope)}"
    seed = draw(sub(ty))
    inner = nodes(ty, depth - 1, True, (*scope, (name, ty)))
    return Iterate(name, seed, Distinct(Plus(Var(name), draw(inner))))


@st.composite
def _map_into(draw: st.DrawFn, ty: str, depth: int, in_loop: bool, scope: Scope) -> Node:

    def sub(t: str) -> st.SearchStrategy[Node]:
        return nodes(t, depth - 1, in_loop, scope)

    if ty == "int":
        fn = draw(st.sampled_from(("fst", "snd", *(LOOP_INT_MAPS if in_loop else INT_MAPS))))
        return Map(fn, draw(sub("pair" if fn in ("fst", "snd") else "int")))
    fn = draw(st.sampled_from(("swap", "key_mod3", "dup")))
    return Map(fn, draw(sub("pair" if fn == "swap" else "int")))


#: The iteration bound of generated programs: 40 (loops converge), or small enough
#: that some loops hit it, so that both evaluations' refusals are compared.
DEFAULT_BOUND = st.just(40)
SMALL_BOUNDS = st.one_of(st.just(40), st.integers(1, 4))


def programs(
    ty: str = "pair", depth: int = 4, bounds: st.SearchStrategy[int] = DEFAULT_BOUND
) -> st.SearchStrategy[Program]:
    return st.builds(
        lambda n, m: Program(tuple(INPUT_TYPES), n, max_iterations=m),
        nodes(ty, depth, False, ()), bounds,
    )


@st.composite
def loop_programs(
    draw: st.DrawFn, depth: int = 3, bounds: st.SearchStrategy[int] = DEFAULT_BOUND
) -> Program:
    """A program whose output is a loop ``iterate x0 from S: distinct(x0 + E)`` with
    ``S`` and ``E`` random of depth ``depth - 1``. With six versions of input deltas
    (:func:`input_deltas`), a later version often changes the iteration at which the
    loop's differences stop: the case of DD-CLAIM-RULE-ITERATE that uses earlier versions'
    later iterations, which :func:`programs` reaches only about once in 300 cases."""
    ty = draw(st.sampled_from(("pair", "int")))
    seed = draw(nodes(ty, depth - 1, False, ()))
    inner = draw(nodes(ty, depth - 1, True, (("x0", ty),)))
    loop = Iterate("x0", seed, Distinct(Plus(Var("x0"), inner)))
    return Program(tuple(INPUT_TYPES), loop, max_iterations=draw(bounds))


def _elements(ty: str) -> st.SearchStrategy[Any]:
    small = st.integers(0, 4)
    return small if ty == "int" else st.tuples(small, small)


def zsets(ty: str, min_size: int = 0, max_size: int = 4) -> st.SearchStrategy[ZSet]:
    weights = st.integers(-2, 2).filter(bool)
    rows = st.lists(st.tuples(_elements(ty), weights), min_size=min_size, max_size=max_size)
    return rows.map(ZSet.from_pairs)


def input_deltas(versions: int = 4) -> st.SearchStrategy[list[dict[str, ZSet]]]:
    first = st.fixed_dictionaries({n: zsets(t, min_size=2) for n, t in INPUT_TYPES.items()})
    later = st.fixed_dictionaries({n: zsets(t) for n, t in INPUT_TYPES.items()})
    return st.tuples(first, st.lists(later, max_size=versions - 1)).map(lambda p: [p[0], *p[1]])


def positive_input_deltas(versions: int = 4) -> st.SearchStrategy[list[dict[str, ZSet]]]:
    """Deltas that keep every input collection a multiset (insert, or retract
    what is present): the usual workload of an engine."""

    @st.composite
    def build(draw: st.DrawFn) -> list[dict[str, ZSet]]:
        current = {n: ZSet.zero() for n in INPUT_TYPES}
        out = []
        for _ in range(draw(st.integers(1, versions))):
            delta = {}
            for n, t in INPUT_TYPES.items():
                added = draw(st.lists(_elements(t), max_size=3))
                present = [x for x, w in current[n].items() for _ in range(w)]
                removed = draw(st.lists(st.sampled_from(present), max_size=2)) if present else []
                d = ZSet.from_pairs([(x, 1) for x in added] + [(x, -1) for x in removed])
                d = ZSet({x: w for x, w in d.items() if current[n].weight(x) + w >= 0})
                current[n] = current[n] + d
                delta[n] = d
            out.append(delta)
        return out

    return build()
