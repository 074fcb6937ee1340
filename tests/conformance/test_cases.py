"""The shipped case files: valid against the schema, IDs stamped, regenerable, and the
hand-written expectations (the papers' numbers, typed in) agree with the oracle."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from conformance import generate
from conformance.cases_model import Case, case_file_text, thaw
from conformance.compare import semantic
from conformance.loader import CaseFileError, case_files, load_cases, read_case
from conformance.oracle import fixpoint as fixpoint_oracle
from conformance.oracle import reduce as reduce_oracle
from conformance.oracle import stream as stream_oracle
from conformance.oracle import zset as zset_oracle
from conformance.schema import load_schema

CASES = load_cases()
CASES_BY_ID = {c.id: c for c in CASES}


def test_every_case_file_is_valid_and_unique() -> None:
    assert len(CASES) == len(case_files()) > 0
    assert len({c.id for c in CASES}) == len(CASES)


def test_schemas_are_valid_json_schemas() -> None:
    for name in ("case", "protocol"):
        assert load_schema(name)["$schema"].endswith("2020-12/schema")


def test_a_stale_id_is_rejected(tmp_path: Path) -> None:
    raw = json.loads(case_files()[0].read_text(encoding="utf-8"))
    raw["steps"][-1]["expect"] = {"error": "invalid-delta"}  # changes what the case checks
    path = tmp_path / "edited.json"
    path.write_text(case_file_text(raw), encoding="utf-8")
    with pytest.raises(CaseFileError, match="does not match its content"):
        read_case(path)


def test_a_schema_violation_is_rejected(tmp_path: Path) -> None:
    raw = json.loads(case_files()[0].read_text(encoding="utf-8"))
    raw["level"] = "may"
    path = tmp_path / "bad.json"
    path.write_text(case_file_text(raw), encoding="utf-8")
    with pytest.raises(CaseFileError, match="level"):
        read_case(path)


def test_a_file_read_again_is_checked_by_its_text_not_its_path(tmp_path: Path) -> None:
    """The loader keeps what it read by the file's text: a file whose text it has checked gives
    the same case wherever it lies; a file that failed fails again, naming its own path; and
    a valid file overwritten with an edit is checked afresh, not served from what it held."""
    good_text = case_files()[0].read_text(encoding="utf-8")
    first, copy = tmp_path / "first.json", tmp_path / "copy.json"
    first.write_text(good_text, encoding="utf-8")
    copy.write_text(good_text, encoding="utf-8")
    assert read_case(first) is read_case(copy) == CASES_BY_ID[read_case(first).id]
    raw = json.loads(good_text)
    raw["level"] = "may"
    bad_text = case_file_text(raw)
    for name in ("bad-1.json", "bad-2.json"):
        bad = tmp_path / name
        bad.write_text(bad_text, encoding="utf-8")
        with pytest.raises(CaseFileError, match=re.escape(str(bad))):
            read_case(bad)
    first.write_text(bad_text, encoding="utf-8")
    with pytest.raises(CaseFileError, match="level"):
        read_case(first)


def test_generated_cases_are_reproducible() -> None:
    """``incspec generate-cases --check``: regenerating gives the committed files byte for byte."""
    assert generate.main(["--check"]) == 0


def oracle_expectations(case: Case) -> tuple[list[dict[str, Any]], list[list[dict[str, Any]]]]:
    """What the area's oracle expects of the case's operations (and the accepted alternatives)."""
    steps = [s.to_json(with_expectations=False) for s in case.steps]
    if case.area == "reduce":
        return reduce_oracle.expectations(steps)
    if case.area == "fixpoint":
        return fixpoint_oracle.denotational(steps), []
    if case.area == "zset":
        return zset_oracle.denotational(case.setup, steps), []
    return stream_oracle.denotational(case.setup, steps), []


def assert_agrees_with_the_oracle(case: Case) -> None:
    """The typed-in expectations (and alternatives) equal the oracle's, field by field."""
    expected, alternatives = oracle_expectations(case)
    setup = thaw(case.setup)
    assert ([semantic(case.area, s.expect, setup=setup) for s in case.steps]
            == [semantic(case.area, e, setup=setup) for e in expected])
    oracle_alternatives = [[semantic(case.area, e, setup=setup) for e in alt] for alt in alternatives]
    for alternative in case.alternatives:
        assert [semantic(case.area, e, setup=setup) for e in alternative] in oracle_alternatives


@pytest.mark.parametrize("case", [c for c in CASES if c.source == "paper"], ids=lambda c: c.id)
def test_the_papers_worked_examples_agree_with_the_oracle(case: Case) -> None:
    """The paper's numbers, typed into the case files, against the reference recomputing them."""
    assert_agrees_with_the_oracle(case)


def assert_paper_cases_citing(spec_id: str) -> None:
    """The paper cases that cite ``spec_id`` (at least one) agree with the oracle: each
    worked example is evidence only through the cases that type it in."""
    cases = [c for c in CASES if c.source == "paper" and spec_id in c.cites]
    assert cases, f"no paper case cites {spec_id}"
    for case in cases:
        assert_agrees_with_the_oracle(case)


@pytest.mark.spec("SKIP-EX-6.1", evidence="example")
def test_skip_ex_6_1() -> None:
    assert_paper_cases_citing("SKIP-EX-6.1")


@pytest.mark.spec("SKIP-EX-6.2", evidence="example")
def test_skip_ex_6_2() -> None:
    assert_paper_cases_citing("SKIP-EX-6.2")


@pytest.mark.spec("SKIP-EX-6.3", evidence="example")
def test_skip_ex_6_3() -> None:
    assert_paper_cases_citing("SKIP-EX-6.3")


@pytest.mark.spec("FIX-EX-4.1", evidence="example")
def test_fix_ex_4_1() -> None:
    assert_paper_cases_citing("FIX-EX-4.1")


@pytest.mark.spec("FIX-EX-4.2", evidence="example")
def test_fix_ex_4_2() -> None:
    assert_paper_cases_citing("FIX-EX-4.2")


@pytest.mark.spec("FIX-EX-4.3", evidence="example")
def test_fix_ex_4_3() -> None:
    assert_paper_cases_citing("FIX-EX-4.3")


@pytest.mark.spec("FIX-EX-4.4", evidence="example")
def test_fix_ex_4_4() -> None:
    assert_paper_cases_citing("FIX-EX-4.4")


@pytest.mark.spec("FIX-EX-4.5", evidence="example")
def test_fix_ex_4_5() -> None:
    assert_paper_cases_citing("FIX-EX-4.5")


@pytest.mark.spec("STREAM-EX-3.15", evidence="example")
def test_stream_ex_3_15() -> None:
    assert_paper_cases_citing("STREAM-EX-3.15")


@pytest.mark.spec("STREAM-EX-3.12", evidence="example")
def test_stream_ex_3_12() -> None:
    assert_paper_cases_citing("STREAM-EX-3.12")


@pytest.mark.spec("STREAM-EX-4.1", evidence="example")
def test_stream_ex_4_1() -> None:
    assert_paper_cases_citing("STREAM-EX-4.1")


@pytest.mark.spec("STREAM-EX-2.1", evidence="example")
def test_stream_ex_2_1() -> None:
    assert_paper_cases_citing("STREAM-EX-2.1")


@pytest.mark.spec("STREAM-EX-2.2", evidence="example")
def test_stream_ex_2_2() -> None:
    assert_paper_cases_citing("STREAM-EX-2.2")


@pytest.mark.spec("STREAM-EX-4.2", evidence="example")
def test_stream_ex_4_2() -> None:
    assert_paper_cases_citing("STREAM-EX-4.2")


@pytest.mark.spec("DD-EX-SELECT-PROJECT", evidence="example")
def test_dd_ex_select_project() -> None:
    assert_paper_cases_citing("DD-EX-SELECT-PROJECT")


@pytest.mark.parametrize("case", [c for c in CASES if c.source == "adversarial"], ids=lambda c: c.id)
def test_adversarial_cases_agree_with_the_oracle(case: Case) -> None:
    """Expectations worked out by hand for the adversarial cases, against the oracle."""
    assert_agrees_with_the_oracle(case)


def test_cuts_are_every_composition() -> None:
    from conformance.oracle.stream import cuts

    assert cuts([1, 2, 3]) == [[[1, 2, 3]], [[1], [2, 3]], [[1, 2], [3]], [[1], [2], [3]]]
    assert len(cuts(list(range(6)))) == 2 ** 5 and cuts([]) == [[]]


def test_every_case_cites_the_spec_and_paper_cases_cite_an_example() -> None:
    """Citations are checked against the catalog by ``proofs_map --check``; here: none is missing."""
    assert [c.id for c in CASES if not c.cites] == []
    assert all(any("-EX-" in i for i in c.cites) for c in CASES if c.source == "paper")


def test_a_new_hand_written_case_without_an_id_is_stamped(tmp_path: Path) -> None:
    """An implementer's own case: the loader says how to stamp it; stamping makes it load."""
    raw = json.loads(case_files()[0].read_text(encoding="utf-8"))
    del raw["id"]
    path = tmp_path / "reduce" / "my-case.json"
    path.parent.mkdir()
    path.write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(CaseFileError, match=re.escape(f"--stamp --root {path.parent}")):
        read_case(path)
    assert generate.stamp(tmp_path) == [path]
    case = read_case(path)
    assert case.id.startswith(f"{raw['area']}.my-case.") and generate.stamp(tmp_path) == []
