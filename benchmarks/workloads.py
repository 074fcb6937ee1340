"""Workload generators that say what they make.

Every generator is deterministic (a seed) and declares its *intent*: the
stored sizes an engine must end up holding (:class:`Intent`). The guard
(:mod:`benchmarks.guard`) compares those with what each engine reports it
stores and refuses to report when they disagree, so a generator whose rows
collapse (the old ``k = i mod 10^5, v = 7919·i mod 1000``: one distinct value
per key, 10^7 nominal rows stored as 10^5) cannot produce a figure.

Reduce (:class:`ReduceWorkload`): ``rows`` rows ``(id, k, v)`` over ``keys``
keys, uniform or Zipf-skewed, each row a *distinct* ``(k, v)`` pair (the
``j``-th value of key ``k`` is ``(j·7919 + k·104729) mod 2^31``, distinct in
``j``), so the stored size, distinct ``(k, v)`` rows, is ``rows`` exactly and
a key holds ``rows / keys`` values on average (10 by default). A batch of
``b`` changes deletes ``b/2`` live rows (chosen uniformly) and inserts ``b/2``
fresh ones, so the collection keeps its size.

Reachability (:class:`GraphWorkload`): ``edges`` distinct directed edges,
roots ``0..roots-1``, of one shape: ``random`` (uniform endpoints), ``power``
(half the sources Zipf-skewed: hubs of high out-degree, the roots among them), ``chain`` (``0 → 1 → … → n-1``: one
cascade as deep as the graph) or ``grid`` (right and down edges of a square
grid, plus diagonals up to ``edges``: cascades of depth ``~2√n``). A batch of ``b`` changes removes ``b/2``
live edges and adds ``b/2``: the edges removed earliest first (so a chain
heals), then fresh ones of the same shape, keeping the edge count.

Rows and edges carry an ``id`` so that peers keyed by row identity (pathway)
retract exactly the row that was inserted.
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

KeySkew = Literal["uniform", "zipf"]
GraphShape = Literal["random", "power", "chain", "grid"]

VALUE_MODULUS = 2**31


@dataclass(frozen=True)
class Bound:
    """An expected stored size: ``exact``, or within ``[low, high]``."""

    low: float
    high: float

    @staticmethod
    def exactly(n: float) -> Bound:
        return Bound(n, n)

    def holds(self, measured: float) -> bool:
        return self.low <= measured <= self.high

    def describe(self) -> str:
        if self.low == self.high:
            return f"exactly {self.low:,.0f}"
        return f"in [{self.low:,.1f}, {self.high:,.1f}]"


@dataclass(frozen=True)
class Intent:
    """What a generator means to make: nominal parameters and expected stored sizes."""

    nominal: dict[str, Any]
    expected: dict[str, Bound]


class Growable:
    """Parallel int64 columns with O(batch) removal (swap in from the tail) and append."""

    def __init__(self, columns: dict[str, np.ndarray]) -> None:
        self.n = len(next(iter(columns.values())))
        self.cols = {name: np.array(col, dtype=np.int64) for name, col in columns.items()}

    def take(self, positions: np.ndarray) -> dict[str, np.ndarray]:
        """Remove the rows at the distinct ``positions``; return them."""
        out = {name: col[positions].copy() for name, col in self.cols.items()}
        d, tail = len(positions), self.n - len(positions)
        holes = positions[positions < tail]
        movers = np.setdiff1d(np.arange(tail, self.n), positions, assume_unique=True)
        for col in self.cols.values():
            col[holes] = col[movers]
        self.n = tail
        assert len(holes) == len(movers) and d >= 0
        return out

    def append(self, rows: dict[str, np.ndarray]) -> None:
        m = len(next(iter(rows.values())))
        need = self.n + m
        for name, col in list(self.cols.items()):
            if need > len(col):
                grown = np.empty(max(need, 2 * len(col)), dtype=np.int64)
                grown[: self.n] = col[: self.n]
                self.cols[name] = grown
            self.cols[name][self.n: need] = rows[name]
        self.n = need

    def column(self, name: str) -> np.ndarray:
        return self.cols[name][: self.n]


class Digest:
    """A running SHA-256 of the frames a stream hands out: two processes that claim to
    feed the same data compare digests (a peer regenerates the stream in a child)."""

    def __init__(self) -> None:
        self.h = hashlib.sha256()

    def add(self, frame: pd.DataFrame) -> pd.DataFrame:
        for name in sorted(frame.columns):
            self.h.update(name.encode())
            self.h.update(np.ascontiguousarray(frame[name].to_numpy(dtype=np.int64)).tobytes())
        return frame

    def hexdigest(self) -> str:
        return self.h.hexdigest()


@dataclass(frozen=True)
class ReduceWorkload:
    """A keyed collection and its change batches (see the module docstring)."""

    rows: int
    keys: int
    skew: KeySkew = "uniform"
    zipf_s: float = 1.1
    seed: int = 7

    @property
    def values_per_key(self) -> float:
        return self.rows / self.keys

    def describe(self) -> dict[str, Any]:
        return {"kind": "reduce", **asdict(self), "values_per_key": self.values_per_key}

    def _key_probabilities(self) -> np.ndarray | None:
        if self.skew == "uniform":
            return None
        weights: np.ndarray = 1.0 / np.arange(1, self.keys + 1, dtype=np.float64) ** self.zipf_s
        probabilities: np.ndarray = weights / weights.sum()
        return probabilities

    def intent(self) -> Intent:
        """Stored rows: exactly ``rows``; distinct keys: their expectation ±3% (+3)."""
        p = self._key_probabilities()
        probs = np.full(self.keys, 1.0 / self.keys) if p is None else p
        expected_keys = float(np.sum(-np.expm1(self.rows * np.log1p(-probs))))
        slack = 0.03 * expected_keys + 3
        return Intent(
            nominal=self.describe(),
            expected={"rows": Bound.exactly(self.rows),
                      "keys": Bound(max(1.0, expected_keys - slack), expected_keys + slack)},
        )

    def stream(self) -> ReduceStream:
        return ReduceStream(self)


class ReduceStream:
    """The collection of a :class:`ReduceWorkload`, then its batches, in order."""

    def __init__(self, spec: ReduceWorkload) -> None:
        self.spec = spec
        self.rng = np.random.default_rng(spec.seed)
        self.p = spec._key_probabilities()
        self.counts = np.zeros(spec.keys, dtype=np.int64)  # values issued per key
        self.next_id = 1
        self.live = Growable(self._fresh(spec.rows))

    def _draw_keys(self, n: int) -> np.ndarray:
        if self.p is None:
            return self.rng.integers(0, self.spec.keys, n, dtype=np.int64)
        return self.rng.choice(self.spec.keys, size=n, p=self.p).astype(np.int64)

    def _fresh(self, n: int) -> dict[str, np.ndarray]:
        k = self._draw_keys(n)
        # j = the occurrence number of k: counts[k] before this batch + rank within it
        order = np.argsort(k, kind="stable")
        sk = k[order]
        starts = np.r_[0, np.flatnonzero(np.diff(sk)) + 1]
        run_start = np.repeat(starts, np.diff(np.r_[starts, n]))
        j = np.empty(n, dtype=np.int64)
        j[order] = self.counts[sk] + (np.arange(n) - run_start)
        np.add.at(self.counts, k, 1)
        v = (j * 7919 + k * 104729) % VALUE_MODULUS
        ids = np.arange(self.next_id, self.next_id + n, dtype=np.int64)
        self.next_id += n
        return {"id": ids, "k": k, "v": v}

    def initial(self) -> pd.DataFrame:
        """The collection: columns ``id, k, v`` (one row per stored ``(k, v)``)."""
        return pd.DataFrame({c: self.live.column(c).copy() for c in ("id", "k", "v")})

    def batch(self, size: int) -> pd.DataFrame:
        """``size`` changes ``(id, k, v, w)``: ``w = -1`` deletes a live row, ``+1`` inserts."""
        gone_n = min(size // 2, self.live.n)
        gone = self.live.take(self.rng.choice(self.live.n, gone_n, replace=False))
        new = self._fresh(size - gone_n)
        self.live.append(new)
        frame = pd.DataFrame({c: np.concatenate([gone[c], new[c]]) for c in ("id", "k", "v")})
        frame["w"] = np.r_[np.full(gone_n, -1, dtype=np.int64), np.ones(size - gone_n, dtype=np.int64)]
        return frame

    def live_rows(self) -> int:
        return self.live.n

    def live_keys(self) -> int:
        return int(np.unique(self.live.column("k")).size)


@dataclass(frozen=True)
class GraphWorkload:
    """A directed graph with roots, and its change batches (see the module docstring)."""

    edges: int
    shape: GraphShape = "random"
    avg_degree: float = 2.0
    roots: int = 10
    zipf_s: float = 1.2
    seed: int = 11

    @property
    def nodes(self) -> int:
        if self.shape == "chain":
            return self.edges + 1
        if self.shape == "grid":
            side = self.side
            return side * side
        return max(self.roots + 1, int(self.edges / self.avg_degree))

    @property
    def side(self) -> int:
        """A grid's side: the largest with ``2·side·(side-1) <= edges`` (the surplus
        edges are diagonals, so every node stays reachable from the corner)."""
        side = 2
        while 2 * (side + 1) * side <= self.edges:
            side += 1
        return side

    def describe(self) -> dict[str, Any]:
        return {"kind": "graph", **asdict(self), "nodes": self.nodes}

    def intent(self) -> Intent:
        """Stored edges: exactly ``edges``; live nodes: at least a share of the graph
        (chain and grid: every node; random and power: half of them), so that the
        cascades measured are not trivially short."""
        live_low = self.nodes if self.shape in ("chain", "grid") else 0.5 * self.nodes
        return Intent(nominal=self.describe(),
                      expected={"edges": Bound.exactly(self.edges),
                                "live": Bound(live_low, self.nodes)})

    def stream(self) -> GraphStream:
        return GraphStream(self)


@dataclass
class GraphChange:
    """One batch of edge changes (roots stay): ``(id, src, dst)`` removed and added."""

    removed: pd.DataFrame
    added: pd.DataFrame
    size: int = field(init=False)

    def __post_init__(self) -> None:
        self.size = len(self.removed) + len(self.added)

    def remove_edges(self) -> list[tuple[int, int]]:
        return list(zip(self.removed["src"].tolist(), self.removed["dst"].tolist(), strict=True))

    def add_edges(self) -> list[tuple[int, int]]:
        return list(zip(self.added["src"].tolist(), self.added["dst"].tolist(), strict=True))


class GraphStream:
    """The edges of a :class:`GraphWorkload`, then its change batches, in order."""

    def __init__(self, spec: GraphWorkload) -> None:
        self.spec = spec
        self.rng = np.random.default_rng(spec.seed)
        self.n = spec.nodes
        src, dst = self._shape_edges()
        self.present: set[tuple[int, int]] = set(zip(src.tolist(), dst.tolist(), strict=True))
        self.next_id = 1
        self.live = Growable({"id": self._ids(len(src)), "src": src, "dst": dst})
        self.removed: deque[tuple[int, int]] = deque()

    def _ids(self, n: int) -> np.ndarray:
        ids = np.arange(self.next_id, self.next_id + n, dtype=np.int64)
        self.next_id += n
        return ids

    def _shape_edges(self) -> tuple[np.ndarray, np.ndarray]:
        s = self.spec
        if s.shape == "chain":
            a = np.arange(s.edges, dtype=np.int64)
            return a, a + 1
        if s.shape == "grid":
            side = s.side
            cells = np.arange(side * side, dtype=np.int64)
            right = cells[(cells % side) < side - 1]
            down = cells[cells < side * (side - 1)]
            diagonal = right[right < side * (side - 1)][: s.edges - len(right) - len(down)]
            return np.r_[right, down, diagonal], np.r_[right + 1, down + side, diagonal + side + 1]
        edges: dict[tuple[int, int], None] = {}
        while len(edges) < s.edges:
            u, v = self._random_pairs(2 * (s.edges - len(edges)) + 16)
            for e in zip(u.tolist(), v.tolist(), strict=True):
                if e[0] != e[1]:
                    edges[e] = None
                    if len(edges) == s.edges:
                        break
        pairs = np.array(list(edges), dtype=np.int64).reshape(-1, 2)
        return pairs[:, 0], pairs[:, 1]

    def _random_pairs(self, m: int) -> tuple[np.ndarray, np.ndarray]:
        v = self.rng.integers(0, self.n, m, dtype=np.int64)
        u = self.rng.integers(0, self.n, m, dtype=np.int64)
        if self.spec.shape == "power":
            # half the sources Zipf-skewed: hubs of high out-degree, the roots (0..9) first
            # among them; the other half uniform, so that most nodes have out-edges.
            # (Zipf *targets* left most nodes unreachable: the guard refused that graph.)
            weights = 1.0 / np.arange(1, self.n + 1, dtype=np.float64) ** self.spec.zipf_s
            hubs = self.rng.choice(self.n, size=m, p=weights / weights.sum()).astype(np.int64)
            u = np.where(self.rng.random(m) < 0.5, hubs, u)
        return u, v

    def roots(self) -> list[int]:
        return list(range(self.spec.roots))

    def initial(self) -> pd.DataFrame:
        """The edges: columns ``id, src, dst``."""
        return pd.DataFrame({c: self.live.column(c).copy() for c in ("id", "src", "dst")})

    def _fresh_edges(self, m: int, just_removed: set[tuple[int, int]]) -> list[tuple[int, int]]:
        """``m`` absent edges: the earliest removed first, then random ones of the shape
        (never one this batch removes: a batch's additions and removals are disjoint)."""
        out: list[tuple[int, int]] = []
        while self.removed and len(out) < m:
            e = self.removed.popleft()
            if e not in self.present:
                out.append(e)
                self.present.add(e)
        while len(out) < m:
            u, v = self._random_pairs(2 * (m - len(out)) + 16)
            for e in zip(u.tolist(), v.tolist(), strict=True):
                if e[0] != e[1] and e not in self.present and e not in just_removed and len(out) < m:
                    out.append(e)
                    self.present.add(e)
        return out

    def batch(self, size: int) -> GraphChange:
        gone_n = min(size // 2, self.live.n)
        gone = self.live.take(self.rng.choice(self.live.n, gone_n, replace=False))
        gone_edges = list(zip(gone["src"].tolist(), gone["dst"].tolist(), strict=True))
        self.present.difference_update(gone_edges)
        fresh = self._fresh_edges(size - gone_n, set(gone_edges))
        self.removed.extend(gone_edges)  # eligible to come back from the next batch on
        pairs = np.array(fresh, dtype=np.int64).reshape(-1, 2)
        new = {"id": self._ids(len(fresh)), "src": pairs[:, 0], "dst": pairs[:, 1]}
        self.live.append(new)
        return GraphChange(pd.DataFrame(gone), pd.DataFrame(new))

    def live_edges(self) -> int:
        return self.live.n

    def edge_set(self) -> Iterator[tuple[int, int]]:
        return iter(self.present)


#: Reachability in the Z-set dataflow language: X = distinct(roots + succ(X)).
REACH_PROGRAM: dict[str, Any] = {
    "inputs": ["roots", "edges"],
    "max_iterations": 100_000,
    "output": {"op": "iterate", "var": "X", "seed": {"op": "input", "name": "roots"},
               "body": {"op": "distinct", "arg": {
                   "op": "plus", "left": {"op": "input", "name": "roots"},
                   "right": {"op": "map", "fn": "snd", "arg": {"op": "map", "fn": "snd", "arg": {
                       "op": "join", "left": {"op": "map", "fn": "dup", "arg": {"op": "var", "name": "X"}},
                       "right": {"op": "input", "name": "edges"}}}}}}},
}
