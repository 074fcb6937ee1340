"""Where the engines checkpoint their state (spark_impl.session.checkpoint_dir): the
location the user gives, a temp folder on a local master, and on a cluster no default
(a folder of the driver's disk would land on each executor's own local disk)."""

from __future__ import annotations

import os

import pytest

from spark_impl.errors import SparkEngineError
from spark_impl.session import CHECKPOINT_ENV, checkpoint_dir


def test_the_given_location_wins_on_any_master(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CHECKPOINT_ENV, "hdfs://namenode:8020/views/ckpt")
    assert checkpoint_dir("spark://master:7077") == "hdfs://namenode:8020/views/ckpt"
    assert checkpoint_dir("local[2]") == "hdfs://namenode:8020/views/ckpt"


def test_a_local_master_gets_a_fresh_temp_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CHECKPOINT_ENV, raising=False)
    first, second = checkpoint_dir("local[2]"), checkpoint_dir("local-cluster[2,1,1024]")
    assert first != second and os.path.isdir(first) and os.path.isdir(second)


def test_a_cluster_without_a_location_is_refused_with_what_to_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CHECKPOINT_ENV, raising=False)
    with pytest.raises(SparkEngineError) as refused:
        checkpoint_dir("spark://master:7077")
    assert CHECKPOINT_ENV in refused.value.message and "spark://master:7077" in refused.value.message
