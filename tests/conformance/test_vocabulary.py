"""The language-neutral vocabularies (``conformance/vocabulary/*.json``) are the ones
the suite runs on: the loader enforces the features list, handshakes are built from
it, and the oracle implements exactly the named reducers, zset functions and stream
processors the files list, with the parameters they list."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance import api, reducers, vocabulary, zset_programs
from conformance.cases_model import case_file_text
from conformance.implementations import resolve
from conformance.loader import CaseFileError, cases_root, load_cases, read_case
from reference.differential.operators import AGGREGATES, FILTER_PREDICATES, MAP_FUNCTIONS
from reference.reduce import builtin
from reference.streams.named import describe, names


def test_every_case_feature_is_listed_and_every_listed_feature_is_used() -> None:
    used = {f for case in load_cases() for f in case.features}
    assert used <= set(vocabulary.features())
    # work-counters and changes-only are declared by engines (for the cost columns and the
    # scaling probes), never needed by a case file
    assert set(vocabulary.features()) - used == {"work-counters", "changes-only"}


def test_the_loader_refuses_a_feature_not_in_the_list(tmp_path: Path) -> None:
    raw = json.loads((cases_root() / "reduce" / "sum-worked-example.json").read_text("utf-8"))
    path = tmp_path / "case.json"
    path.write_text(case_file_text({**raw, "features": ["teleportation"]}), "utf-8")
    with pytest.raises(CaseFileError, match="features"):
        read_case(path)


def test_handshakes_are_built_from_the_features_list() -> None:
    assert resolve("reference").handshake().features == vocabulary.features() == api.FEATURES
    with pytest.raises(ValueError, match="teleportation"):
        api.handshake("x", "1", features=["teleportation"])


def test_the_named_reducers_are_the_vocabulary_with_the_reference_meaning() -> None:
    listed = vocabulary.reducers()
    assert set(reducers.REDUCERS) == set(listed)
    for name, entry in listed.items():
        spec = reducers.REDUCERS[name]
        if name in reducers.SUITE_OWN:
            continue
        b = builtin(name)
        assert (spec.well_formed, spec.total) == (not b.ill_formed, b.expected.total), name
        assert entry["params"] == {}, name
    assert listed["saturating_sum"]["params"] == {"cap": "integer"}
    assert reducers.build("saturating_sum", {"cap": 3}).add(2, 5) == 3


def test_the_zset_functions_are_those_of_the_reference_language() -> None:
    assert set(zset_programs.FUNCTIONS["map"]) == set(MAP_FUNCTIONS)
    assert set(zset_programs.FUNCTIONS["filter"]) == set(FILTER_PREDICATES)
    assert set(zset_programs.FUNCTIONS["aggregate"]) == set(AGGREGATES)


def test_the_stream_processors_are_those_of_the_reference() -> None:
    listed = vocabulary.stream_processors()
    assert set(listed) == set(names())
    for name, entry in listed.items():
        doc = describe(name)
        assert {k: entry[k] for k in ("params", "input", "output", "cites")} == \
            {k: doc[k] for k in ("params", "input", "output", "cites")}, name
