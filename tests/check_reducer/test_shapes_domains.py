"""Accepted reducer shapes, domain syntax, and inference from type hints."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Optional

import pytest

from check_reducer.domains import DomainError, domain_of_type, parse_domain, with_initial
from check_reducer.shapes import TargetError, as_reducer, infer_domains, load_reducer
from reference.algebra.zset import ZSet

GALLERY = Path(__file__).resolve().parents[2] / "examples" / "reducers"


@pytest.mark.parametrize("target, initial, value, added", [
    ("sum_int.py:sum_int", 0, 5, 5),  # reference.reduce.Reducer
    ("count.py:Count", 0, "x", 1),  # class, instance methods
    ("xor.py:xor", 0, 6, 6),  # triple
    ("product.py:Product", Fraction(1), Fraction(2, 3), Fraction(2, 3)),  # class, static methods
    ("sum_pairs.py:sum_pairs", (0, 0), (4, 1), (4, 1)),  # object with attributes
    ("histogram.py:histogram", ZSet(), "a", ZSet({"a": 1})),  # factory function
])
def test_every_documented_shape_loads(target: str, initial: object, value: object,
                                      added: object) -> None:
    file, _, name = target.partition(":")
    R = load_reducer(f"{GALLERY / file}:{name}")
    assert R.initial == initial
    assert R.add(R.initial, value) == added
    assert R.remove(added, value) == initial


def test_module_targets_and_dotted_names() -> None:
    R = load_reducer("tests.check_reducer.fixtures.bad_reducers:Box.inner")
    assert R.add(1, 2) == 3 and R.name == "chatty"
    with pytest.raises(TargetError, match="the class lacks initial/add/remove"):
        load_reducer("reference.reduce:Reducer")


def test_shape_errors() -> None:
    with pytest.raises(TargetError, match="a triple must be"):
        as_reducer((0, abs), "t")
    with pytest.raises(TargetError, match="is not a reducer"):
        as_reducer(3, "n")


def test_domain_syntax() -> None:
    assert parse_domain("int[-2..2]").elements() == (0, 1, -1, 2, -2)  # simplest first
    assert parse_domain("str[ab,2]").elements() == ("", "a", "b", "aa", "ab", "ba", "bb")
    assert parse_domain("tuple[bool,int[0..1]]").elements() == (
        (False, 0), (False, 1), (True, 0), (True, 1))
    assert parse_domain("float").preconditions("x") == ["x == x", "abs(x) < float('inf')"]
    assert parse_domain("float[nan,inf]").preconditions("x") == []
    assert parse_domain("zset[str[ab,1]]").spec == "zset[str[ab,1]]"
    assert not parse_domain("int").is_finite and parse_domain("bool").is_finite
    for bad in ("int[3..1]", "float[x]", "complex", "str[ab,n]", "tuple[int", "fraction[odd]"):
        with pytest.raises(DomainError):
            parse_domain(bad)


def test_inference_from_hints_and_initial() -> None:
    inferred = infer_domains(load_reducer(f"{GALLERY / 'sum_pairs.py'}:sum_pairs"))
    assert inferred.values is not None and inferred.values.spec == "tuple[int,int]"
    assert inferred.accumulators is not None and inferred.accumulators.spec == "tuple[int,int]"
    untyped = as_reducer((0.0, lambda a, v: a + v, lambda a, v: a - v), "untyped")
    inferred = infer_domains(untyped)
    assert inferred.values is None  # cannot be guessed: the command asks for --values
    assert inferred.accumulators is not None and inferred.accumulators.spec == "float"


@pytest.mark.parametrize("hint, spec, bound", [
    (list[int], "list[int]", "lists of length <= 3"),
    (dict[str, int], "dict[str,int]", "dicts of at most 3 keys"),
    (frozenset[int], "frozenset[int]", "frozensets of at most 3 elements"),
    (set[int], "set[int]", "sets of at most 3 elements"),
    (tuple[int, ...], "tuple[int,...]", "tuples of length <= 3"),
    (Optional[int], "optional[int]", "None or all integers"),  # noqa: UP045 (the hint people write)
    (int | None, "optional[int]", "None or all integers"),
])
def test_container_hints_have_bounded_default_domains(hint: object, spec: str, bound: str) -> None:
    domain = domain_of_type(hint)
    assert domain is not None and domain.spec == spec
    assert bound in domain.description  # the bound is stated (the report prints it)
    assert parse_domain(spec).spec == spec  # and the same domain can be written on the command line


def test_container_domains_hold_their_bounded_values() -> None:
    lists = parse_domain("list[int[0..1]]")
    assert lists.elements() is not None and [] in lists.elements() and [1, 0] in lists.elements()
    assert all(len(x) <= 3 for x in lists.elements())
    assert lists.contains([0, 1]) and not lists.contains([0, 0, 0, 0]) and not lists.contains((0,))
    assert parse_domain("optional[int[0..1]]").elements() == (None, 0, 1)
    assert parse_domain("int[0..1]|None").spec == "optional[int[0..1]]"
    sets = parse_domain("frozenset[int[0..1]]")
    assert sets.elements() == (frozenset(), frozenset({0}), frozenset({1}), frozenset({0, 1}))
    dicts = parse_domain("dict[int[0..1],int[0..1]]")
    assert dicts.elements() is not None and len(dicts.elements()) == 1 + 2 * 2 + 4
    assert not dicts.contains({0: 5})
    assert parse_domain("tuple[int,...]").contains((1, 2, 3))
    unhashable = parse_domain("[[], [0]]")
    assert unhashable.elements() == ([], [0]) and unhashable.contains([0])


def test_an_accumulator_domain_without_initial_gets_it_and_says_so(
        capsys: pytest.CaptureFixture[str]) -> None:
    from check_reducer.cli import main
    status = main([f"{GALLERY / 'sum_int.py'}:sum_int", "--acc", "int[1..3]", "--no-symbolic",
                   "--examples", "20", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert status == 0
    assert report["domains"]["accumulators"]["spec"] == "int[1..3] ∪ {initial}"
    assert any("initial = 0 is not in the accumulator domain int[1..3]: it was added" in note
               for note in report["domains"]["notes"])
    assert with_initial(parse_domain("int[1..3]"), 0).elements() == (0, 1, 2, 3)
