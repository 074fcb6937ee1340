"""The one writer of case files (:func:`conformance.cases_model.case_file_text`): compact,
exact, and the layout of every case file on disk."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance import generate
from conformance.cases_model import CASE_FILE_WIDTH, case_file_text
from conformance.loader import case_files, read_case

FILES = case_files()
SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30)
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=8)
                    | st.dictionaries(st.text(max_size=12), inner, max_size=6), max_leaves=60)


def test_a_short_array_or_object_stays_on_one_line() -> None:
    assert case_file_text(["k", [3, 5]]) == '["k", [3, 5]]\n'
    step = {"op": "load", "collection": [["k", [3, 5, 7]]], "expect": {"view": [["k", 15]]}}
    assert case_file_text({"steps": [step]}) == (
        '{"steps": [{"op": "load", "collection": [["k", [3, 5, 7]]], "expect": {"view": [["k", 15]]}}]}\n')


def test_a_long_one_has_an_element_a_line_indented_by_two() -> None:
    value = {"id": "reduce.x.00000000", "collection": [["k", list(range(20))], ["j", [1]]], "empty": []}
    assert case_file_text(value).splitlines() == [
        "{",
        '  "id": "reduce.x.00000000",',
        '  "collection": [',
        '    ["k", [' + ", ".join(map(str, range(20))) + "]],",
        '    ["j", [1]]',
        "  ],",
        '  "empty": []',
        "}",
    ]


def test_keys_keep_their_order_and_text_its_characters() -> None:
    text = case_file_text({"z": "ü ⊕ Δ", "a": 1})
    assert text == '{"z": "ü ⊕ Δ", "a": 1}\n'
    assert list(json.loads(text)) == ["z", "a"]


@given(JSON)
def test_the_text_reads_back_as_the_value(value: Any) -> None:
    text = case_file_text(value)
    assert json.loads(text) == value and text.endswith("\n")
    for line in text.splitlines():  # an array or object on a line too long is an empty one
        end = line.rstrip(",")
        if len(line) > CASE_FILE_WIDTH and end.endswith(("]", "}")):
            assert end.endswith(("[]", "{}")), line


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_every_case_file_is_laid_out_by_the_writer(path: Path) -> None:
    """A hand-formatted file is caught here; ``incspec generate-cases --stamp`` lays it out."""
    text = path.read_text(encoding="utf-8")
    raw = json.loads(text)
    assert json.loads(case_file_text(raw)) == raw
    assert text == case_file_text(raw), f"{path}: run incspec generate-cases --stamp"


def test_stamping_lays_out_a_hand_formatted_file_and_keeps_its_id(tmp_path: Path) -> None:
    hand_written = next(p for p in FILES if generate.GENERATED_DIR not in p.parts)
    raw = json.loads(hand_written.read_text(encoding="utf-8"))
    path = tmp_path / raw["area"] / hand_written.name
    path.parent.mkdir()
    path.write_text(json.dumps(raw, indent=2), encoding="utf-8")
    assert generate.stamp(tmp_path) == [path]
    assert path.read_text(encoding="utf-8") == case_file_text(raw)
    assert read_case(path).id == raw["id"] and generate.stamp(tmp_path) == []
