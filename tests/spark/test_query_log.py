"""Reading a streaming query's checkpoint back (spark_impl/storage/query_log.py): which files
a micro-batch read, when its sources advance apart (a group view's input and its generation
folders are two file sources of one query: spark_impl/reduce/group_generations.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.spark


def _file(folder: Path, name: str, spark: Any) -> str:
    """One Parquet file ``name`` of one row in ``folder``; its URL."""
    staging = folder.parent / f".{name}"
    spark.createDataFrame([(name,)], "n string").coalesce(1).write.parquet(str(staging))
    (part,) = staging.glob("part-*.parquet")
    folder.mkdir(exist_ok=True)
    part.rename(folder / f"{name}.parquet")
    return f"file://{folder / name}.parquet"


def test_a_micro_batch_reads_the_files_of_each_source_since_the_one_before(spark: Any, tmp_path: Path) -> None:
    """A query over two folders, A and B, run to the end of its input three times: a file in
    A, a file in B alone, a file in A. Micro-batch 1 brings A nothing, micro-batch 2 brings A's
    second file, which A's own log numbers 1: the files of a micro-batch are found from its
    offsets, not by its number. Before, the pipeline read A's log numbered 2 for micro-batch 2
    (none: ``incspec pipeline`` would not have seen that micro-batch's input go missing).
    With A's log compacted every 2 (as Spark does every 10) and its first log gone, as
    Spark's clean-up leaves it, the entries are read from the compacted log."""
    from spark_impl.storage.local_fs import LocalFS
    from spark_impl.storage.query_log import batch_files, committed_files

    a, b, checkpoint = tmp_path / "a", tmp_path / "b", f"file://{tmp_path}/checkpoint"
    spark.conf.set("spark.sql.streaming.fileSource.log.compactInterval", "2")
    try:
        def read(folder: Path) -> Any:
            folder.mkdir(exist_ok=True)
            return spark.readStream.schema("n string").parquet(str(folder))

        def run_to_the_end() -> None:
            query = (read(a).unionByName(read(b)).writeStream.format("noop")
                     .option("checkpointLocation", checkpoint).trigger(availableNow=True).start())
            query.awaitTermination()

        first = _file(a, "a1", spark)
        run_to_the_end()
        only_b = _file(b, "b1", spark)
        run_to_the_end()
        second = _file(a, "a2", spark)
        run_to_the_end()
    finally:
        spark.conf.unset("spark.sql.streaming.fileSource.log.compactInterval")
    fs = LocalFS()
    assert [batch_files(fs, checkpoint, n) for n in range(3)] == [[first], [], [second]]
    assert [batch_files(fs, checkpoint, n, source=1) for n in range(3)] == [[], [only_b], []]
    assert batch_files(fs, checkpoint, 3) == []  # not planned
    assert sorted(p.name for p in (tmp_path / "checkpoint" / "sources" / "0").iterdir()
                  if not p.name.startswith(".")) == ["0", "1.compact"]
    (tmp_path / "checkpoint" / "sources" / "0" / "0").unlink()
    assert committed_files(fs, checkpoint) == [first, second]
    assert batch_files(fs, checkpoint, 0) == [first]
