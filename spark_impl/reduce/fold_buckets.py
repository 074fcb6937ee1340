"""How many hash buckets a fold view spreads its keys over, and its state's layout,
recorded with its checkpoint.

A fold reducer's operator (:mod:`spark_impl.reduce.keyed_fold`) keeps key ``k``'s
state under the bucket ``hash(k) mod B``. Restarted with another ``B``, the
operator would look ``k`` up under another bucket, where its state is not: the
view would forget keys and mix others. So ``B`` is chosen at the first run and
recorded in the checkpoint (file ``fold-buckets.json``); a restart uses the
recorded count, and one asking for a different count is refused before
anything runs, the state untouched.

The record also holds the state's layout (:data:`~spark_impl.reduce.keyed_fold.STATE_LAYOUT`):
a checkpoint written in another layout (layout 1 kept a key's whole multiset as one JSON
text, and recorded no layout; a checkpoint from before the bucket count was recorded is one
too) is refused with one clear error rather than misread.

The default is the session's ``spark.sql.shuffle.partitions``: the operator's
state has that many partitions (a number Spark too fixes at the first run and
keeps in the checkpoint), so fewer buckets leave partitions, hence tasks, idle,
and more only add Python calls (one per bucket and micro-batch).
"""

from __future__ import annotations

import json

from pyspark.sql import SparkSession

from spark_impl.errors import SparkEngineError
from spark_impl.reduce.keyed_fold import STATE_LAYOUT
from spark_impl.storage.files import file_system

BUCKETS_FILE = "fold-buckets.json"

#: the layout of a checkpoint that records none: its state is a key's multiset as one JSON text
UNRECORDED_LAYOUT = 1

#: what each layout keeps, for the refusal's message
LAYOUTS = {1: "each key's multiset as one JSON text", 2: "one entry per (key, value)"}


def session_buckets(spark: SparkSession) -> int:
    """The default bucket count: the session's shuffle partitions, the operator's state partitions."""
    return int(spark.conf.get("spark.sql.shuffle.partitions") or 1)


def fold_buckets(spark: SparkSession, checkpoint: str | None, requested: int | None = None) -> int:
    """The bucket count of the fold view checkpointed in ``checkpoint``: the recorded one,
    else ``requested`` (default :func:`session_buckets`), then recorded with the state's
    layout; a checkpoint in another layout is refused. Without a checkpoint nothing is
    recorded: the caller keeps the count the same across restarts."""
    if requested is not None and requested < 1:
        raise SparkEngineError("malformed-input", f"a fold view needs at least 1 bucket, not {requested}")
    if checkpoint is None:
        return requested or session_buckets(spark)
    recorded = _recorded(spark, checkpoint)
    if recorded is None:
        chosen = requested or session_buckets(spark)
        record = {"buckets": chosen, "layout": STATE_LAYOUT}
        file_system(spark, checkpoint).write_text(_path(checkpoint), json.dumps(record))
        return chosen
    buckets, layout = recorded
    if layout != STATE_LAYOUT:
        raise SparkEngineError(
            "unsupported",
            f"the checkpoint {checkpoint} keeps its fold state in layout {layout} "
            f"({LAYOUTS.get(layout, 'unknown')}), which this version cannot read (it keeps "
            f"layout {STATE_LAYOUT}: {LAYOUTS[STATE_LAYOUT]}): start a new checkpoint and load "
            f"the collection into it again")
    if requested is not None and requested != buckets:
        raise SparkEngineError(
            "unsupported",
            f"the checkpoint {checkpoint} keeps its fold state in {buckets} hash buckets, so it "
            f"cannot be restarted with {requested} (keys would be looked up in the wrong bucket): "
            f"ask for {buckets}, or for none, or start a new checkpoint")
    return buckets


def _path(checkpoint: str) -> str:
    return f"{checkpoint.rstrip('/')}/{BUCKETS_FILE}"


def _recorded(spark: SparkSession, checkpoint: str) -> tuple[int, int] | None:
    """The recorded ``(buckets, layout)``; for a checkpoint with committed micro-batches from
    before the count was recorded, ``(8, 1)`` (the count was the constant 8 then); ``None``
    for a new checkpoint."""
    fs = file_system(spark, checkpoint)
    text = fs.read_text(_path(checkpoint))
    if text is not None:
        record = json.loads(text)
        return int(record["buckets"]), int(record.get("layout", UNRECORDED_LAYOUT))
    committed = any(name.isdigit() for name in fs.names(f"{checkpoint.rstrip('/')}/commits"))
    return (8, UNRECORDED_LAYOUT) if committed else None
