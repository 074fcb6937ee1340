"""Scratch frames of an engine update (spark_impl/storage/scratch.py): computed once,
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

    from spark_impl.storage.scratch import once

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
    from spark_impl.storage.scratch import Scratch, lost_scratch, once

    scratch = Scratch()
    outside = once(spark.range(5))
    with scratch.collecting():
        inside = once(spark.range(7))
        assert inside.count() == 7 and outside.count() == 5
    assert len(scratch) == 1
    scratch.release()
    assert len(scratch) == 0
    assert outside.count() == 5
    with pytest.raises(Exception) as missing:
        inside.count()
    assert lost_scratch(missing.value), missing.value  # what an engine retries on (spark_impl/fixpoint/reachability.py)


def _lineage_depth(df: Any) -> int:
    """The RDDs a task of ``df`` would carry (lines of Spark's lineage listing)."""
    return len(str(df._jdf.queryExecution().toRdd().toDebugString()).splitlines())


def test_frames_merged_round_after_round_keep_a_bounded_lineage(spark: Any) -> None:
    """The pattern of ``make``'s rounds: the frames settled so far, merged into
    one every few rounds, are read only through the next round's frontier. Had
    the frontier's checkpoint left its marked ancestors' lineage in place (Spark's
    default), each merge would carry every earlier one's (here: 27 lines within
    twelve rounds; ``make``'s rounds: 148 after 25 rounds, 593 after 100, and a
    task's stack overflowed after some 700); here it stays that of a few frames."""
    from spark_impl.storage.keyed_tables import merged_patches
    from spark_impl.storage.scratch import once

    seen: tuple[Any, ...] = ()
    frontier = once(spark.range(1))
    for i in range(12):
        seen = merged_patches(seen + (frontier,))
        fresh = spark.range(i, i + 3)
        for part in seen:
            fresh = fresh.join(part, "id", "left_anti")
        frontier = once(fresh)
        assert frontier.count() == (2 if i == 0 else 1)  # i + 2 is new (and i + 1 in the first round)
        assert max(_lineage_depth(part) for part in seen) <= 20
