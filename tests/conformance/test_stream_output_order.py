"""Stream outputs are compared by their output monoid (STREAM-DEC-OUTPUT-ORDER): bags and
sets in any order, free-monoid outputs in order, sequences of sets stratum by stratum."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.cases_model import thaw
from conformance.compare import judge_semantics, stream_output
from conformance.loader import load_cases
from reference.streams.named import PROCESSORS

CASES = {c.id: c for c in load_cases() if c.area == "stream"}


def case_of(processor: str) -> Any:
    return next(c for c in CASES.values() if c.setup.get("processor") == processor
                and any(len(s.expect.get("output", ())) > 1 for s in c.steps))


def observed(case: Any, change: Any) -> list[dict[str, Any]]:
    return [{"output": change(thaw(s.expect["output"]))} for s in case.steps]


def reversed_strata(output: list[list[Any]]) -> list[list[Any]]:
    return [list(reversed(s)) for s in output]


@pytest.mark.spec("STREAM-DEC-OUTPUT-ORDER", evidence="example")
@pytest.mark.parametrize("processor", ["distinct", "split_merge", "join", "pairs"])
def test_bags_and_sets_in_any_order(processor: str) -> None:
    """The expected list reversed passes; one element dropped or doubled fails."""
    case = case_of(processor)
    assert judge_semantics(case, observed(case, lambda o: list(reversed(o)))) is None
    assert judge_semantics(case, observed(case, lambda o: o[1:])) is not None
    assert judge_semantics(case, observed(case, lambda o: [o[0], *o])) is not None


@pytest.mark.spec("STREAM-DEC-OUTPUT-ORDER", evidence="example")
@pytest.mark.parametrize("processor", ["prefix_sum", "full_adder", "map_inc"])
def test_free_monoid_outputs_in_order(processor: str) -> None:
    case = case_of(processor)
    assert any(list(reversed(s.expect["output"])) != list(s.expect["output"]) for s in case.steps)
    assert judge_semantics(case, observed(case, lambda o: list(reversed(o)))) is not None


@pytest.mark.spec("STREAM-DEC-OUTPUT-ORDER", evidence="example")
def test_sequences_of_sets_stratum_by_stratum() -> None:
    case = next(c for c in CASES.values() if c.id.startswith("stream.set-difference-previous-stratum."))
    assert judge_semantics(case, observed(case, reversed_strata)) is None
    assert judge_semantics(case, observed(case, lambda o: list(reversed(o)))) is not None


@pytest.mark.spec("STREAM-DEC-JSON-VALUES", evidence="example")
def test_true_is_not_one_and_one_point_zero_is() -> None:
    """In a set output ``true`` in place of ``1`` fails; ``1.0`` in place of ``1`` passes."""
    case = next(c for c in CASES.values() if c.setup.get("processor") == "distinct"
                and all(any(type(x) is int and x == 1 for x in s.expect["output"]) for s in c.steps))

    def replaced(v: Any) -> Any:
        return lambda o: [v if type(x) is int and x == 1 else x for x in o]

    assert judge_semantics(case, observed(case, replaced(True))) is not None
    assert judge_semantics(case, observed(case, replaced(1.0))) is None


def test_every_processor_declares_a_known_output_monoid() -> None:
    assert {p.output_monoid for p in PROCESSORS.values()} == {"sequence", "bag", "set", "sequence-of-sets"}


def canonical(v: Any) -> str:
    """Independent of the suite: 1.0 written 1, then Python's JSON text (true stays true)."""
    if isinstance(v, list):
        return "[" + ",".join(canonical(x) for x in v) + "]"
    if isinstance(v, float) and v.is_integer():
        return json.dumps(int(v))
    return json.dumps(v)


JSON_SCALARS = st.one_of(st.integers(-2, 2), st.booleans(), st.sampled_from([1.0, 0.0, 2.5]),
                         st.sampled_from(["a", "b"]), st.none())
JSON_VALUES = st.recursive(JSON_SCALARS, lambda inner: st.lists(inner, max_size=3), max_leaves=6)


@pytest.mark.spec("STREAM-DEC-OUTPUT-ORDER", evidence="property")
@given(st.lists(JSON_VALUES, max_size=6), st.randoms(use_true_random=False))
def test_bag_comparison_is_multiset_equality_of_json_values(values: list[Any], rnd: Any) -> None:
    """A bag compares equal to every permutation of itself, and to another list exactly
    when each JSON value occurs as often (true is not 1; 1.0 is)."""
    shuffled = list(values)
    rnd.shuffle(shuffled)
    assert stream_output("bag", shuffled) == stream_output("bag", values)
    dropped = values[1:]
    assert (stream_output("bag", dropped) == stream_output("bag", values)) == (not values)
    retyped = [True if type(v) is int and v == 1 else v for v in values]
    changed = any(type(v) is int and v == 1 for v in values)
    assert (stream_output("bag", retyped) != stream_output("bag", values)) == changed
    in_order = stream_output("sequence", shuffled) == stream_output("sequence", values)
    assert in_order == ([canonical(v) for v in shuffled] == [canonical(v) for v in values])
