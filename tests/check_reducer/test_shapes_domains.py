"""Accepted reducer shapes, domain syntax, and inference from type hints."""

from __future__ import annotations

import dataclasses
import enum
import json
from fractions import Fraction
from pathlib import Path
from typing import Literal, NamedTuple, Optional, TypedDict

import pytest
from hypothesis import find

from check_reducer.domains import (
    DomainError,
    domain_of_type,
    domain_of_value,
    parse_domain,
    with_initial,
)
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
    with pytest.raises(TargetError, match="it has no class attributes initial, add and remove"):
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


# --- the shapes people write: records, enumerations, classes that set initial ---------------


@dataclasses.dataclass(frozen=True)
class Stats:
    count: int
    total: int


@dataclasses.dataclass
class Box:
    items: frozenset[int]
    label: str = "box"


class Mean(NamedTuple):
    n: int
    total: float


class Totals(TypedDict):
    count: int
    total: int


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


def test_record_hints_have_domains_of_the_record_type() -> None:
    stats = domain_of_type(Stats)
    assert stats is not None and stats.spec == "Stats(count: int, total: int)"
    assert all(type(x) is Stats for x in stats.sample()) and stats.contains(Stats(1, 2))
    assert not stats.contains((1, 2))
    mean = domain_of_type(Mean)  # the NamedTuple type is kept: acc.n works on every sample
    assert mean is not None and all(type(x) is Mean and x.n == x[0] for x in mean.sample())
    assert not mean.contains((0, 0.0)) and mean.contains(Mean(0, 0.0))
    box = domain_of_type(Box)  # not frozen (unhashable), a default field
    assert box is not None and all(type(x) is Box for x in box.sample())
    assert find(box.strategy(), lambda x: len(x.items) >= 2).label is not None
    totals = domain_of_type(Totals)
    assert totals is not None and totals.spec == "Totals{'count': int, 'total': int}"
    assert all(type(x) is dict and set(x) == {"count", "total"} for x in totals.sample())
    assert totals.contains({"count": 1, "total": 2}) and not totals.contains({"count": 1})
    colors = domain_of_type(Color)
    assert colors is not None and colors.elements() == (Color.RED, Color.GREEN)
    assert colors.spec == "Color{RED, GREEN}" and colors.contains(Color.RED)
    literal = domain_of_type(Literal["a", "b"])
    assert literal is not None and literal.elements() == ("a", "b")
    assert domain_of_value(Mean(0, 0.0)) is not None
    assert domain_of_value(Mean(0, 0.0)).spec == mean.spec  # type: ignore[union-attr]
    assert domain_of_type(dict[Color, int]) is not None


def test_a_class_may_set_initial_in_init(tmp_path: Path) -> None:
    source = tmp_path / "classes.py"
    source.write_text(
        "class SumSquares:\n"
        "    def __init__(self) -> None:\n"
        "        self.initial = 0\n"
        "    def add(self, acc: int, v: int) -> int:\n"
        "        return acc + v * v\n"
        "    def remove(self, acc: int, v: int) -> int:\n"
        "        return acc - v * v\n"
        "class Static:\n"
        "    def __init__(self) -> None:\n"
        "        self.initial = 0\n"
        "    add = staticmethod(lambda acc, v: acc + v)\n"
        "    remove = staticmethod(lambda acc, v: acc - v)\n"
        "class NoRemove:\n"
        "    initial = 0\n"
        "    @staticmethod\n"
        "    def add(acc: int, v: int) -> int:\n"
        "        return acc + v\n"
        "class OnlyAdd:\n"
        "    def add(self, acc: int, v: int) -> int:\n"
        "        return acc + v\n"
        "class NeedsArgs:\n"
        "    def __init__(self, start: int) -> None:\n"
        "        self.initial = start\n"
        "    def add(self, acc: int, v: int) -> int:\n"
        "        return acc + v\n"
        "    def remove(self, acc: int, v: int) -> int:\n"
        "        return acc - v\n"
        "class NotCallable:\n"
        "    initial = 0\n"
        "    add = staticmethod(lambda acc, v: acc + v)\n"
        "    remove = 3\n"
        "from types import SimpleNamespace\n"
        "half = SimpleNamespace(initial=0, add=lambda acc, v: acc + v)\n")
    R = load_reducer(f"{source}:SumSquares")
    assert R.initial == 0 and R.add(1, 2) == 5 and R.remove(5, 2) == 1
    assert load_reducer(f"{source}:Static").add(1, 2) == 3
    for name, message in [("NoRemove", "NoRemove: the class NoRemove lacks remove;"),
                          ("OnlyAdd", "the class OnlyAdd (and its instance) lacks initial and "
                                      "remove;"),
                          ("NeedsArgs", "cannot instantiate the class NeedsArgs with no arguments "
                                        "(it has no class attribute initial, so"),
                          ("NotCallable", "the class NotCallable's remove must be callable"),
                          ("half", "half: the SimpleNamespace object lacks remove;")]:
        with pytest.raises(TargetError) as raised:
            load_reducer(f"{source}:{name}")
        assert message in str(raised.value), name


def test_a_missing_domain_names_the_hints_it_looked_at(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from check_reducer.cli import main
    source = tmp_path / "opaque.py"
    source.write_text("class Thing:\n    pass\n"
                      "def add(acc: int, v: Thing) -> int:\n    return acc + 1\n"
                      "def remove(acc: int, v: Thing) -> int:\n    return acc - 1\n"
                      "r = (0, add, remove)\n")
    assert main([f"{source}:r", "--no-symbolic", "--json"]) == 2
    message = json.loads(capsys.readouterr().out)["error"]["message"]
    assert "cannot infer the value domain" in message
    assert "for the value domain, add's value parameter: Thing, remove's: Thing" in message
