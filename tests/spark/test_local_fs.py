"""The local file system the pipeline uses over Spark Connect (spark_impl/storage/local_fs.py):
the operations of the Hadoop one, on ``file://`` URLs and plain paths, without a JVM."""

from __future__ import annotations

from pathlib import Path

import pytest

from spark_impl.storage.local_fs import LocalFS, local_path


def test_a_local_url_is_its_path_and_another_file_system_none(tmp_path: Path) -> None:
    assert local_path("file:///a/b%20c") == "/a/b c"
    assert local_path("file:/a/b") == "/a/b"
    assert local_path("file://localhost/a") == "/a"
    assert local_path("rel/x") == str(Path("rel/x").resolve())
    assert local_path("hdfs://nn:8020/a") is None and local_path("s3a://bucket/a") is None
    assert local_path("file://otherhost/a") is None


def test_folders_and_texts(tmp_path: Path) -> None:
    fs, root = LocalFS(), tmp_path.as_uri()
    assert fs.names(f"{root}/none") == [] and fs.read_text(f"{root}/none/x") is None
    fs.write_text(f"{root}/a/_LATEST", "v=1\n")
    fs.write_text(f"{root}/a/_LATEST", "v=2\n")  # replaced whole, nothing left aside
    assert fs.read_text(f"{root}/a/_LATEST") == "v=2\n" and fs.names(f"{root}/a") == ["_LATEST"]
    fs.mkdirs(f"{root}/staging/batch=0")
    fs.write_text(f"{root}/staging/batch=0/part", "x")
    fs.rename(f"{root}/staging/batch=0", f"{root}/changes/batch=0")  # the parent made
    assert fs.exists(f"{root}/changes/batch=0/part") and not fs.exists(f"{root}/staging/batch=0")
    assert fs.count_dirs(f"{root}/changes", "batch=") == 1
    fs.mkdirs(f"{root}/staging/batch=0")
    with pytest.raises(OSError):  # never into an existing folder (Hadoop's rename would nest it)
        fs.rename(f"{root}/staging/batch=0", f"{root}/changes/batch=0")
    fs.delete(f"{root}/changes")
    fs.delete(f"{root}/changes")  # gone already: nothing to do
    assert not fs.exists(f"{root}/changes")


@pytest.mark.parametrize("kind", ["local", "hadoop"])
def test_a_folder_is_copied_whole_and_left_in_place(spark: object, tmp_path: Path, kind: str) -> None:
    """``copy`` (the bulk view's run taken from a batch's folder): the folder's files, nested
    ones too, at the target; the source as it was."""
    from spark_impl.storage.hadoop_fs import HadoopFS

    root = tmp_path.as_uri()
    fs = LocalFS() if kind == "local" else HadoopFS(spark, root)  # type: ignore[arg-type]
    fs.write_text(f"{root}/batch/part-0", "rows")
    fs.write_text(f"{root}/batch/sub/part-1", "more")
    fs.copy(f"{root}/batch", f"{root}/state/run")
    assert fs.read_text(f"{root}/state/run/part-0") == "rows"
    assert fs.read_text(f"{root}/state/run/sub/part-1") == "more"
    assert fs.read_text(f"{root}/batch/part-0") == "rows"
