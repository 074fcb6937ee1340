"""``incspec pipeline``'s input: rows checked one by one, integers exact, no file skipped.

Each bad input is refused in one line naming file, row, column and value (state
unchanged, exit status 3) or quarantined; nothing is dropped or rounded silently.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.spark.test_pipeline import Rows, fold_inputs, run, view_of, write_batch

pytestmark = pytest.mark.spark

GOOD: Rows = [{"key": "a", "value": 3}, {"key": "b", "value": 1, "weight": 2}]


def refusal_of(messages: list[str]) -> str:
    return next(m for m in messages if "refused" in m)


@pytest.mark.parametrize("bad,said", [
    ({"key": "a", "value": 3, "weight": 1.5}, "column weight: 1.5 is not"),
    ({"key": "a", "value": 3, "weight": "x"}, 'column weight: "x" is not'),
    ({"key": "a", "value": 3, "weight": None}, "column weight: null is not"),
    ({"key": None, "value": 3}, "column key: missing or null"),
    ({"key": "a", "value": 2.5}, "column value: 2.5 is not an integer"),
])
@pytest.mark.spec("SKIP-DEC-INVALID-DELTA", "SKIP-DEC-SPARK-STATE", evidence="example")
def test_an_invalid_row_is_refused_naming_file_line_column_and_value(
        spark: Any, tmp_path: Path, bad: dict[str, Any], said: str) -> None:
    inp, out = tmp_path / "in", tmp_path / "out"
    write_batch(inp, "b0.jsonl", GOOD, 0)
    assert run(spark, inp, out) == 0  # the folder's types: fixed by the files of the first run
    write_batch(inp, "b1.jsonl", [{"key": "c", "value": 4}, bad], 1)
    messages: list[str] = []
    assert run(spark, inp, out, log=messages.append) == 3
    refusal = refusal_of(messages)
    assert "b1.jsonl, line 2: " + said in refusal and "\n" not in refusal
    assert view_of(spark, out) == fold_inputs([GOOD])


@pytest.mark.spec("SKIP-DEC-JSON-VALUES", "SKIP-DEC-SPARK-STATE", evidence="example")
def test_a_weight_written_as_an_integral_float_is_that_integer(spark: Any, tmp_path: Path) -> None:
    """JSON has one number type (SKIP-DEC-JSON-VALUES): a weight ``-1.0`` is -1, a removal,
    and ``2.0`` is 2; ``1.5`` is refused (above). Issue 32's finding 5 named ``-1.0`` among
    the bad inputs: it is accepted by design, and this pins it."""
    inp, out = tmp_path / "in", tmp_path / "out"
    write_batch(inp, "b0.jsonl", GOOD, 0)
    assert run(spark, inp, out) == 0
    write_batch(inp, "b1.jsonl", [{"key": "a", "value": 3, "weight": -1.0}, {"key": "c", "value": 4, "weight": 2.0}], 1)
    assert run(spark, inp, out) == 0
    as_integers: Rows = [{"key": "a", "value": 3, "weight": -1}, {"key": "c", "value": 4, "weight": 2}]
    assert view_of(spark, out) == fold_inputs([GOOD, as_integers]) == {"b": 2, "c": 8}


@pytest.mark.spec("SKIP-DEC-SPARK-STATE", evidence="example")
def test_a_quarantine_leaves_missing_files_reported(spark: Any, tmp_path: Path) -> None:
    """An invalid row quarantined: the run goes on without its file, which is moved aside,
    and ``spark.sql.files.ignoreMissingFiles`` is not left on."""
    inp, out = tmp_path / "in", tmp_path / "out"
    write_batch(inp, "b0.jsonl", GOOD, 0)
    bad = write_batch(inp, "b1.jsonl", [{"key": "a", "value": 3, "weight": "x"}], 1)
    later: Rows = [{"key": "c", "value": 4}]
    write_batch(inp, "b2.jsonl", later, 2)
    assert run(spark, inp, out, quarantine=True) == 0
    assert not bad.exists() and (out / "_quarantine" / "b1.jsonl").exists()
    assert view_of(spark, out) == fold_inputs([GOOD, later])
    assert spark.conf.get("spark.sql.files.ignoreMissingFiles") != "true"


@pytest.mark.spec("SKIP-DEC-SPARK-STATE", evidence="example")
def test_a_recorded_input_missing_at_restart_is_reported(spark: Any, tmp_path: Path) -> None:
    """A refused file removed before the next run (Spark recorded it for the micro-batch it
    re-runs): reported in one line with status 3, not an error, and nothing dropped."""
    inp, out = tmp_path / "in", tmp_path / "out"
    write_batch(inp, "b0.jsonl", GOOD, 0)
    bad = write_batch(inp, "b1.jsonl", [{"key": "z", "value": 3, "weight": -1}], 1)
    assert run(spark, inp, out) == 3
    bad.unlink()
    messages: list[str] = []
    assert run(spark, inp, out, log=messages.append) == 3
    assert any("is missing" in m and "micro-batch 1" in m for m in messages)
    assert view_of(spark, out) == fold_inputs([GOOD])


@pytest.mark.spec("SKIP-DEC-SPARK-STATE", evidence="example")
@pytest.mark.heavy
def test_a_recorded_input_missing_after_a_generation_read_alone_is_reported(
        spark: Any, tmp_path: Path) -> None:
    """As above, after a compaction whose generation folder a micro-batch read alone (the run
    after the compaction found no new file): from then on the input's own log numbers lag the
    micro-batches'. Before, the run read the input's log numbered as the micro-batch it
    re-runs (none there), found no file recorded, and Spark ran the micro-batch without the
    missing file: status 0, its changes lost."""
    inp, out, messages = tmp_path / "in", tmp_path / "out", list[str]()
    write_batch(inp, "b0.jsonl", [{"key": "a", "value": 3}], 0)
    write_batch(inp, "b1.jsonl", [{"key": "a", "value": 3, "weight": -1}], 1)
    assert run(spark, inp, out, compaction_floor=1, log=messages.append) == 0
    assert any("re-stated as generation 1" in m for m in messages), messages
    assert run(spark, inp, out, compaction_floor=1) == 0  # the generation's folder alone
    bad = write_batch(inp, "b2.jsonl", [{"key": "z", "value": 3, "weight": -1}], 2)
    assert run(spark, inp, out, compaction_floor=1) == 3
    bad.unlink()
    messages.clear()
    assert run(spark, inp, out, compaction_floor=1, log=messages.append) == 3
    assert any("b2.jsonl" in m and "is missing" in m for m in messages), messages


@pytest.mark.spec("SKIP-DEC-SPARK-STATE", evidence="example")
def test_a_file_older_than_a_week_is_read(spark: Any, tmp_path: Path) -> None:
    """Spark's file source skips a file more than ``maxFileAge`` (7 days by default) older
    than the newest it has seen: a late file stamped eight days back is read all the same."""
    inp, out = tmp_path / "in", tmp_path / "out"
    write_batch(inp, "b0.jsonl", GOOD, 100_000)
    assert run(spark, inp, out) == 0
    old: Rows = [{"key": "c", "value": 4}]
    path = write_batch(inp, "old.jsonl", old, 0)
    stamp = os.stat(inp / "b0.jsonl").st_mtime - 8 * 86_400
    os.utime(path, (stamp, stamp))
    assert run(spark, inp, out) == 0
    assert view_of(spark, out) == fold_inputs([GOOD, old])


@pytest.mark.spec("SKIP-DEC-SPARK-STATE", evidence="example")
def test_integers_are_exact_beyond_64_bits(spark: Any, tmp_path: Path) -> None:
    """``v·w`` beyond 64 bits, then (the folder's type inferred from 64-bit values) a value
    of 24 digits: summed exactly."""
    inp, out = tmp_path / "in", tmp_path / "out"
    write_batch(inp, "b0.jsonl", [{"key": "a", "value": 2**62, "weight": 4}], 0)
    assert run(spark, inp, out) == 0
    write_batch(inp, "b1.jsonl", [{"key": "b", "value": 123456789012345678901234}], 1)
    assert run(spark, inp, out) == 0
    assert view_of(spark, out) == {"a": 2**64, "b": 123456789012345678901234}


@pytest.mark.spec("SKIP-DEC-SPARK-STATE", evidence="example")
def test_an_overflow_is_refused_naming_key_and_value(spark: Any, tmp_path: Path) -> None:
    """A key's sum leaving 38 digits: refused naming the key, the value and the file
    (never a null in the state), and quarantinable."""
    inp, out = tmp_path / "in", tmp_path / "out"
    big = 9 * 10**37
    write_batch(inp, "b0.jsonl", [{"key": "a", "value": big}], 0)
    write_batch(inp, "b1.jsonl", [{"key": "a", "value": big}], 1)
    messages: list[str] = []
    assert run(spark, inp, out, log=messages.append) == 3
    refusal = refusal_of(messages)
    assert "b1.jsonl" in refusal and "key 'a'" in refusal and str(big) in refusal
    assert view_of(spark, out) == {"a": big}
    assert run(spark, inp, out, quarantine=True) == 0
    assert (out / "_quarantine" / "b1.jsonl").exists() and view_of(spark, out) == {"a": big}
