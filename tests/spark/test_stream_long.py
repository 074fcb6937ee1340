"""A long stream: the TCP receiver over 10^6 items in 100 micro-batches, its
state in the state store bounded by the reordering of the network (§3.9), not
by the input. The per-batch times are printed by ``benchmarks/stream_bench.py``
(never asserted here: a test must not depend on the machine's speed)."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = [pytest.mark.spark, pytest.mark.slow]


def test_tcp_receiver_over_a_million_items_keeps_a_bounded_state(spark: Any) -> None:
    from benchmarks.stream_bench import run, tcp_items

    items = tcp_items(1_000_000, swap_every=50)
    figures = run("tcp_receiver", items, batches=100, shuffle_partitions=2, spark=spark)
    assert figures["items"] >= 1_000_000
    assert figures["micro_batches"] == 100
    # the next expected number, and at most the one packet a swapped pair holds ahead
    assert 1 <= figures["state_rows_max"] <= 2
