"""How many hash buckets a fold view spreads its keys over, recorded with its checkpoint.

A fold reducer's operator (:mod:`spark_impl.reduce.keyed_fold`) keeps key ``k``'s
state under the bucket ``hash(k) mod B``. Restarted with another ``B``, the
operator would look ``k`` up under another bucket, where its state is not: the
view would forget keys and mix others. So ``B`` is chosen at the first run and
recorded in the checkpoint (file ``fold-buckets.json``); a restart uses the
recorded count, and one asking for a different count is refused before
anything runs, the state untouched.

The default is the session's ``spark.sql.shuffle.partitions``: the operator's
state has that many partitions (a number Spark too fixes at the first run and
keeps in the checkpoint), so fewer buckets leave partitions, hence tasks, idle,
and more only add Python calls (one per bucket and micro-batch).
"""

from __future__ import annotations

import json

from pyspark.sql import SparkSession

from spark_impl.errors import SparkEngineError
from spark_impl.storage.files import file_system

BUCKETS_FILE = "fold-buckets.json"

#: the count of checkpoints written before it was recorded (a constant then)
UNRECORDED_BUCKETS = 8


def session_buckets(spark: SparkSession) -> int:
    """The default bucket count: the session's shuffle partitions, the operator's state partitions."""
    return int(spark.conf.get("spark.sql.shuffle.partitions") or 1)


def fold_buckets(spark: SparkSession, checkpoint: str | None, requested: int | None = None) -> int:
    """The bucket count of the fold view checkpointed in ``checkpoint``: the recorded one,
    else ``requested`` (default :func:`session_buckets`), then recorded. Without a
    checkpoint nothing is recorded: the caller keeps the count the same across restarts."""
    if requested is not None and requested < 1:
        raise SparkEngineError("malformed-input", f"a fold view needs at least 1 bucket, not {requested}")
    if checkpoint is None:
        return requested or session_buckets(spark)
    recorded = _recorded(spark, checkpoint)
    if recorded is None:
        chosen = requested or session_buckets(spark)
        file_system(spark, checkpoint).write_text(_path(checkpoint), json.dumps({"buckets": chosen}))
        return chosen
    if requested is not None and requested != recorded:
        raise SparkEngineError(
            "unsupported",
            f"the checkpoint {checkpoint} keeps its fold state in {recorded} hash buckets, so it "
            f"cannot be restarted with {requested} (keys would be looked up in the wrong bucket): "
            f"ask for {recorded}, or for none, or start a new checkpoint")
    return recorded


def _path(checkpoint: str) -> str:
    return f"{checkpoint.rstrip('/')}/{BUCKETS_FILE}"


def _recorded(spark: SparkSession, checkpoint: str) -> int | None:
    """The recorded count; :data:`UNRECORDED_BUCKETS` for a checkpoint with committed
    micro-batches from before the count was recorded; ``None`` for a new checkpoint."""
    fs = file_system(spark, checkpoint)
    text = fs.read_text(_path(checkpoint))
    if text is not None:
        return int(json.loads(text)["buckets"])
    committed = any(name.isdigit() for name in fs.names(f"{checkpoint.rstrip('/')}/commits"))
    return UNRECORDED_BUCKETS if committed else None
