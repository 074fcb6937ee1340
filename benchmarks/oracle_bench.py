"""The reference as an oracle: cost of one small incremental update against recomputing
from scratch, for the managed fixpoint, the reduce view and the Z-set ``step``.

    python -m benchmarks.oracle_bench                 # sizes 10^3, 10^4, 10^5
    python -m benchmarks.oracle_bench --sizes 1000 --reps 20
    python -m benchmarks.oracle_bench --structures fixpoint --sizes 1000000

Per size: the median wall time of one update (a single-edge delete or re-insert; one
value replaced under one key; one row changed) and of the recomputation it replaces, each
checked against the other, and what the structure stores after the run, checked against
the data the benchmark generated (fixpoint: the nodes and edges of the graph, n nodes and
about 4n edges from 3 roots, and the live set; fixpoint-star: a root's n children, and the
time ``make`` took; reduce: the keys; zset, zset-join: the rows of
each input; zset-iter: the edges, the live set and the iterations the loop reached).

Every state is persistent, so an update writes only what it touches and its ratio to the
recomputation grows with the size: the fixpoint's (FIX-DEC-PERSISTENT-STATE), the reduce
collection and view (SKIP-DEC-PERSISTENT-VIEW), the Z-set traces, arranged by key for join,
distinct and reduce (DD-DEC-PERSISTENT-TRACES). ``zset`` is a ``reduce count``; ``zset-join``
is ``distinct(map snd (join (filter fst_even A) B))`` (one row of A changes per version);
``zset-iter`` is reachability as an ``iterate`` over n nodes and about 2n edges, one edge
inserted or deleted per version, timed after 1,000 such versions: where a version's iterations
stop is read from the iterations each loop reached (DD-DEC-PERSISTENT-LOOPS), not from every
time of its traces, which grow with the versions. Its recomputation, the standard semantics
joining the whole collections at every iteration, takes minutes at 10^5 (about 25 iterations).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from benchmarks.workloads import REACH_PROGRAM
from reference.algebra.multiset import Multiset
from reference.algebra.persistent import PMap
from reference.algebra.zset import ZSet
from reference.differential.dataflow import (
    DifferentialState,
    Program,
    initial_state,
    program_from_json,
    standard_outputs,
    step,
)
from reference.fixpoint.managed import Change, ManagedFixpoint
from reference.reduce import BUILTINS, Collection, Delta, apply_delta, reduce, update_view


def timed(f: Callable[..., Any], *args: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    out = f(*args)
    return time.perf_counter() - start, out


def distances(roots: Sequence[int], fwd: dict[int, set[int]]) -> dict[int, int]:
    """Each node reachable from ``roots``, with its distance from them (breadth first)."""
    dist, queue = dict.fromkeys(roots, 0), deque(roots)
    while queue:
        x = queue.popleft()
        for y in fwd.get(x, ()):
            if y not in dist:
                dist[y] = dist[x] + 1
                queue.append(y)
    return dist


def bfs(roots: Sequence[int], fwd: dict[int, set[int]]) -> frozenset[int]:
    return frozenset(distances(roots, fwd))


def successors(edges: Sequence[tuple[int, int]]) -> dict[int, set[int]]:
    fwd: dict[int, set[int]] = {}
    for u, v in edges:
        fwd.setdefault(u, set()).add(v)
    return fwd


Result = tuple[float, float, str]  # median update, median recomputation, what is stored


def edge_flips(fx: ManagedFixpoint, roots: list[int], edges: list[tuple[int, int]], reps: int,
               rng: random.Random) -> tuple[ManagedFixpoint, list[float], list[float]]:
    """``reps`` random edges each removed then added back: the fixpoint after them, and
    the wall time of each update and of the breadth-first recomputation it replaces
    (each live set checked against the other)."""
    fwd = successors(edges)
    inc, full = [], []
    for _ in range(reps):
        e = edges[rng.randrange(len(edges))]
        for change in (Change(remove_edges=(e,)), Change(add_edges=(e,))):
            t, (fx, _) = timed(fx.apply, change)
            (fwd[e[0]].discard if change.remove_edges else fwd[e[0]].add)(e[1])
            s, live = timed(bfs, roots, fwd)
            assert fx.current == live
            inc.append(t)
            full.append(s)
    return fx, inc, full


def fixpoint(n: int, reps: int, rng: random.Random) -> Result:
    edges = list({(rng.randrange(n), rng.randrange(n)) for _ in range(4 * n)})
    roots = [0, 1, 2]
    fx, _ = ManagedFixpoint.make(roots, edges)
    nodes = {x for e in edges for x in e} | set(roots)
    fx, inc, full = edge_flips(fx, roots, edges, reps, rng)
    # what the value stores: every node of the graph, every edge once each way
    stored_nodes = set(fx.fwd) | set(fx.inv) | fx.roots
    assert stored_nodes == nodes and fx.roots == frozenset(roots)
    assert fx.edge_count == len(edges) == sum(map(len, fx.fwd.values())) == sum(map(len, fx.inv.values()))
    return (statistics.median(inc), statistics.median(full),
            f"nodes={len(stored_nodes)} edges={fx.edge_count} live={len(fx.current)}")


def fixpoint_star(n: int, reps: int, rng: random.Random) -> Result:
    """A root with ``n`` children (one adjacency entry of n nodes): ``make`` rebuilds that
    entry once, not once per edge (quadratic before), and an update touching it copies
    it (the entry is a frozenset: in proportion to the root's degree)."""
    edges = [(0, i) for i in range(1, n + 1)]
    made, (fx, _) = timed(ManagedFixpoint.make, [0], edges)
    fx, inc, full = edge_flips(fx, [0], edges, reps, rng)
    assert fx.edge_count == len(edges) == len(fx.fwd[0]) and set(fx.inv) == set(range(1, n + 1))
    return (statistics.median(inc), statistics.median(full),
            f"nodes={n + 1} edges={fx.edge_count} live={len(fx.current)} make={made:.2f}s")


def _reduce_update(R: Any, C: Collection, view: Mapping[Any, int], delta: Delta
                   ) -> tuple[PMap[Any, Multiset], PMap[Any, int]]:
    C_next = apply_delta(C, delta)
    return C_next, update_view(R, view, delta, C_next)


def reduce_view(n: int, reps: int, rng: random.Random) -> Result:
    R = BUILTINS["sum"].reducer
    C: Collection = PMap((k, Multiset.from_iterable(rng.randrange(100) for _ in range(4)))
                         for k in range(n))
    view: Mapping[Any, int] = PMap(reduce(R, C))
    inc, full = [], []
    for _ in range(reps):
        k = rng.randrange(n)
        old = next(iter(C[k].elements()))
        delta = Delta(plus={k: Multiset.of(rng.randrange(100))}, minus={k: Multiset.of(old)})

        t, (C, view) = timed(_reduce_update, R, C, view, delta)
        s, again = timed(reduce, R, dict(C))  # a plain dict: the fastest input to recompute from
        assert again == view
        inc.append(t)
        full.append(s)
    assert len(C) == len(view) == n
    return statistics.median(inc), statistics.median(full), f"keys={len(view)}"


class ZSetRun(NamedTuple):
    update: float  # median step
    recompute: float  # median recomputation
    collections: dict[str, ZSet]  # the inputs at the last version
    state: DifferentialState  # the state after it
    output: ZSet  # the output at it


def _zset_run(program: Program, first: dict[str, ZSet], deltas: Callable[[int], dict[str, ZSet]],
              reps: int, replay: int = 0) -> ZSetRun:
    """Load ``first``, replay the versions ``deltas(0 .. replay - 1)`` (untimed), then ``reps``
    one-row versions: median step against median recomputation."""
    state, previous = step(program, initial_state(), first)
    collections = dict(first)
    for i in range(replay):
        state, out = step(program, state, deltas(i))
        collections = {name: c + deltas(i).get(name, ZSet.zero()) for name, c in collections.items()}
        previous = previous + out
    inc, full = [], []
    for i in range(replay, replay + reps):
        d = deltas(i)
        t, (state, out) = timed(step, program, state, d)
        collections = {name: c + d.get(name, ZSet.zero()) for name, c in collections.items()}
        s, (now,) = timed(standard_outputs, program, [collections])
        assert now - previous == out  # a recomputing engine keeps the previous output
        previous = now
        inc.append(t)
        full.append(s)
    return ZSetRun(statistics.median(inc), statistics.median(full), collections, state, previous)


def zset_step(n: int, reps: int, rng: random.Random) -> Result:
    program = program_from_json({"inputs": ["A"], "output": {
        "op": "reduce", "agg": "count", "arg": {"op": "input", "name": "A"}}})
    first = {"A": ZSet.from_pairs([((rng.randrange(n // 4 + 1), i), 1) for i in range(n)])}
    run = _zset_run(program, first, lambda i: {"A": ZSet({(rng.randrange(n // 4 + 1), n + i): 1})}, reps)
    rows = len(run.collections["A"].support())
    assert rows == n + reps  # every row is distinct: (key, serial number)
    return run.update, run.recompute, f"rows={rows}"


def zset_join(n: int, reps: int, rng: random.Random) -> Result:
    """distinct(map snd (join (filter fst_even A) B)): n rows in A, n/10 in B, one row of A
    changes per version."""
    inp = [{"op": "input", "name": name} for name in ("A", "B")]
    program = program_from_json({"inputs": ["A", "B"], "output": {"op": "distinct", "arg": {
        "op": "map", "fn": "snd", "arg": {"op": "join", "right": inp[1], "left": {
            "op": "filter", "pred": "fst_even", "arg": inp[0]}}}}})
    keys = n // 4 + 1
    first = {"A": ZSet.from_pairs([((rng.randrange(keys), i), 1) for i in range(n)]),
             "B": ZSet.from_pairs([((rng.randrange(keys), -i), 1) for i in range(n // 10)])}
    run = _zset_run(program, first, lambda i: {"A": ZSet({(2 * rng.randrange(keys // 2), n + i): 1})}, reps)
    rows = {name: len(c.support()) for name, c in run.collections.items()}
    assert rows == {"A": n + reps, "B": n // 10}  # every row is distinct
    return run.update, run.recompute, f"rows={rows['A']}+{rows['B']}"


#: zset-iter: the one-edge versions replayed before the timed ones, so that those run on long traces
REPLAY = 1000


def zset_iterate(n: int, reps: int, rng: random.Random) -> Result:
    """Reachability as a loop (:data:`benchmarks.workloads.REACH_PROGRAM`): n nodes, about 2n
    random edges, roots 0, 1, 2; version 2i inserts an edge from a reachable node short of the
    greatest distance D to the fresh node n + i, version 2i + 1 deletes it. :data:`REPLAY` such
    versions are replayed before the ``reps`` timed ones."""
    program = program_from_json(REACH_PROGRAM)
    roots = [0, 1, 2]
    edges = sorted({(rng.randrange(n), rng.randrange(n)) for _ in range(2 * n)})
    dist = distances(roots, successors(edges))
    depth = max(dist.values())
    assert depth >= 1
    near = sorted(x for x, d in dist.items() if d < depth)
    fresh = [(rng.choice(near), n + i) for i in range((REPLAY + reps + 1) // 2)]
    first = {"roots": ZSet(dict.fromkeys(roots, 1)), "edges": ZSet(dict.fromkeys(edges, 1))}
    run = _zset_run(program, first, lambda i: {"edges": ZSet({fresh[i // 2]: 1 - 2 * (i % 2)})},
                    reps, REPLAY)
    kept = fresh[-1:] if (REPLAY + reps) % 2 else []  # an odd number of versions ends on an insert
    assert len(run.collections["edges"].support()) == len(edges) + len(kept)
    assert run.output == ZSet(dict.fromkeys([*dist, *(v for _, v in kept)], 1))
    # what the loop keeps (DD-DEC-PERSISTENT-LOOPS): its differences reached iteration D + 1
    # (the variable gains the nodes at distance D at iteration D; a fresh node is at most at D)
    assert run.state.reached[()] == {(): depth + 1}
    return (run.update, run.recompute, f"edges={len(edges) + len(kept)} live={len(run.output.support())} "
            f"iterations={depth + 1} versions={1 + REPLAY + reps}")


BENCHES: dict[str, Callable[[int, int, random.Random], Result]] = {
    "fixpoint": fixpoint, "fixpoint-star": fixpoint_star, "reduce": reduce_view, "zset": zset_step, "zset-join": zset_join,
    "zset-iter": zset_iterate}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.oracle_bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    p.add_argument("--reps", type=int, default=5, help="updates per size and structure")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--structures", nargs="+", choices=sorted(BENCHES), default=list(BENCHES))
    args = p.parse_args(argv)
    print(f"{'structure':<13} {'size':>8} {'update ms':>10} {'recompute ms':>13} {'speedup':>9}  stored")
    for name in args.structures:
        for n in args.sizes:
            t, s, stored = BENCHES[name](n, args.reps, random.Random(args.seed))
            print(f"{name:<13} {n:>8} {1000 * t:>10.3f} {1000 * s:>13.2f} {s / t:>8.1f}x  {stored}",
                  flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
