"""The benchmarks under pytest (marker ``bench``; not part of the CI test command).

    pytest benchmarks -m bench                        # quick sizes (INCSPEC_BENCH_SCALE=0.01)
    INCSPEC_BENCH_SCALE=1 pytest benchmarks -m bench -s   # the issue's sizes

Each test prints its medians and ratios (run with ``-s`` to see them); the
figures of record come from ``python -m benchmarks.run``.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

pytestmark = [pytest.mark.bench, pytest.mark.spark]

SCALE = float(os.environ.get("INCSPEC_BENCH_SCALE", "0.01"))


def sized(x: float) -> int:
    return max(1, int(x * SCALE))


def test_reduce_incremental_against_recompute(spark: Any) -> None:
    from benchmarks import reduce_bench

    figures = reduce_bench.run(spark, sized(1e7), sized(1e5), sized(1e4), batches=3)
    assert figures["builtin_batch_median_s"] > 0 and figures["recompute_median_s"] > 0


def test_fixpoint_single_edge_against_recompute(spark: Any) -> None:
    from benchmarks import fixpoint_bench

    figures = fixpoint_bench.run(spark, sized(2e5), sized(1e6), updates=4, recomputes=1)
    assert figures["touched_median"] < figures["edges"]
