"""DD-DEC-PERSISTENT-LOOPS: each loop keeps the largest iteration its differences reached, by
outer time, so that where a version's iterations stop is decided without reading the traces.
Steps give the observations of recomputation and of the stopping test that scanned every
time of the loop's traces (as before the decision); what a state keeps is that scan's result;
and a step's time comparisons do not grow with the versions stored."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given

from reference.algebra.zset import ZSet
from reference.differential import dataflow, operators
from reference.differential.dataflow import (
    DifferentialState,
    Path,
    Program,
    _Step,
    initial_state,
    iterations_reached,
    loops,
    program_from_json,
    standard_output_deltas,
    step,
)
from reference.differential.operators import DataflowError, Time, leq
from tests.differential.dataflow_programs import SMALL_BOUNDS, input_deltas, loop_programs, programs

Inputs = dict[str, ZSet]


class ScanningStep(_Step):
    """One version with the stopping test scanning every time of the loop's traces, as
    :func:`step` did before DD-DEC-PERSISTENT-LOOPS."""

    def last_earlier_iteration(self, loop_path: Path, t: Time) -> int:
        depth = len(t)
        latest = -1
        for path, trace in self.traces.items():
            in_body = path[: len(loop_path) + 1] == (*loop_path, 1)
            is_seed = path == (*loop_path, 0)
            if not (in_body or is_seed):
                continue
            for u in trace:
                outer = u[:depth]
                if outer == t or not leq(outer, t):
                    continue
                latest = max(latest, u[depth] + 1 if in_body else 1)
        return latest


def scanning_step(program: Program, state: DifferentialState, inputs: Inputs
                  ) -> tuple[DifferentialState, ZSet]:
    run = ScanningStep(program, state, inputs)
    out = run.diff(program.output, (), (state.version,), {})
    return run.next_state(), out


def outcome(f: Callable[..., tuple[DifferentialState, ZSet]], *args: Any
            ) -> tuple[DifferentialState | None, ZSet | str]:
    try:
        return f(*args)
    except DataflowError as exc:
        return None, exc.error_class


def check_lockstep(program: Program, deltas: list[Inputs]) -> None:
    try:
        recomputed: tuple[ZSet, ...] | None = standard_output_deltas(program, deltas)
    except DataflowError:
        recomputed = None  # a loop without a fixpoint: compared with the scanning step only
    state = scanned = initial_state()
    for v, inputs in enumerate(deltas):
        new_state, out = outcome(step, program, state, inputs)
        new_scanned, expected = outcome(scanning_step, program, scanned, inputs)
        assert out == expected
        if recomputed is not None:
            assert out == recomputed[v]
        # a state written by hand keeps no iterations reached: they are derived from its traces
        by_hand = DifferentialState(state.version, {p: dict(tr) for p, tr in state.traces.items()})
        assert outcome(step, program, by_hand, inputs)[1] == out
        if new_state is None or new_scanned is None:
            return
        state, scanned = new_state, new_scanned
        for loop_path, depth in loops(program.output).items():
            assert dict(state.reached[loop_path]) == dict(iterations_reached(state.traces, loop_path, depth))


@pytest.mark.spec("DD-DEC-PERSISTENT-LOOPS", evidence="property")
@given(programs(bounds=SMALL_BOUNDS), input_deltas(versions=5))
def test_steps_agree_with_recomputation_and_the_scanning_stop(program: Program, deltas: list[Inputs]) -> None:
    check_lockstep(program, deltas)


@pytest.mark.spec("DD-DEC-PERSISTENT-LOOPS", evidence="property")
@given(loop_programs(bounds=SMALL_BOUNDS), input_deltas(versions=6))
def test_loops_whose_stop_moves_agree_with_recomputation_and_the_scanning_stop(
        program: Program, deltas: list[Inputs]) -> None:
    check_lockstep(program, deltas)


def nested_loop() -> Program:
    """iterate y from a: distinct(y + iterate x from y: distinct(x + map mod3 x))."""
    def var(name: str) -> dict[str, Any]:
        return {"op": "var", "name": name}

    inner = {"op": "iterate", "var": "x", "seed": var("y"), "body": {"op": "distinct", "arg": {
        "op": "plus", "left": var("x"), "right": {"op": "map", "fn": "mod3", "arg": var("x")}}}}
    return program_from_json({"inputs": ["a"], "output": {"op": "iterate", "var": "y",
        "seed": {"op": "input", "name": "a"}, "body": {"op": "distinct", "arg": {
            "op": "plus", "left": var("y"), "right": inner}}}})


@pytest.mark.spec("DD-DEC-PERSISTENT-LOOPS", evidence="example")
def test_a_nested_loop_keeps_its_iterations_by_the_outer_loops_iteration() -> None:
    program = nested_loop()
    assert loops(program.output) == {(): 1, (1, 0, 1): 2}
    state, out = step(program, initial_state(), {"a": ZSet({5: 1})})
    assert out == ZSet({5: 1, 2: 1})  # 5 mod 3 = 2
    # the outer loop: the seed reaches iteration 1, y gains 2 at (0, 1), the body's nodes differ
    # at (0, 1, ...) (its inner loop runs from y's difference there) and no later
    assert dict(state.reached[()]) == {(): 2}
    # the inner loop, by the outer iteration it runs in: at (0, 0, 0) x is {5}, at (0, 0, 1)
    # it gains 2; at (0, 1, 0) its seed, y, gains 2, and at (0, 1, 1) x's difference retracts it
    # (2 was in x from iteration 1 at (0, 0)): the 2-dimensional differences of two loops
    assert dict(state.reached[(1, 0, 1)]) == {(0,): 2, (1,): 2}
    before = state
    state, out = step(program, state, {"a": ZSet({7: 1})})
    assert out == ZSet({7: 1, 1: 1})  # 7 mod 3 = 1
    for loop_path, depth in loops(program.output).items():
        assert dict(state.reached[loop_path]) == dict(iterations_reached(state.traces, loop_path, depth))
    assert dict(before.reached[(1, 0, 1)]) == {(0,): 2, (1,): 2}  # the earlier state unchanged


def comparisons_of_a_step(monkeypatch: pytest.MonkeyPatch, program: Program, state: DifferentialState,
                          inputs: Inputs) -> int:
    """How many times the step compares (``leq``) in the dataflow and its rules."""
    count = 0

    def counted(s: Time, t: Time) -> bool:
        nonlocal count
        count += 1
        return leq(s, t)

    with monkeypatch.context() as patch:
        patch.setattr(dataflow, "leq", counted)
        patch.setattr(operators, "leq", counted)
        step(program, state, inputs)
    return count


@pytest.mark.spec("DD-DEC-PERSISTENT-LOOPS", evidence="example")
def test_a_step_inside_a_loop_compares_as_many_times_after_many_versions(monkeypatch: pytest.MonkeyPatch) -> None:
    """``iterate x from a: distinct(x + a)``, one fresh element a version: the step after
    60 versions compares times as often as the one after 30 (the scanning stop compared
    every time of the seed's and the body's traces, which grow by a time a version)."""
    program = program_from_json({"inputs": ["a"], "output": {"op": "iterate", "var": "x",
        "seed": {"op": "input", "name": "a"}, "body": {"op": "distinct", "arg": {
            "op": "plus", "left": {"op": "var", "name": "x"}, "right": {"op": "input", "name": "a"}}}}})
    state = initial_state()
    counts = {}
    for v in range(61):
        if v in (30, 60):
            counts[v] = comparisons_of_a_step(monkeypatch, program, state, {"a": ZSet({v: 1})})
        state, out = step(program, state, {"a": ZSet({v: 1})})
        assert out == ZSet({v: 1})
    assert len(state.traces[(0,)]) == 61  # the seed's trace: a time a version
    assert 0 < counts[30] == counts[60], counts
