"""The everyday gallery (examples/reducers/everyday_*.py): reducers of the shapes people
write, each verdict derived by hand (examples/reducers/everyday.toml). check-reducer's exit
status must be the expected one, and every ill-formed reducer's witness must reproduce when
replayed here, by plain folds over the reducer's own functions: update differs from
recomputation on the collection and delta printed (with the key left in the view), or the
call printed changes its argument.

The command runs in this process (its search is the sandbox's child's, without the child:
a process start per reducer would double the time; test_errors.py covers the sandbox)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from check_reducer.cli import main
from check_reducer.worker import Job, search
from tests.check_reducer.gallery import GALLERY, ROOT, replay, valid

EXAMPLES: list[dict[str, Any]] = tomllib.loads(
    (GALLERY / "everyday.toml").read_text())["example"]

#: small bounds: Hypothesis examples per law (seeded), as the other gallery tests
QUICK = ["--no-symbolic", "--examples", "30"]


def in_process(job: Job, timeout: float) -> dict[str, Any]:
    """``check_reducer.sandbox.run_job`` without the child process."""
    return search(job)


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["target"] for e in EXAMPLES])
def test_everyday_verdict(example: dict[str, Any], capsys: pytest.CaptureFixture[str],
                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr("check_reducer.cli.run_job", in_process)
    file, _, name = example["target"].partition(":")
    status = main([str(Path("examples/reducers") / example["target"]), *example["args"],
                   *QUICK, "--json"])
    report = valid(json.loads(capsys.readouterr().out))
    assert report["error"] is None, report["error"]
    assert status == example["exit"], example["why"]
    if "strict_exit" in example:  # the warnings are what --strict counts
        bad = any(line["status"] in ("fails", "error") for line in report["lines"])
        assert (1 if bad else status) == example["strict_exit"], example["why"]
    if status == 1:
        replay(report, GALLERY / file, name)


def test_the_everyday_gallery_has_the_shapes_people_write() -> None:
    assert len(EXAMPLES) >= 20
    assert {e["exit"] for e in EXAMPLES} == {0, 1}
    assert any(e.get("strict_exit", e["exit"]) != e["exit"] for e in EXAMPLES)
    names = {e["target"].partition(":")[2] for e in EXAMPLES}
    for needed in ("average", "product", "sum_mod_2_32", "saturating_u8", "partial_min",
                   "top3", "word_count", "distinct_count", "inplace_histogram", "stats",
                   "tally", "mean", "totals", "votes", "SumOfSquares", "MinMax"):
        assert needed in names
