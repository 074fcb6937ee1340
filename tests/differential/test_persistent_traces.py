"""DD-DEC-PERSISTENT-TRACES: the differential state is persistent and the inputs of join,
distinct and reduce are arranged by key. A step gives the observations and the traces of
the rules applied to whole traces, every earlier state keeps its traces, each arrangement
is its trace split by key, and a step shares what its differences do not touch."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given

from reference.algebra.persistent import PMap
from reference.algebra.zset import ZSet
from reference.differential.dataflow import (
    DifferentialState,
    Distinct,
    Join,
    Node,
    Program,
    Reduce,
    _Bindings,
    _Step,
    arranged_inputs,
    children,
    initial_state,
    program_from_json,
    step,
)
from reference.differential.operators import (
    DataflowError,
    Time,
    arrange,
    distinct,
    element_key,
    join_rule,
    keyed_rule,
    pair_key,
    reduce,
)
from tests.differential.dataflow_programs import SMALL_BOUNDS, input_deltas, loop_programs, programs

Inputs = dict[str, ZSet]
Snapshot = dict[tuple[int, ...], dict[Time, ZSet]]


class WholeTraceStep(_Step):
    """One version with the rules applied to whole traces, as :func:`step` did before
    DD-DEC-PERSISTENT-TRACES."""

    def _compute(self, node: Node, path: tuple[int, ...], t: Time, bound: _Bindings) -> ZSet:
        if not isinstance(node, (Join, Distinct, Reduce)):
            return super()._compute(node, path, t, bound)
        for i, child in enumerate(children(node)):
            self.diff(child, (*path, i), t, bound)
        if isinstance(node, Join):
            return join_rule(self.trace((*path, 0)), self.trace((*path, 1)), t)
        if isinstance(node, Distinct):
            return keyed_rule(distinct, element_key, self.trace((*path, 0)), t)
        agg = node.agg
        return keyed_rule(lambda c: reduce(agg, c), pair_key, self.trace((*path, 0)), t)


def whole_trace_step(program: Program, state: DifferentialState, inputs: Inputs
                     ) -> tuple[DifferentialState, ZSet]:
    run = WholeTraceStep(program, state, inputs)
    out = run.diff(program.output, (), (state.version,), {})
    return run.next_state(), out


def snapshot(state: DifferentialState) -> Snapshot:
    return {path: dict(trace) for path, trace in state.traces.items()}


def outcome(f: Any, *args: Any) -> tuple[DifferentialState | None, ZSet | str]:
    try:
        state, out = f(*args)
        return state, out
    except DataflowError as exc:
        return None, exc.error_class


def check_lockstep(program: Program, deltas: list[Inputs]) -> None:
    state = whole = initial_state()
    history: list[tuple[DifferentialState, Snapshot]] = [(state, snapshot(state))]
    for inputs in deltas:
        new_state, out = outcome(step, program, state, inputs)
        new_whole, expected = outcome(whole_trace_step, program, whole, inputs)
        assert out == expected
        if new_state is None or new_whole is None:
            return  # refused by both, with the same error class
        # a state written by hand, without arrangements, steps to the same observation
        by_hand = DifferentialState(state.version, snapshot(state))
        assert outcome(step, program, by_hand, inputs)[1] == out
        state, whole = new_state, new_whole
        assert snapshot(state) == snapshot(whole)
        for path, key_of in arranged_inputs(program.output).items():
            arranged = {k: dict(tr) for k, tr in state.arrangements[path].items()}
            assert arranged == {k: dict(tr) for k, tr in arrange(state.traces.get(path, {}), key_of).items()}
        history.append((state, snapshot(state)))
    for version, traces in history:  # every earlier state still holds its traces
        assert snapshot(version) == traces


@pytest.mark.spec("DD-DEC-PERSISTENT-TRACES", evidence="property")
@given(programs(bounds=SMALL_BOUNDS), input_deltas())
def test_steps_equal_the_whole_trace_rules_and_earlier_states_are_unchanged(
        program: Program, deltas: list[Inputs]) -> None:
    check_lockstep(program, deltas)


@pytest.mark.spec("DD-DEC-PERSISTENT-TRACES", evidence="property")
@given(loop_programs(bounds=SMALL_BOUNDS), input_deltas(versions=5))
def test_steps_inside_loops_equal_the_whole_trace_rules(program: Program, deltas: list[Inputs]) -> None:
    check_lockstep(program, deltas)


@pytest.mark.spec("DD-DEC-PERSISTENT-TRACES", evidence="example")
def test_a_step_reads_and_writes_the_keys_its_differences_touch() -> None:
    n = 20_000
    program = program_from_json({"inputs": ["A", "B"], "output": {"op": "plus",
        "left": {"op": "reduce", "agg": "sum", "arg": {"op": "input", "name": "A"}},
        "right": {"op": "join", "left": {"op": "input", "name": "A"}, "right": {"op": "input", "name": "B"}}}})
    first = {"A": ZSet({(i, i): 1 for i in range(n)}), "B": ZSet({(i, -i): 1 for i in range(0, n, 2)})}
    s1, out1 = step(program, initial_state(), first)
    assert len(out1.support()) == n + n // 2
    s2, out2 = step(program, s1, {"A": ZSet({(4, 7): 1})})
    # reduce: key 4 goes from sum 4 to 11; join: (4, 7) meets (4, -4)
    assert out2 == ZSet({(4, 4): -1, (4, 11): 1, (4, (7, -4)): 1})
    # the earlier state is unchanged, and the later one shares what the step did not touch
    assert s1.version == 1 and set(s1.traces[(0, 0)]) == {(0,)} and len(s1.traces[(0, 0)][(0,)].support()) == n
    assert s2.traces[(0, 0)][(0,)] is s1.traces[(0, 0)][(0,)]
    arranged_1, arranged_2 = s1.arrangements[(0, 0)], s2.arrangements[(0, 0)]
    assert all(arranged_2[k] is arranged_1[k] for k in range(0, n, 997) if k != 4)
    assert dict(arranged_2[4]) == {(0,): ZSet({(4, 4): 1}), (1,): ZSet({(4, 7): 1})}
    assert dict(arranged_1[4]) == {(0,): ZSet({(4, 4): 1})}
    assert s2.arrangements[(1, 1)] is s1.arrangements[(1, 1)]  # B had no difference
    # the public face: read-only mappings equal to dicts; the arrangements stay out of equality
    assert isinstance(s2.traces, PMap) and s2 == DifferentialState(2, snapshot(s2))
    with pytest.raises(TypeError):
        s2.traces[(0,)] = {}  # type: ignore[index]
