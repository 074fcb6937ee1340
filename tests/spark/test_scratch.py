"""Scratch frames of an engine update (spark_impl/scratch.py): computed once,
released on demand, and leaves that do not inherit their origin's size
estimate (which compounded over an update's rounds)."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.spark


def _size_in_bytes(df: Any) -> int:
    return int(str(df._jdf.queryExecution().analyzed().stats().sizeInBytes()))


def test_joined_scratch_frames_keep_a_bounded_size_estimate(spark: Any) -> None:
    """Twelve rounds, each joining the previous round's frame with itself: had
    each leaf kept its origin's estimate (Spark multiplies the sides of an inner
    join), the estimate would have ~19 · 2^12 digits; each leaf has Spark's
    default size, and a round's join the product of two of them."""
    from pyspark.sql import functions as F

    from spark_impl.scratch import once

    default = int(spark._jsparkSession.sessionState().conf().defaultSizeInBytes())
    frame = once(spark.range(3))
    for _ in range(12):
        frame = once(frame.join(frame.withColumnRenamed("id", "other"), F.col("id") == F.col("other"))
                     .select("id"))
        assert _size_in_bytes(frame) <= default
    assert _size_in_bytes(frame.join(frame.withColumnRenamed("id", "other"))) <= default ** 2
    assert sorted(r["id"] for r in frame.collect()) == [0, 1, 2]


def test_released_frames_free_their_blocks(spark: Any) -> None:
    """Frames made while a Scratch collects are its own; release frees their
    blocks (a later read fails loudly), frames made outside are left alone."""
    from spark_impl.scratch import Scratch, once

    scratch = Scratch()
    outside = once(spark.range(5))
    with scratch.collecting():
        inside = once(spark.range(7))
        assert inside.count() == 7 and outside.count() == 5
    assert len(scratch) == 1
    scratch.release()
    assert len(scratch) == 0
    assert outside.count() == 5
    with pytest.raises(Exception, match="CHECKPOINT_RDD_BLOCK_ID_NOT_FOUND|not found"):
        inside.count()
