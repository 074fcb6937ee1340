"""The file system serving a path, for the session at hand: Hadoop's through the JVM
(:class:`~spark_impl.storage.hadoop_fs.HadoopFS`) on a classic session, the local one
(:class:`~spark_impl.storage.local_fs.LocalFS`) over Spark Connect, where the client holds
no JVM (:mod:`spark_impl.connect`); another path over Spark Connect is refused in one line.
"""

from __future__ import annotations

from typing import Any, Protocol

from spark_impl.connect import NeedsJvm, is_connect
from spark_impl.storage.local_fs import LocalFS, local_path


class FileSystem(Protocol):
    """The folder and text-file operations the pipeline and the view runner do themselves."""

    def exists(self, path: str) -> bool: ...
    def delete(self, path: str) -> None: ...
    def mkdirs(self, path: str) -> None: ...
    def rename(self, source: str, target: str) -> None: ...
    def copy(self, source: str, target: str) -> None: ...
    def names(self, folder: str) -> list[str]: ...
    def count_dirs(self, folder: str, prefix: str) -> int: ...
    def read_text(self, path: str) -> str | None: ...
    def write_text(self, path: str, text: str) -> None: ...


def file_system(spark: Any, root: str) -> FileSystem:
    """The file system serving ``root`` for ``spark`` (see the module docstring)."""
    if not is_connect(spark):
        from spark_impl.storage.hadoop_fs import HadoopFS

        return HadoopFS(spark, root)
    if local_path(root) is None:
        raise NeedsJvm(f"the path {root} (Hadoop's FileSystem; over Spark Connect only local "
                       "paths are supported)")
    return LocalFS()
