"""JSON values as canonical text (:mod:`spark_impl.values`): the fast paths for integers and
tuples of integers give what the JSON library gives, so no value's text depends on which
path made it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spark_impl.values import decode, encode

_scalars = st.one_of(st.integers(), st.integers(min_value=-(10**40), max_value=10**40), st.booleans(),
                     st.none(), st.text(max_size=5), st.floats(allow_nan=False, allow_infinity=False))
_values = st.recursive(_scalars, lambda inner: st.one_of(
    st.tuples(inner, inner), st.lists(inner, max_size=3).map(tuple),
    st.dictionaries(st.text(max_size=3), inner, max_size=3)), max_leaves=8)


def _library_text(value: Any) -> str:
    """The JSON library's canonical text (integral floats as integers, as :func:`encode` has them)."""

    def plain(v: Any) -> Any:
        if isinstance(v, float) and v.is_integer():
            return int(v)
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        if isinstance(v, tuple | list):
            return [plain(x) for x in v]
        return v

    return json.dumps(plain(value), sort_keys=True, separators=(",", ":"), allow_nan=False)


def _library_value(text: str) -> Any:
    """The JSON library's value of ``text``, arrays as tuples."""

    def frozen(v: Any) -> Any:
        if isinstance(v, list):
            return tuple(frozen(x) for x in v)
        if isinstance(v, dict):
            return {k: frozen(x) for k, x in v.items()}
        return v

    return frozen(json.loads(text))


@given(_values)
def test_a_value_s_text_is_the_json_library_s(value: Any) -> None:
    assert encode(value) == _library_text(value)


@given(_values)
def test_a_text_s_value_is_the_json_library_s(value: Any) -> None:
    text = _library_text(value)
    assert decode(text) == _library_value(text)


@pytest.mark.parametrize("text", ["[1,2]", "[-3]", "[0,-0,12345678901234567890]", "[1, 2]", "[ 1]",
                                  "[true,1]", "[1.5,2]", "[]", "[[1],2]", "-0", "7"])
def test_integer_texts_canonical_or_not_decode_as_the_json_library_does(text: str) -> None:
    assert decode(text) == _library_value(text)
    assert type(decode(text)) is type(_library_value(text))


@pytest.mark.parametrize("text", ["[01]", "[1,]", "[,1]", "[1"])
def test_a_text_that_is_no_json_is_refused_as_the_json_library_refuses_it(text: str) -> None:
    with pytest.raises(json.JSONDecodeError):
        decode(text)


def test_booleans_are_no_integers() -> None:
    assert encode(True) == "true" and encode((True, 1)) == "[true,1]"
