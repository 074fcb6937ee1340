"""Files on a local path (``file://``), from this process: the file operations of
:class:`~spark_impl.storage.hadoop_fs.HadoopFS` without a JVM, for a Spark Connect session.

Over Spark Connect the client has no JVM and so no Hadoop ``FileSystem``; the data files are
still written by the server (DataFrame writes), and the folder operations around them
(listing, renaming a folder written aside into place, the ``_PUBLISHED`` marker, the
``_LATEST`` pointer, the checkpoint's commit log read for progress) are done here with the
operating system's calls. They reach the server's files only when a local path names the
same folder for both: the server on this machine, or the folder mounted at the same path.
A rename of a folder is atomic on a local file system, as with Hadoop's local one; a text
file is written aside, then put in place by one ``os.replace`` (a reader sees the old text
or the new).
"""

from __future__ import annotations

import os
import shutil
from urllib.parse import unquote, urlparse


def local_path(url: str) -> str | None:
    """The local path of ``url`` (``file:///a``, ``file:/a`` or a plain path), or None if it
    names another file system (``hdfs://``, ``s3a://``)."""
    if url.startswith("file:"):
        parsed = urlparse(url)
        if parsed.netloc not in ("", "localhost"):
            return None
        return unquote(parsed.path)
    if "://" in url:
        return None
    return os.path.abspath(url)


class LocalFS:
    """The local file system, addressed by ``file://`` URLs (or plain paths)."""

    @staticmethod
    def _path(url: str) -> str:
        path = local_path(url)
        if path is None:
            raise ValueError(f"not a local path: {url}")
        return path

    def exists(self, path: str) -> bool:
        return os.path.lexists(self._path(path))

    def delete(self, path: str) -> None:
        local = self._path(path)
        if os.path.isdir(local) and not os.path.islink(local):
            shutil.rmtree(local)
        elif os.path.lexists(local):
            os.remove(local)

    def mkdirs(self, path: str) -> None:
        os.makedirs(self._path(path), exist_ok=True)

    def rename(self, source: str, target: str) -> None:
        """Move ``source`` to ``target`` (its parent created); fails loudly, never half-done."""
        dest = self._path(target)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        if os.path.lexists(dest):
            raise OSError(f"could not rename {source} to {target}: the target exists")
        os.rename(self._path(source), dest)

    def copy(self, source: str, target: str) -> None:
        """Copy the file or folder ``source`` to ``target`` (absent)."""
        local = self._path(source)
        if os.path.isdir(local):
            shutil.copytree(local, self._path(target))
        else:
            shutil.copy2(local, self._path(target))

    def names(self, folder: str) -> list[str]:
        """The names in ``folder`` (none if it does not exist), sorted."""
        local = self._path(folder)
        return sorted(os.listdir(local)) if os.path.isdir(local) else []

    def count_dirs(self, folder: str, prefix: str) -> int:
        return sum(1 for name in self.names(folder) if name.startswith(prefix))

    def read_text(self, path: str) -> str | None:
        local = self._path(path)
        if not os.path.isfile(local):
            return None
        with open(local, encoding="utf-8") as source:
            return source.read()

    def write_text(self, path: str, text: str) -> None:
        """Write ``text`` to ``path`` atomically: aside, then one ``os.replace`` over the old file."""
        local = self._path(path)
        os.makedirs(os.path.dirname(local), exist_ok=True)
        aside = f"{local}.tmp"
        with open(aside, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(aside, local)
