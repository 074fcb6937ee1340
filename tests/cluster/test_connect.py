"""Spark Connect: the reduce views run over a Connect server (``sc://``) started from the
pyspark wheel (tests/cluster/connect_server.py), and the paths that need the JVM say so in
one line.

Each client is a process of its own (a process holds one kind of session: a Connect client
marks the whole process as one). The expected views are a from-scratch fold of the input
files in plain Python; the pipeline's published output is read with pyarrow, not with the
session under test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.spark.test_pipeline import Rows, fold_inputs, min_inputs, write_batch

pytestmark = [pytest.mark.spark, pytest.mark.cluster]

ROOT = Path(__file__).resolve().parents[2]
#: a client process's limit (its session's start, its queries, on a loaded machine)
CLIENT_TIMEOUT = 900

#: two change files: insertions, then removals (one key emptied) and an insertion
FILES: list[Rows] = [
    [{"key": "a", "value": 3}, {"key": "a", "value": 5}, {"key": "b", "value": 1, "weight": 2}],
    [{"key": "a", "value": 3, "weight": -1}, {"key": "b", "value": 1, "weight": -2},
     {"key": "c", "value": 4}],
]


def client(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` with the project on its path, no Spark settings of this process's."""
    env = {k: v for k, v in os.environ.items() if k not in ("SPARK_REMOTE", "PYTHONPATH")}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=CLIENT_TIMEOUT)


def explain(done: subprocess.CompletedProcess[str]) -> str:
    return f"exit {done.returncode}\n--- stdout\n{done.stdout[-3000:]}\n--- stderr\n{done.stderr[-6000:]}"


Fold = Callable[[list[Rows]], dict[str, int]]


def expected_changes(files: list[Rows], fold: Fold = fold_inputs) -> list[list[list[Any]]]:
    """Each file's changes to the view ``fold`` computes from scratch: ``[key, present,
    accumulator]`` for every key whose entry differs from the view before it, sorted."""
    out = []
    for i in range(len(files)):
        before, after = fold(files[:i]), fold(files[:i + 1])
        out.append(sorted([k, k in after, after.get(k)] for k in before.keys() | after.keys()
                          if before.get(k) != after.get(k)))
    return out


def input_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "in"
    for i, rows in enumerate(FILES):
        write_batch(folder, f"c{i}.jsonl", rows, i)
    return folder


@pytest.mark.spec("SKIP-DEC-SPARK-STATE", evidence="example")
def test_a_maintained_view_over_connect_publishes_what_a_fold_from_scratch_gives(
        connect_server: str, tmp_path: Path) -> None:
    """``maintained_view(changes, "sum")`` and its ``foreachBatch`` handler, run over Spark
    Connect, publish each file's exact changes and hold the view a fold from scratch gives.
    (The same code on a classic session is held to the same folds by tests/spark: the
    pipeline's reduce views publish through it.)"""
    done = client(["-m", "tests.cluster.connect_scenario", connect_server, str(input_folder(tmp_path)),
                   str(tmp_path / "connect")], tmp_path)
    assert done.returncode == 0, explain(done)
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert dict(found["view"]) == fold_inputs(FILES) == {"a": 5, "c": 4}
    assert list(found["changes"].values()) == expected_changes(FILES)


def published(folder: Path) -> list[list[Any]]:
    """A published Parquet folder's rows (its marker there), sorted, accumulators as integers."""
    import pyarrow.parquet as pq

    assert (folder / "_PUBLISHED").exists(), f"{folder} is not published"
    table = pq.read_table(folder).to_pylist()
    return sorted([[r[c] if c != "accumulator" or r[c] is None else int(r[c]) for c in r] for r in table])


def check_two_files_published(root: Path, fold: Fold) -> None:
    """The view folder ``root`` of ``incspec pipeline`` after :data:`FILES`, one micro-batch
    each: each micro-batch's exact changes, and a view equal to ``fold`` from scratch."""
    batches = sorted(p.name for p in (root / "changes").iterdir())
    assert batches == ["batch=0", "batch=1"]
    assert [published(root / "changes" / b) for b in batches] == expected_changes(FILES, fold)
    latest = (root / "view" / "_LATEST").read_text().strip()
    assert latest == "v=1"
    assert {k: a for k, a in published(root / "view" / latest)} == fold(FILES)


@pytest.mark.spec("SKIP-DEC-SPARK-STATE", evidence="example")
def test_the_pipeline_runs_a_fold_view_over_connect(connect_server: str, tmp_path: Path) -> None:
    """``incspec pipeline --view reduce:min --remote sc://...`` (a
    ``transformWithStateInPandas`` operator: the second file removes minima) over two change
    files publishes each micro-batch's exact changes and a view equal to a fold from scratch.
    (``reduce:sum``, a native aggregation, is held to the same in the refusal test below,
    before its refused file.)"""
    folder, out = input_folder(tmp_path), tmp_path / "out"
    done = client(["-m", "incspec.cli", "pipeline", "--input", str(folder), "--output", str(out),
                   "--view", "reduce:min", "--remote", connect_server], tmp_path)
    assert done.returncode == 0, explain(done)
    check_two_files_published(out / "reduce-min", min_inputs)


@pytest.mark.parametrize("args,what", [
    (["--view", "reach"], "the reach view"),
    (["--view", "reduce:sum", "--view", "reach"], "the reach view"),
    (["--view", "reduce:sum", "--output", "hdfs://nowhere:8020/out"], "the path hdfs://nowhere:8020/out (Hadoop's FileSystem; over Spark Connect only local paths "
     "are supported)"),
])
def test_what_needs_the_jvm_says_so_in_one_line(connect_server: str, tmp_path: Path, args: list[str],
                                                what: str) -> None:
    """Over Spark Connect a view or path that drives the JVM (py4j) is refused in one line,
    no traceback, exit status 2, nothing written."""
    folder = input_folder(tmp_path)
    given = ["--output", str(tmp_path / "out"), *args] if "--output" not in args else args
    done = client(["-m", "incspec.cli", "pipeline", "--input", str(folder), *given,
                   "--remote", connect_server], tmp_path)
    assert done.returncode == 2, explain(done)
    assert done.stderr.strip() == (f"incspec: {what} needs the JVM (py4j); it does not run over "
                                   f"Spark Connect ({connect_server}): run it with a local or cluster master")
    assert not (tmp_path / "out").exists()


@pytest.mark.spec("SKIP-DEF-8", "SKIP-DEC-SPARK-STATE", evidence="example")
def test_a_refused_file_over_connect_is_reported_then_quarantined(connect_server: str, tmp_path: Path) -> None:
    """Over Spark Connect the ``foreachBatch`` function runs in the server's Python worker: a
    file removing a value not present is still refused in one line naming the file and the
    counts (exit status 3, no traceback), the two files before it published as a fold from
    scratch gives (each micro-batch's exact changes, the view), and the file is quarantined
    at the next run with ``--on-invalid quarantine``."""
    folder, out = input_folder(tmp_path), tmp_path / "out"
    bad = write_batch(folder, "c2.jsonl", [{"key": "c", "value": 9, "weight": -1}], 2)  # c holds no 9
    after: Rows = [{"key": "a", "value": 1}]
    write_batch(folder, "c3.jsonl", after, 3)
    pipeline = ["-m", "incspec.cli", "pipeline", "--input", str(folder), "--output", str(out),
                "--view", "reduce:sum", "--remote", connect_server]
    done = client(pipeline, tmp_path)
    assert done.returncode == 3, explain(done)
    refusal = [line for line in done.stdout.splitlines() if "micro-batch refused" in line]
    assert len(refusal) == 1 and "c2.jsonl" in refusal[0], explain(done)
    assert "key 'c' holds value 9 0 time(s) but the batch removes it 1 time(s)" in refusal[0]
    assert "Traceback" not in done.stderr, explain(done)
    check_two_files_published(out / "reduce-sum", fold_inputs)
    view = out / "reduce-sum" / "view"
    done = client([*pipeline, "--on-invalid", "quarantine"], tmp_path)
    assert done.returncode == 0, explain(done)
    assert not bad.exists() and (out / "_quarantine" / "c2.jsonl").exists()
    assert dict(published(view / (view / "_LATEST").read_text().strip())) == fold_inputs([*FILES, after])


#: the engines that drive the JVM themselves, built on a Spark Connect session
ENGINES = """
import sys
from spark_impl.connect import NeedsJvm
from spark_impl.session import build_session
spark = build_session(sys.argv[1])
for build in (lambda: __import__("spark_impl.fixpoint.reachability", fromlist=["_"]).IncrementalReachability(spark),
              lambda: __import__("spark_impl.zset.dataflow", fromlist=["_"]).ZSetDataflow(spark, None)):
    try:
        build()
    except NeedsJvm as refusal:
        print(refusal.message)
"""


def test_the_engines_that_drive_the_jvm_refuse_a_connect_session(connect_server: str, tmp_path: Path) -> None:
    """The reachability and Z-set engines (local checkpoints, Spark's internal plan nodes
    through py4j, reliable checkpoints) refuse a Spark Connect session in one line each."""
    done = client(["-c", ENGINES, connect_server], tmp_path)
    assert done.returncode == 0, explain(done)
    assert done.stdout.splitlines() == [
        f"incspec: the {engine} needs the JVM (py4j); it does not run over Spark Connect (sc://...): "
        "run it with a local or cluster master"
        for engine in ("reachability engine (spark_impl.fixpoint)", "Z-set engine (spark_impl.zset)")]
