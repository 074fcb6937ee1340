"""The Z-set dataflow language: JSON form, the two evaluations and their agreement
(DD-DEC-DATAFLOW), and worked examples of each incremental rule (DD-CLAIM-RULE-*).

Expected values in the examples are worked out by hand in the comments."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.algebra.zset import ZSet
from reference.differential.dataflow import (
    Program,
    incremental_output_deltas,
    initial_state,
    node_from_json,
    program_from_json,
    program_to_json,
    standard_output_deltas,
    standard_outputs,
    step,
    zset_from_rows,
    zset_to_rows,
)
from reference.differential.operators import DataflowError
from tests.differential import naive_dataflow as naive
from tests.differential.dataflow_programs import (
    SMALL_BOUNDS,
    input_deltas,
    loop_programs,
    positive_input_deltas,
    programs,
)

Z = ZSet


def inp(name: str) -> dict[str, Any]:
    return {"op": "input", "name": name}


REACH = {
    "inputs": ["edges", "roots"],
    "output": {
        "op": "iterate", "var": "r", "seed": inp("roots"),
        "body": {"op": "distinct", "arg": {
            "op": "plus", "left": {"op": "var", "name": "r"},
            "right": {"op": "map", "fn": "snd", "arg": {"op": "map", "fn": "snd", "arg": {
                "op": "join",
                "left": {"op": "map", "fn": "dup", "arg": {"op": "var", "name": "r"}},
                "right": inp("edges")}}}}},
    },
}


def both(program: Program, deltas: list[dict[str, ZSet]]) -> tuple[ZSet, ...]:
    """The observations, asserting that the two evaluations agree."""
    standard = standard_output_deltas(program, deltas)
    assert incremental_output_deltas(program, deltas) == standard
    return standard


@pytest.mark.spec("DD-CLAIM-RULE-ITERATE", evidence="example")
@pytest.mark.spec("DD-DEC-DATAFLOW", evidence="example")
def test_reachability_worked_example() -> None:
    program = program_from_json(REACH)
    deltas = [
        {"roots": Z({1: 1}), "edges": Z({(1, 2): 1, (2, 3): 1})},  # reach {1,2,3}
        {"edges": Z({(3, 4): 1})},  # reach {1,2,3,4}
        {"edges": Z({(1, 2): -1})},  # 1 alone: {1}
        {"edges": Z({(1, 3): 1})},  # 1 -> 3 -> 4: {1,3,4}
        {"roots": Z({4: 1})},  # 4 already reached: no change
    ]
    assert standard_outputs(program, deltas)[-1] == Z({1: 1, 3: 1, 4: 1})
    assert both(program, deltas) == (
        Z({1: 1, 2: 1, 3: 1}), Z({4: 1}), Z({2: -1, 3: -1, 4: -1}), Z({3: 1, 4: 1}), Z(),
    )


@pytest.mark.spec("DD-CLAIM-RULE-LINEAR", evidence="example")
def test_linear_operators_map_deltas_to_deltas() -> None:
    program = program_from_json({"inputs": ["a"], "output": {
        "op": "negate", "arg": {"op": "filter", "pred": "even",
                                "arg": {"op": "map", "fn": "inc", "arg": inp("a")}}}})
    deltas = [{"a": Z({1: 2, 2: 1})}, {"a": Z({1: -1, 3: 1})}]
    # version 0: inc -> {2:2, 3:1}, even -> {2:2}, negate -> {2:-2}
    # version 1: the delta alone: inc -> {2:-1, 4:1}, even -> same, negate -> {2:1, 4:-1}
    assert both(program, deltas) == (Z({2: -2}), Z({2: 1, 4: -1}))


@pytest.mark.spec("DD-CLAIM-RULE-JOIN", evidence="example")
def test_join_bilinear_rule() -> None:
    program = program_from_json({"inputs": ["l", "r"], "output": {
        "op": "join", "left": inp("l"), "right": inp("r")}})
    deltas = [
        {"l": Z({(1, "a"): 1}), "r": Z({(2, "x"): 1})},  # no match
        {"r": Z({(1, "y"): 2})},  # l_0 ⋈ δr_1 = (1,(a,y)) x2
        {"l": Z({(1, "b"): 1}), "r": Z({(1, "y"): -1})},
        # δl ⋈ r_1 + l_1 ⋈ δr + δl ⋈ δr = 2(1,(b,y)) - (1,(a,y)) - (1,(b,y))
    ]
    assert both(program, deltas) == (
        Z(), Z({(1, ("a", "y")): 2}), Z({(1, ("b", "y")): 1, (1, ("a", "y")): -1}),
    )


@pytest.mark.spec("DD-CLAIM-RULE-DISTINCT", evidence="example")
def test_distinct_touches_only_affected_elements() -> None:
    program = program_from_json({"inputs": ["a"], "output": {"op": "distinct", "arg": inp("a")}})
    deltas = [
        {"a": Z({1: 2, 2: 1})},  # {1, 2}
        {"a": Z({1: -1})},  # 1 still has weight 1: no change
        {"a": Z({1: -1, 3: -1})},  # 1 gone; 3 has weight -1: not in the output
        {"a": Z({3: 2})},  # 3 now weight 1: appears
    ]
    assert both(program, deltas) == (Z({1: 1, 2: 1}), Z(), Z({1: -1}), Z({3: 1}))


@pytest.mark.spec("DD-CLAIM-RULE-REDUCE", evidence="example")
def test_reduce_count_and_sum_per_key() -> None:
    count = program_from_json({"inputs": ["a"], "output": {"op": "reduce", "agg": "count", "arg": inp("a")}})
    total = program_from_json({"inputs": ["a"], "output": {"op": "reduce", "agg": "sum", "arg": inp("a")}})
    deltas = [{"a": Z({(0, 5): 1, (1, 7): 1})}, {"a": Z({(0, 6): 1})}, {"a": Z({(1, 7): -1})}]
    # count: {(0,1),(1,1)}; key 0 -> 2 (old (0,1) retracted); key 1 leaves
    assert both(count, deltas) == (
        Z({(0, 1): 1, (1, 1): 1}), Z({(0, 1): -1, (0, 2): 1}), Z({(1, 1): -1}),
    )
    assert both(total, deltas) == (
        Z({(0, 5): 1, (1, 7): 1}), Z({(0, 5): -1, (0, 11): 1}), Z({(1, 7): -1}),
    )


@pytest.mark.spec("DD-CLAIM-RULE-ITERATE", evidence="example")
def test_nested_iterate_example() -> None:
    """Nested loops: the outer loop closes a set under ``mod3`` of the inner loop's
    closure under ``neg`` (inner times are N^3 = version x outer x inner)."""
    inner = {"op": "iterate", "var": "y", "seed": {"op": "var", "name": "x"},
             "body": {"op": "distinct", "arg": {"op": "plus", "left": {"op": "var", "name": "y"},
                                                "right": {"op": "map", "fn": "neg", "arg": {"op": "var", "name": "y"}}}}}
    outer = {"op": "iterate", "var": "x", "seed": inp("a"),
             "body": {"op": "distinct", "arg": {"op": "plus", "left": inner,
                                                "right": {"op": "map", "fn": "mod3", "arg": {"op": "var", "name": "x"}}}}}
    program = program_from_json({"inputs": ["a"], "output": outer})
    deltas = [{"a": Z({5: 1})}, {"a": Z({4: 1})}, {"a": Z({5: -1})}]
    # {5} -> {±5} -> with 5 mod 3 = 2, -5 mod 3 = 1: closed set {±5, ±2, ±1}
    # add 4: 4 mod 3 = 1, -4 mod 3 = 2, already there: +{4, -4}
    # remove 5: ±2 and ±1 still come from ±4: -{5, -5}
    assert both(program, deltas) == (
        Z({5: 1, -5: 1, 2: 1, -2: 1, 1: 1, -1: 1}), Z({4: 1, -4: 1}), Z({5: -1, -5: -1}),
    )


@pytest.mark.spec("DD-DEC-DATAFLOW", evidence="property")
@pytest.mark.spec("DD-CLAIM-RULE-LINEAR", evidence="property")
@pytest.mark.spec("DD-CLAIM-RULE-JOIN", evidence="property")
@pytest.mark.spec("DD-CLAIM-RULE-DISTINCT", evidence="property")
@pytest.mark.spec("DD-CLAIM-RULE-REDUCE", evidence="property")
@pytest.mark.spec("DD-CLAIM-RULE-ITERATE", evidence="property")
@given(programs(bounds=SMALL_BOUNDS), input_deltas())
def test_incremental_agrees_with_recomputation(program: Program, deltas: list[dict[str, ZSet]]) -> None:
    """Random well-typed programs (operators up to depth 4, nested iterates, iteration
    bounds 1-4 or 40) and arbitrary Z-set deltas over 1-4 versions: both evaluations
    give the same output delta, or the same refusal, at every version."""
    both_outcomes(program, deltas)


@pytest.mark.spec("DD-CLAIM-RULE-ITERATE", evidence="property")
@given(loop_programs(bounds=SMALL_BOUNDS), input_deltas(versions=6))
def test_incremental_agrees_on_loops(program: Program, deltas: list[dict[str, ZSet]]) -> None:
    """Loops at the root and six versions of deltas (the generator that reaches changes
    of a loop's length across versions; see test_dataflow_mutants for the measure),
    refusals at the iteration bound included."""
    both_outcomes(program, deltas)


@pytest.mark.spec("DD-DEC-DATAFLOW", evidence="property")
@given(programs(depth=3, bounds=SMALL_BOUNDS), positive_input_deltas())
def test_incremental_agrees_on_multiset_inputs(program: Program, deltas: list[dict[str, ZSet]]) -> None:
    """Same, with inputs that stay multisets (inserts and retractions of present rows)."""
    both_outcomes(program, deltas)


@given(programs())
def test_json_round_trip(program: Program) -> None:
    assert program_from_json(program_to_json(program)) == program


@given(st.lists(st.tuples(st.one_of(st.integers(-3, 3), st.tuples(st.integers(0, 2), st.integers(0, 2))),
                          st.integers(-2, 2).filter(bool))))
def test_wire_rows_round_trip(rows: list[tuple[Any, int]]) -> None:
    z = ZSet.from_pairs(rows)
    assert zset_from_rows(zset_to_rows(z)) == z


@pytest.mark.parametrize(("program", "message"), [
    ({"inputs": ["a"], "output": {"op": "frobnicate"}}, "unknown op"),
    ({"inputs": ["a"], "output": {"op": "var", "name": "x"}}, "unbound var"),
    ({"inputs": ["a"], "output": inp("b")}, "undeclared input"),
    ({"inputs": ["a"], "output": {"op": "map", "fn": "sqrt", "arg": inp("a")}}, "unknown map fn"),
    ({"inputs": ["a"], "output": {"op": "map", "arg": inp("a")}}, "needs 'fn'"),
])
def test_malformed_programs_are_refused(program: dict[str, Any], message: str) -> None:
    with pytest.raises(DataflowError, match=message) as info:
        program_from_json(program)
    assert info.value.error_class == "malformed-input"


def test_element_of_wrong_shape_is_refused() -> None:
    program = program_from_json({"inputs": ["a"], "output": {"op": "map", "fn": "swap", "arg": inp("a")}})
    for evaluate in (standard_output_deltas, incremental_output_deltas):
        with pytest.raises(DataflowError) as info:
            evaluate(program, [{"a": Z({3: 1})}])
        assert info.value.error_class == "malformed-input"


def test_divergent_iterate_is_refused() -> None:
    program = program_from_json({"inputs": ["a"], "max_iterations": 10, "output": {
        "op": "iterate", "var": "x", "seed": inp("a"),
        "body": {"op": "map", "fn": "inc", "arg": {"op": "var", "name": "x"}}}})
    for evaluate in (standard_output_deltas, incremental_output_deltas):
        with pytest.raises(DataflowError) as info:
            evaluate(program, [{"a": Z({0: 1})}])
        assert info.value.error_class == "no-fixpoint"


def test_union_is_an_alias_of_plus() -> None:
    node = node_from_json({"op": "union", "left": inp("a"), "right": inp("a")})
    program = Program(("a",), node)
    assert both(program, [{"a": Z({1: 1})}]) == (Z({1: 2}),)


def test_wire_rows_are_checked() -> None:
    assert zset_from_rows([[[1, 2], 1], [[1, 2], 2], [3, -1]]) == Z({(1, 2): 3, 3: -1})
    for bad in ([[1, 1.5]], [[1]], [[1, "2"]]):
        with pytest.raises(DataflowError):
            zset_from_rows(bad)
    with pytest.raises(DataflowError):
        program_from_json({"inputs": "a", "output": inp("a")})


# --- the iteration bound (max_iterations) ---------------------------------------------

def closure_program(max_iterations: int) -> Program:
    """Reachability from ``roots`` over ``edges``: on a chain of ``n`` edges from the
    root, ``X_0 = {root}`` and ``X_n`` is the fixpoint, so ``X_{n+1} = X_n`` is first
    seen at the ``n + 1``-th body application."""
    return program_from_json({**REACH, "max_iterations": max_iterations})


def outcomes_standard(program: Program, deltas: list[dict[str, ZSet]]) -> list[ZSet | str]:
    """Per version: the output delta by recomputation, or the refusal's error class
    (a refused version's deltas are dropped, as the conformance oracle does)."""
    accepted: list[dict[str, ZSet]] = []
    previous, out = ZSet.zero(), []
    for delta in deltas:
        try:
            now = standard_outputs(program, [*accepted, delta])[-1]
        except DataflowError as exc:
            out.append(exc.error_class)
            continue
        accepted.append(delta)
        out.append(now - previous)
        previous = now
    return out


def outcomes_incremental(program: Program, deltas: list[dict[str, ZSet]]) -> list[ZSet | str]:
    """Per version: the output delta by :func:`step`, or the refusal's error class
    (a refused version leaves the state as it was)."""
    state, out = initial_state(), []
    for delta in deltas:
        try:
            state, d = step(program, state, delta)
        except DataflowError as exc:
            out.append(exc.error_class)
            continue
        out.append(d)
    return out


def outcomes_naive(program: Program, deltas: list[dict[str, ZSet]]) -> list[ZSet | str]:
    """Per version, by the independent evaluator of the tests (no shared operator)."""
    accepted: dict[str, dict[Any, int]] = {}
    previous: dict[Any, int] = {}
    out: list[ZSet | str] = []
    for delta in deltas:
        candidate = {name: dict(accepted.get(name, {})) for name in program.inputs}
        for name, d in delta.items():
            for x, w in d.items():
                naive.add(candidate[name], x, w)
        try:
            now = naive.run(program.output, candidate, {}, program.max_iterations)
        except naive.NoFixpoint:
            out.append("no-fixpoint")
            continue
        accepted = candidate
        out.append(ZSet(now) - ZSet(previous))
        previous = now
    return out


def both_outcomes(program: Program, deltas: list[dict[str, ZSet]]) -> list[ZSet | str]:
    """The per-version outcomes, asserting that the two evaluations agree, refusals
    included, and that both agree with the tests' own independent evaluator."""
    expected = outcomes_standard(program, deltas)
    assert outcomes_incremental(program, deltas) == expected
    assert outcomes_naive(program, deltas) == expected
    return expected


CHAIN3 = {"roots": Z({0: 1}), "edges": Z({(0, 1): 1, (1, 2): 1, (2, 3): 1})}


@pytest.mark.spec("DD-DEC-DATAFLOW", evidence="example")
@pytest.mark.spec("DD-CLAIM-RULE-ITERATE", evidence="example")
@pytest.mark.parametrize(("bound", "expected"), [
    (4, [Z({0: 1, 1: 1, 2: 1, 3: 1})]),  # X_4 = X_3 seen at the 4th application: exactly at the bound
    (3, ["no-fixpoint"]),  # one application too few
])
def test_iteration_bound_on_a_chain(bound: int, expected: list[ZSet | str]) -> None:
    assert both_outcomes(closure_program(bound), [CHAIN3]) == expected


@pytest.mark.spec("DD-DEC-DATAFLOW", evidence="example")
@pytest.mark.spec("DD-CLAIM-RULE-ITERATE", evidence="example")
def test_iteration_bound_smallest_instance() -> None:
    """``distinct`` of ``{5: 2}``: ``X_1 = {5: 1} != X_0``, ``X_2 = X_1``: two applications."""
    def program(bound: int) -> Program:
        return program_from_json({"inputs": ["A"], "max_iterations": bound, "output": {
            "op": "iterate", "var": "X", "seed": inp("A"),
            "body": {"op": "distinct", "arg": {"op": "var", "name": "X"}}}})

    assert both_outcomes(program(1), [{"A": Z({5: 2})}]) == ["no-fixpoint"]
    assert both_outcomes(program(2), [{"A": Z({5: 2})}]) == [Z({5: 1})]


@pytest.mark.spec("DD-DEC-DATAFLOW", evidence="example")
@pytest.mark.spec("DD-CLAIM-RULE-ITERATE", evidence="example")
def test_iteration_bound_across_versions() -> None:
    """A version that needs one application too many is refused and dropped; the
    versions around it converge at the bound, and a version whose fixpoint is its
    seed (``max_iterations = 1``) converges although earlier versions' seeds make the
    differential evaluation look at iteration 1."""
    deltas = [
        CHAIN3,  # 4 applications: at the bound
        {"edges": Z({(3, 4): 1})},  # would need 5: refused, dropped
        {"edges": Z({(2, 3): -1, (0, 3): 1})},  # 0->1->2, 0->3: 3 applications
        {"edges": Z({(3, 4): 1})},  # 0->3->4: 3 applications
    ]
    assert both_outcomes(closure_program(4), deltas) == [
        Z({0: 1, 1: 1, 2: 1, 3: 1}), "no-fixpoint", Z(), Z({4: 1}),
    ]
    seed_is_fixpoint = program_from_json({"inputs": ["A"], "max_iterations": 1, "output": {
        "op": "iterate", "var": "X", "seed": inp("A"),
        "body": {"op": "distinct", "arg": {"op": "var", "name": "X"}}}})
    assert both_outcomes(seed_is_fixpoint, [{"A": Z({1: 1})}, {"A": Z({2: 1})}, {"A": Z({1: -1})}]) == [
        Z({1: 1}), Z({2: 1}), Z({1: -1}),
    ]
