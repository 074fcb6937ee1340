"""Every reducer of the gallery (examples/reducers/) gets its hand-written expected
verdict (examples/reducers/expected.toml; the derivations are comments beside the
reducers): exit status (and under --strict), the witness of each ill-formed one
(replayed by plain folds), the status of each line, which lines the exhaustive engine
decides, which hold vacuously, and, on error lines, the call that raised or hung.
No run may crash, and no line may hold where the derivation says it fails.

The Hypothesis engine of the command runs as many examples per law as the
active Hypothesis profile's max_examples (dev 50, ci 200, thorough 2000)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from check_reducer.cli import main
from tests.check_reducer.gallery import ALL_EXAMPLES, GALLERY, PLAIN, ROOT, replay, valid

EXAMPLES = PLAIN


def check(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    status = main(argv + ["--json"])
    return status, valid(json.loads(capsys.readouterr().out))


def _id(example: dict[str, Any]) -> str:
    return str(example["target"]) + ("+tolerance" if "--rel-tol" in example["args"] else "")


@pytest.mark.parametrize("example", EXAMPLES, ids=[_id(e) for e in EXAMPLES])
def test_gallery_verdict(example: dict[str, Any], capsys: pytest.CaptureFixture[str],
                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    examples = str(settings().max_examples)
    status, report = check([str(Path("examples/reducers") / example["target"]), *example["args"],
                            "--no-symbolic", "--examples", examples], capsys)
    assert report["error"] is None
    got = {line["key"]: line["status"] for line in report["lines"]}
    assert got == example["lines"], example["why"]
    decided = sorted(line["key"] for line in report["lines"] if line["decided"])
    assert decided == sorted(example["decided"])
    assert status == example["exit"]
    # the lines that fail without counting are the report's warnings; --strict counts them
    bad = {line["key"] for line in report["lines"] if line["status"] in ("fails", "error")}
    counted = {line["key"] for line in report["lines"] if line["counts"]}
    assert set(report["warnings"]) == bad - counted
    assert (1 if bad else status) == example.get("strict_exit", example["exit"])
    if status == 1:  # the witness reproduces, replayed by plain folds
        file, _, name = example["target"].partition(":")
        replay(report, GALLERY / file, name)
    for line in report["lines"]:
        if line["status"] == "fails":  # a concrete counterexample, with its sides
            assert line["counterexample"]["sides"], line["key"]
            assert line["found_by"]
        if line["status"] in ("fails", "error") and "a" in line["counterexample"]["args"]:
            # the reachability note: whether a runtime ever builds this accumulator
            assert any(text.startswith("a = ") for text in line["explanation"]), line["key"]
        if line["status"] == "error":  # the call of add or remove, and what it did
            ce = line["counterexample"]
            assert ce["call"] is not None and ce["error"], line["key"]
            assert ce["hung"] == (example["error"] == "hung"), line["key"]
    vacuous = sorted(line["key"] for line in report["lines"]
                     if any(text.startswith("Vacuous") for text in line["explanation"]))
    assert vacuous == sorted(example.get("vacuous", []))
    if "note" in example:
        assert any(example["note"] in note for note in report["domains"]["notes"])


def test_the_gallery_covers_every_shape_and_failure() -> None:
    targets = {e["target"] for e in ALL_EXAMPLES}
    assert len(targets) >= 30
    for needed in ("sum_int.py:sum_int", "count.py:Count", "xor.py:xor", "product.py:Product",
                   "sum_pairs.py:sum_pairs", "histogram.py:histogram", "min_max.py:Min",
                   "min_max.py:Max", "broken.py:sum_remove_adds", "float_sum.py:float_sum",
                   # mutating (dict, hashable object), unhashable initial, list, dict, set,
                   # tuple[int, ...] and Optional accumulators, partial, raising, hanging, rounding
                   "mutating.py:mutating_histogram", "mutating.py:InPlaceTotal",
                   "containers.py:dict_histogram", "containers.py:sorted_list",
                   "containers.py:distinct_set", "containers.py:top2", "containers.py:optional_min",
                   "partial.py:nonneg_sum", "misbehaving.py:raises_on_three",
                   "misbehaving.py:hangs_on_two", "misbehaving.py:running_mean"):
        assert needed in targets
    assert {0, 1} <= {e["exit"] for e in EXAMPLES}
    assert any(e.get("strict_exit", e["exit"]) != e["exit"] for e in EXAMPLES)
    statuses = {s for e in EXAMPLES for s in e["lines"].values()}
    assert statuses == {"holds", "fails", "error"}
