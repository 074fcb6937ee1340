"""Work counters of the incremental fixpoint (FIX-CLAIM-COMPLEXITY) against the
size of the graph, and the edit sequences that break the printed pseudo-code
(FIX-CLAIM-PRINTED-CORRECT).

    python examples/fixpoint_work_counters.py [--sizes 1000 10000 100000] [--updates 20]

For each size n: a random graph with root 0, a random spanning tree (so every
node is live) plus 2n random extra edges; then single-edge updates: add an edge
from a live node to a new node, add a random edge between live nodes, remove a
random edge; then one edge that revives (and, removed, kills) a detached
chain of 500 nodes, a change whose size is known. The counters (elements visited, edges scanned) count what the
algorithm examines; the time is that work times a logarithm, the state being
persistent (FIX-DEC-PERSISTENT-STATE: an update writes only what it touches).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages first

from reference.fixpoint import worked_example as W  # noqa: E402
from reference.fixpoint.managed import Change, ManagedFixpoint, Update, Variant  # noqa: E402

VARIANTS: tuple[Variant, ...] = ("corrected", "printed")

CHAIN = 500  # a detached chain c0 -> c1 -> ... (dead until an edge reaches c0)


def random_graph(n: int, rng: random.Random) -> list[tuple[object, object]]:
    tree: list[tuple[object, object]] = [(rng.randrange(i), i) for i in range(1, n)]
    extra: list[tuple[object, object]] = [(rng.randrange(n), rng.randrange(n)) for _ in range(2 * n)]
    chain: list[tuple[object, object]] = [(f"c{i}", f"c{i + 1}") for i in range(CHAIN - 1)]
    return tree + extra + chain


def measure(m: ManagedFixpoint, make_change: Callable[[ManagedFixpoint], Change],
            updates: int) -> tuple[list[Update], float]:
    results, elapsed = [], 0.0
    for _ in range(updates):
        change = make_change(m)
        start = time.perf_counter()
        _, update = m.apply(change)  # always from the same state: independent single edits
        elapsed += time.perf_counter() - start
        results.append(update)
    return results, elapsed / updates


def summary(updates: list[Update]) -> str:
    els = [u.work.total.elements_visited for u in updates]
    eds = [u.work.total.edges_scanned for u in updates]
    delta = [len(u.added) + len(u.removed) for u in updates]
    churn = [len(u.churn) for u in updates]
    return (f"elements visited median {statistics.median(els):>5} max {max(els):>6} | "
            f"edges scanned median {statistics.median(eds):>5} max {max(eds):>6} | "
            f"|Δ| max {max(delta):>5} | churn max {max(churn):>5}")


def single_edge_cases(rng: random.Random, live: list[object], edge_list: list[tuple[object, object]]
                      ) -> list[tuple[str, Callable[[ManagedFixpoint], Change]]]:
    return [
        ("add edge to a new node", lambda _: Change(add_edges=((rng.choice(live), f"new{rng.random()}"),))),
        ("add edge between live nodes", lambda _: Change(add_edges=((rng.choice(live), rng.choice(live)),))),
        ("remove a random edge", lambda _: Change(remove_edges=(rng.choice(edge_list),))),
    ]


def work_counters(sizes: list[int], updates: int) -> None:
    print("== Work counters of single-edge updates (corrected algorithm, managed API) ==")
    for n in sizes:
        rng = random.Random(n)
        edges = random_graph(n, rng)
        start = time.perf_counter()
        m, made = ManagedFixpoint.make([0], edges)
        make_s = time.perf_counter() - start
        live = sorted(m.current, key=repr)
        edge_list = sorted(m.edges, key=repr)
        print(f"\nn = {n:,} nodes, {m.edge_count:,} edges, |current| = {len(m.current):,}; "
              f"make: {made.work.total.elements_visited:,} elements, "
              f"{made.work.total.edges_scanned:,} edges scanned, {make_s:.2f} s")
        cases = single_edge_cases(rng, live, edge_list)
        for name, make_change in cases:
            results, seconds = measure(m, make_change, updates)
            print(f"  {name:<28} x{updates}: {summary(results)} | {seconds * 1000:.1f} ms/update")
        # a change of known size: revive / kill the detached chain of CHAIN nodes
        link = (live[0], "c0")
        revived, up = m.apply(Change(add_edges=(link,)))
        _, down = revived.apply(Change(remove_edges=(link,)))
        for name, u in ((f"add edge reaching {CHAIN}-chain", up), ("remove it again", down)):
            print(f"  {name:<28}    : {summary([u])}")


def printed_counterexamples() -> None:
    print("\n== Edit sequences on which the printed pseudo-code (§3.2) is wrong ==")
    print("\n1. Immediately (§4.2 itself): from §4.1, add R -> E and E -> F")
    for variant in VARIANTS:
        m, _ = ManagedFixpoint.make(W.SETUP_ROOTS, W.SETUP_EDGES, variant=variant)
        m, u = m.apply(W.EXPANSION_CHANGE)
        print(f"   {variant:<9}: current = {sorted(m.current, key=repr)}  added = {sorted(u.added, key=repr)}")
    print("   truth    : ['A', 'B', 'C', 'D', 'E', 'F', 'R'] (the printed frontier base' \\ current is empty)")
    print("\n2. At a later contraction: from §4.5 (R -> B, R -> C, C -> B)")
    steps = ["remove R -> B (§4.5)", "add B -> C", "remove R -> C"]
    truths = [["B", "C", "R"], ["B", "C", "R"], ["R"]]
    for variant in VARIANTS:
        m, _ = ManagedFixpoint.make(W.STALE_ROOTS, W.STALE_EDGES, variant=variant)
        print(f"   {variant}:")
        for step, change, truth in zip(steps, W.PRINTED_LATER_EDITS, truths, strict=True):
            m, _ = m.apply(change)
            ok = "ok" if sorted(m.current, key=repr) == truth else f"WRONG (truth {truth})"
            ranks = dict(sorted(m.ranks.items(), key=repr))
            print(f"     {step:<22} current = {sorted(m.current, key=repr)!s:<17} ranks = {ranks}  {ok}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--updates", type=int, default=20)
    args = parser.parse_args()
    work_counters(args.sizes, args.updates)
    printed_counterexamples()


if __name__ == "__main__":
    main()
