"""What a streaming query's checkpoint records, read back: its committed micro-batches, each
micro-batch's source offsets and watermark, and the files its file source read.

Spark writes, under a query's checkpoint:

- ``commits/N`` once micro-batch ``N`` is committed, ``offsets/N`` once it is planned: a
  version line, a line of metadata (``batchWatermarkMs`` among it, the watermark the
  micro-batch runs under), then one line per source of the plan, in plan order (a file
  source's line is ``{"logOffset": L}``);
- ``sources/S/L`` for a file source ``S``: the files of the source's own batch ``L``, one JSON
  line each after a version line (every tenth log is compacted with all before it, as
  ``L.compact``).

A source's batches are numbered by the source, not by the query: a micro-batch that brings
no new file from source ``S`` (one of another source's files alone, as a compaction's
generation folder is: spark_impl/reduce/group_generations.py) leaves its offset where it
was. So the files of micro-batch ``N`` are the source's batches after the offset of ``N - 1``
up to the offset of ``N``, never "the source batch numbered ``N``".
"""

from __future__ import annotations

import json
from typing import Any

from spark_impl.storage.files import FileSystem

#: in ``offsets/N``: the version line and the metadata line before the sources' lines
_HEADER_LINES = 2


def latest_batch(fs: FileSystem, folder: str) -> int | None:
    """The largest micro-batch id among a checkpoint log's files (``offsets``, ``commits``)."""
    ids = [int(name) for name in fs.names(folder) if name.isdigit()]
    return max(ids) if ids else None


def last_committed(fs: FileSystem, checkpoint: str) -> int | None:
    """The query's last committed micro-batch (None: none yet)."""
    return latest_batch(fs, f"{checkpoint}/commits")


def _offsets(fs: FileSystem, checkpoint: str, batch: int) -> list[str] | None:
    text = fs.read_text(f"{checkpoint}/offsets/{batch}")
    return None if text is None else text.splitlines()


def batch_metadata(fs: FileSystem, checkpoint: str, batch: int) -> dict[str, Any] | None:
    """Micro-batch ``batch``'s metadata as planned (``batchWatermarkMs``, ``conf``, ...);
    None if it was not planned."""
    lines = _offsets(fs, checkpoint, batch)
    if lines is None or len(lines) < _HEADER_LINES:
        return None
    metadata: dict[str, Any] = json.loads(lines[1])
    return metadata


def source_offset(fs: FileSystem, checkpoint: str, batch: int, source: int = 0) -> int | None:
    """The log offset of file source ``source`` that micro-batch ``batch`` reads up to (None:
    not planned, or the source had read nothing yet)."""
    lines = _offsets(fs, checkpoint, batch)
    if lines is None or len(lines) <= _HEADER_LINES + source:
        return None
    line = lines[_HEADER_LINES + source].strip()
    if not line or line == "-":  # a source with no offset yet
        return None
    offset = json.loads(line)
    return int(offset["logOffset"]) if isinstance(offset, dict) and "logOffset" in offset else None


def _source_entries(fs: FileSystem, checkpoint: str, source: int, log_batch: int) -> list[dict[str, Any]]:
    """The file entries of source ``source``'s own batch ``log_batch``: in its log, or in the
    first compacted log after it (which holds every entry up to its own)."""
    folder = f"{checkpoint}/sources/{source}"
    text = fs.read_text(f"{folder}/{log_batch}")
    if text is None:
        compacted = sorted(int(n.removesuffix(".compact")) for n in fs.names(folder)
                           if n.endswith(".compact") and n.removesuffix(".compact").isdigit())
        after = [c for c in compacted if c >= log_batch]
        text = fs.read_text(f"{folder}/{after[0]}.compact") if after else None
    if text is None:
        return []
    entries = [json.loads(line) for line in text.splitlines()[1:] if line.strip()]
    return [e for e in entries if e["batchId"] == log_batch]


def batch_files(fs: FileSystem, checkpoint: str, batch: int, source: int = 0) -> list[str]:
    """The files file source ``source`` brings to micro-batch ``batch`` (planned, committed or
    not); none if the micro-batch was not planned or brings none of that source's."""
    upto = source_offset(fs, checkpoint, batch, source)
    if upto is None:
        return []
    before = source_offset(fs, checkpoint, batch - 1, source) if batch > 0 else None
    return _files(fs, checkpoint, source, 0 if before is None else before + 1, upto)


def committed_files(fs: FileSystem, checkpoint: str, source: int = 0) -> list[str]:
    """Every file that file source ``source`` brought to a committed micro-batch, in order."""
    last = last_committed(fs, checkpoint)
    upto = None if last is None else source_offset(fs, checkpoint, last, source)
    if upto is None:
        return []
    return _files(fs, checkpoint, source, 0, upto)


def _files(fs: FileSystem, checkpoint: str, source: int, first: int, last: int) -> list[str]:
    """The files of source ``source``'s own batches ``first`` to ``last``, in order."""
    return [e["path"] for log_batch in range(first, last + 1)
            for e in _source_entries(fs, checkpoint, source, log_batch)]
