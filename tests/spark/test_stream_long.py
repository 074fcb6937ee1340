"""A long stream: the TCP receiver over :data:`ITEMS` items in micro-batches of 10^4
(2·10^5 items, 20 micro-batches, under dev and ci; 10^6 items, 100 micro-batches, under
the thorough profile), its state in the state store bounded by the reordering of the
network (§3.9), not by the input. The per-batch times are printed by
``benchmarks/stream_bench.py`` (never asserted here: a test must not depend on the
machine's speed)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.profiles import scenario_bound

pytestmark = [pytest.mark.spark, pytest.mark.slow]

#: items per micro-batch
BATCH = 10_000
ITEMS = scenario_bound(ci=200_000, thorough=1_000_000)


def test_tcp_receiver_over_a_long_stream_keeps_a_bounded_state(spark: Any) -> None:
    from benchmarks.stream_bench import run, tcp_items

    items = tcp_items(ITEMS, swap_every=50)
    figures = run("tcp_receiver", items, batches=ITEMS // BATCH, shuffle_partitions=2, spark=spark)
    assert figures["items"] >= ITEMS
    assert figures["micro_batches"] == ITEMS // BATCH
    # the next expected number, and at most the one packet a swapped pair holds ahead
    assert 1 <= figures["state_rows_max"] <= 2
