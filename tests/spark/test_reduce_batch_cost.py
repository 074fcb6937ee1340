"""A reduce micro-batch's fixed cost: its jobs, and how its input gets in (issue 33)."""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlparse

import pytest

pytestmark = pytest.mark.spark

SCHEMA = "k bigint, v bigint, w bigint"


class Runner:
    """A sum view stepped by a :class:`~spark_impl.reduce.view_runner.ViewRunner` whose batch
    handler counts the Spark jobs :meth:`MaintainedView.changes` runs."""

    def __init__(self, spark: Any, root: str) -> None:
        from benchmarks.measure import JobCounter
        from spark_impl.reduce.view_runner import ViewRunner

        self.spark, self.jobs = spark, JobCounter(spark)
        self.changes: list[dict[int, Any]] = []
        self.change_jobs: list[int] = []
        #: the physical plan of each micro-batch's changes, as the one job ran it
        self.change_plans: list[str] = []
        self.view_runner = ViewRunner(spark, "sum", "bigint", "bigint", root, self._sink)
        view = self.view_runner.view
        original_changes = view.changes

        def counted(batch: Any) -> Any:
            before = self.jobs.mark()
            out = original_changes(batch)
            self.change_jobs.append(self.jobs.mark() - before)
            self.change_plans.append(str(out._jdf.queryExecution().executedPlan().toString()))
            return out

        object.__setattr__(view, "changes", counted)  # a frozen dataclass: the test's probe only

    def _sink(self, changes: Any, batch_id: int) -> None:
        self.changes.append({r["key"]: r["accumulator"] if r["present"] else None
                             for r in changes.collect()})

    def step(self, rows: list[tuple[int, int, int]]) -> None:
        self.view_runner.step(self.spark.createDataFrame(rows, SCHEMA))

    def view(self) -> dict[int, int]:
        return {r["key"]: int(r["accumulator"]) for r in self.view_runner.read_view().collect()}


@pytest.fixture
def runner(spark: Any, tmp_path: Any) -> Any:
    r = Runner(spark, "file://" + str(tmp_path / "view"))
    yield r
    r.view_runner.stop()


@pytest.mark.spec("SKIP-DEC-SPARK-BATCH", evidence="example")
def test_a_group_micro_batch_is_changed_and_checked_in_one_job(runner: Runner) -> None:
    """Its changes and every count that could refuse it (invalid rows, overflows, Δ⁻ ⊆ C)
    come out of one Spark job, the batch's removals included."""
    runner.step([(1, 10, 1), (1, 20, 1), (2, 5, 1)])
    runner.step([(1, 10, -1), (1, 30, 1), (2, 5, -1), (3, 7, 2)])
    assert runner.change_jobs == [1, 1]
    assert runner.changes[-1] == {1: 50, 2: None, 3: 14}
    assert runner.view() == {1: 50, 3: 14}


@pytest.mark.spec("SKIP-DEC-SPARK-BATCH", evidence="example")
def test_the_one_job_aggregates_pairs_and_keys_by_hashing_not_sorting(runner: Runner) -> None:
    """Both aggregations of a micro-batch's one job hold numbers alone: the counts over strings
    (its first and last part) are observed on its rows, not aggregated with the numbers, which
    would make Spark sort every touched group (``SortAggregate``) instead of hashing them."""
    runner.step([(1, 10, 1), (1, 20, 1), (2, 5, 1)])
    runner.step([(1, 10, -1), (3, 7, 2)])
    for plan in runner.change_plans:
        assert plan.count("HashAggregate") == 2, plan
        assert "SortAggregate" not in plan, plan
    assert runner.changes[-1] == {1: 20, 3: 14}


def test_a_key_whose_entry_is_unchanged_is_no_change(runner: Runner) -> None:
    runner.step([(1, 10, 1), (2, 5, 1)])
    runner.step([(1, 10, -1), (1, 4, 1), (1, 6, 1), (2, 5, 1), (2, 5, -1)])
    assert runner.changes[-1] == {}


@pytest.mark.spec("SKIP-DEF-8", "SKIP-DEC-SPARK-BATCH", evidence="example")
def test_a_pair_removed_beyond_its_multiplicity_is_refused_and_the_state_kept(
        runner: Runner) -> None:
    """A pair both removed and added by one batch: ``after - added < 0`` refuses it, with
    the same facts as the part-by-part check (value 10 is there once, removed twice)."""
    from spark_impl.reduce.maintained_view import InvalidDelta

    runner.step([(1, 10, 1), (2, 5, 1)])
    with pytest.raises(InvalidDelta) as refused:
        runner.step([(1, 10, -2), (1, 10, 1), (2, 5, 1)])
    assert (refused.value.key, refused.value.value) == (1, 10)
    assert (refused.value.available, refused.value.removed) == (1, 2)
    runner.step([(2, 5, -1)])
    assert runner.changes[-1] == {2: None}
    assert runner.view() == {1: 10}


def test_a_data_frame_batch_is_written_as_partitioned_not_through_one_task(
        spark: Any, runner: Runner, tmp_path: Any) -> None:
    rows = spark.createDataFrame([(k, k, 1) for k in range(30)], SCHEMA).repartition(3)
    runner.view_runner.step(rows)
    folder = tmp_path / "view" / "input" / "batch-000000"
    assert len([n for n in os.listdir(folder) if n.endswith(".parquet")]) == 3
    assert runner.view() == {k: k for k in range(30)}


@pytest.mark.spec("SKIP-DEC-SPARK-BATCH", evidence="example")
def test_a_written_batch_is_moved_into_the_input_not_rewritten(
        spark: Any, runner: Runner, tmp_path: Any) -> None:
    written = "file://" + str(tmp_path / "written")
    spark.createDataFrame([(1, 4, 1), (2, 6, 3)], SCHEMA).write.parquet(written)
    names = sorted(os.listdir(urlparse(written).path))
    runner.view_runner.step_folder(written)
    assert not os.path.exists(urlparse(written).path)
    assert sorted(os.listdir(tmp_path / "view" / "input" / "batch-000000")) == names
    assert runner.view() == {1: 4, 2: 18}


@pytest.mark.spec("SKIP-DEF-8", evidence="example")
def test_a_refusal_names_the_first_breach_at_every_key_it_breaks(runner: Runner) -> None:
    """Key 1 loses value 10 twice (held once) and value 20 (not held), key 3 value 7 (not
    held): the refusal names key 1's first pair, and key 3's in ``others``; the state is kept."""
    from spark_impl.reduce.maintained_view import InvalidDelta

    runner.step([(1, 10, 1), (2, 5, 1)])
    with pytest.raises(InvalidDelta) as refused:
        runner.step([(1, 10, -2), (1, 20, -1), (2, 5, 1), (3, 7, -1)])
    named = [(r.key, r.value, r.available, r.removed) for r in (refused.value, *refused.value.others)]
    assert named == [(1, 10, 1, 2), (3, 7, 0, 1)]
    assert runner.view() == {1: 10, 2: 5}


@pytest.mark.spec("SKIP-DEC-SPARK-BATCH", evidence="example")
def test_a_query_checkpointed_on_the_local_disk_moves_its_files_by_rename(
        spark: Any, runner: Runner) -> None:
    """Its offsets (and its state store's files) are written by Spark's ``FileSystem``-based
    manager, set for the query's start only: the session keeps its own setting."""
    from spark_impl.reduce.view_runner import CHECKPOINT_FILE_MANAGER, RENAMING_FILE_MANAGER

    runner.step([(1, 10, 1)])
    query = runner.view_runner.query
    assert query is not None
    manager = query._jsq.streamingQuery().offsetLog().fileManager().getClass().getName()
    assert manager == RENAMING_FILE_MANAGER
    assert spark.conf.get(CHECKPOINT_FILE_MANAGER, None) is None
    runner.step([(1, 10, -1), (2, 3, 1)])
    assert runner.view() == {2: 3}


@pytest.mark.parametrize("checkpoint, renaming", [
    ("file:///tmp/view/checkpoint", True),
    ("hdfs://namenode:8020/views/view/checkpoint", False),
    ("s3a://bucket/view/checkpoint", False),
    ("views/view/checkpoint", False),  # resolved against the default file system, which may be HDFS
])
def test_only_a_checkpoint_on_the_local_disk_is_written_by_rename(
        spark: Any, checkpoint: str, renaming: bool) -> None:
    """Elsewhere Spark's default stays: a ``FileSystem`` rename onto an existing file fails on
    HDFS, where Spark's ``FileContext`` replaces a file it asks to replace."""
    from spark_impl.reduce.view_runner import (
        CHECKPOINT_FILE_MANAGER,
        RENAMING_FILE_MANAGER,
        query_start,
    )

    with query_start(spark, checkpoint, polling_delay="50ms"):
        assert spark.conf.get(CHECKPOINT_FILE_MANAGER, None) == (RENAMING_FILE_MANAGER if renaming else None)
        assert spark.conf.get("spark.sql.streaming.pollingDelay") == "50ms"
    assert spark.conf.get(CHECKPOINT_FILE_MANAGER, None) is None
