"""The oracle benchmark's loop structure (``zset-iter``): its timed one-edge versions run after
a long replay, are checked against recomputation, and it states what the loop keeps."""

from __future__ import annotations

import random

from benchmarks import oracle_bench


def test_the_loop_structure_checks_its_updates_and_states_what_it_stores() -> None:
    update, recompute, stored = oracle_bench.zset_iterate(300, 3, random.Random(1))
    assert 0 < update and 0 < recompute
    fields = dict(item.split("=") for item in stored.split())
    assert set(fields) == {"edges", "live", "iterations", "versions"}
    assert int(fields["versions"]) == 1 + oracle_bench.REPLAY + 3
    assert 0 < int(fields["live"]) <= 300 + 1 and int(fields["iterations"]) >= 2
    assert "zset-iter" in oracle_bench.BENCHES


def test_the_star_structure_checks_its_updates_and_states_what_it_stores() -> None:
    update, recompute, stored = oracle_bench.fixpoint_star(200, 2, random.Random(1))
    assert 0 < update and 0 < recompute
    fields = dict(item.split("=") for item in stored.split())
    assert {k: fields[k] for k in ("nodes", "edges", "live")} == {"nodes": "201", "edges": "200", "live": "201"}
    assert fields["make"].endswith("s") and "fixpoint-star" in oracle_bench.BENCHES
