"""The shipped case files: valid against the schema, IDs stamped, regenerable, and the
hand-written expectations (the papers' numbers, typed in) agree with the oracle."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance import generate
from conformance.cases_model import Case
from conformance.compare import semantic
from conformance.loader import CaseFileError, case_files, load_cases, read_case
from conformance.oracle import reduce as reduce_oracle
from conformance.schema import load_schema

CASES = load_cases()
HAND_WRITTEN = [c for c in CASES if c.source in ("paper", "adversarial")]


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
    path.write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(CaseFileError, match="does not match its content"):
        read_case(path)


def test_a_schema_violation_is_rejected(tmp_path: Path) -> None:
    raw = json.loads(case_files()[0].read_text(encoding="utf-8"))
    raw["level"] = "may"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(CaseFileError, match="level"):
        read_case(path)


def test_generated_cases_are_reproducible() -> None:
    """``incspec generate-cases --check``: regenerating gives the committed files byte for byte."""
    assert generate.main(["--check"]) == 0


@pytest.mark.parametrize("case", [c for c in HAND_WRITTEN if c.area == "reduce"], ids=lambda c: c.id)
def test_hand_written_reduce_cases_agree_with_the_oracle(case: Case) -> None:
    """The expectations were typed in from the paper or by hand; the oracle recomputes them."""
    steps = [s.to_json(with_expectations=False) for s in case.steps]
    expected, alternatives = reduce_oracle.expectations(steps)
    assert [semantic("reduce", s.expect) for s in case.steps] == [semantic("reduce", e) for e in expected]
    oracle_alternatives = [[semantic("reduce", e) for e in alt] for alt in alternatives]
    for alternative in case.alternatives:
        assert [semantic("reduce", e) for e in alternative] in oracle_alternatives


@pytest.mark.parametrize("case", [c for c in HAND_WRITTEN if c.area == "fixpoint"], ids=lambda c: c.id)
def test_hand_written_fixpoint_cases_agree_with_the_oracle(case: Case) -> None:
    from conformance.oracle import fixpoint as fixpoint_oracle

    steps = [s.to_json(with_expectations=False) for s in case.steps]
    expected = fixpoint_oracle.denotational(steps)
    assert [semantic("fixpoint", s.expect) for s in case.steps] == [semantic("fixpoint", e) for e in expected]


@pytest.mark.parametrize("case", [c for c in HAND_WRITTEN if c.area == "zset"], ids=lambda c: c.id)
def test_hand_written_zset_cases_agree_with_the_oracle(case: Case) -> None:
    from conformance.oracle import zset as zset_oracle

    steps = [s.to_json(with_expectations=False) for s in case.steps]
    expected = zset_oracle.denotational(case.setup, steps)
    assert [semantic("zset", s.expect) for s in case.steps] == [semantic("zset", e) for e in expected]


@pytest.mark.parametrize("case", [c for c in HAND_WRITTEN if c.area == "stream"], ids=lambda c: c.id)
def test_hand_written_stream_cases_agree_with_the_oracle(case: Case) -> None:
    from conformance.oracle import stream as stream_oracle

    steps = [s.to_json(with_expectations=False) for s in case.steps]
    expected = stream_oracle.denotational(case.setup, steps)
    assert [semantic("stream", s.expect) for s in case.steps] == [semantic("stream", e) for e in expected]


def test_cuts_are_every_composition() -> None:
    from conformance.oracle.stream import cuts

    assert cuts([1, 2, 3]) == [[[1, 2, 3]], [[1], [2, 3]], [[1, 2], [3]], [[1], [2], [3]]]
    assert len(cuts(list(range(6)))) == 2 ** 5 and cuts([]) == [[]]


def test_every_case_cites_the_spec_and_paper_cases_cite_an_example() -> None:
    """Citations are checked against the catalog by ``proofs_map --check``; here: none is missing."""
    assert [c.id for c in CASES if not c.cites] == []
    assert all(any("-EX-" in i for i in c.cites) for c in CASES if c.source == "paper")
