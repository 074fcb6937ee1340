"""Every reducer of the gallery (examples/reducers/) gets its hand-written expected
verdict (examples/reducers/expected.toml): exit status, the status of each line,
and which lines the exhaustive engine decides.

The Hypothesis engine of the command runs as many examples per law as the
active Hypothesis profile's max_examples (dev 50, ci 200, thorough 2000)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from check_reducer.cli import main
from tests.check_reducer.gallery import ALL_EXAMPLES, PLAIN, ROOT, valid

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
    for line in report["lines"]:
        if line["status"] == "fails":  # a concrete counterexample, with its sides
            assert line["counterexample"]["sides"], line["key"]
            assert line["found_by"]


def test_the_gallery_covers_the_issue_list() -> None:
    targets = {e["target"] for e in ALL_EXAMPLES}
    for needed in ("sum_int.py:sum_int", "count.py:Count", "xor.py:xor", "product.py:Product",
                   "sum_pairs.py:sum_pairs", "histogram.py:histogram", "min_max.py:Min",
                   "min_max.py:Max", "broken.py:sum_remove_adds", "float_sum.py:float_sum"):
        assert needed in targets
    assert {0, 1} <= {e["exit"] for e in EXAMPLES}
