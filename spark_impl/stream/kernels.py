r"""The named stream processors as per-batch steps over keyed state.

Each kernel is the processor ``(S, f, s_ε, o_ε)`` of STREAM-DEF-3.16 written as
the step of a stateful streaming operator: it reads one group's state from a
:class:`~spark_impl.stream.kernel_state.Store`, consumes that group's items of one
micro-batch (in stream order: they carry their position ``pos``), emits output
rows and writes the new state back. Its work is in proportion to the batch (and
to the output it emits), never to the input seen before:

========================  =========================  ==================================
processor                 group (``key``)             state
========================  =========================  ==================================
prefix_sum, integral      the run                     the running total (constant)
derivative                the run                     the last item (constant)
filter_even, map_inc      the run                     none (pure, STREAM-DEF-3.24)
full_adder                the run                     the carry bit (STREAM-EX-4.1)
split_merge               partition_of(x, k)          none: the split, then the merge
distinct                  the value x                 "seen" (STREAM-EX-3.12)
pairs                     the run                     both bags (STREAM-PROP-3.48)
join                      the join key y              both sides' rows with key y
join_partitioned          (partition_of(y, k), y)     as join (STREAM-THM-3.51)
set_difference_ticks      the run                     stratum number, B_(i-1), B_i, A_i
tcp_receiver              the run                     next expected number, buffer
transitive_closure_loop   the run                     E by source, J by target, last ΔJ
========================  =========================  ==================================

An output row is ``(part, ord, value)``: ``value`` the canonical JSON text of
an output element, or ``None`` for a marker (a stratum or round that exists
even if empty); ``part`` and ``ord`` place it (see :mod:`spark_impl.stream.assemble`).
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from spark_impl.errors import SparkEngineError
from spark_impl.stream.kernel_state import MapSlot, Store
from spark_impl.values import decode, encode

Value = Any
Out = tuple[int, int, str | None]
Shape = Literal["sequence", "bag", "strata", "tcp", "rounds"]


def malformed(message: str) -> SparkEngineError:
    return SparkEngineError("malformed-input", message)


def tuples(v: Value) -> Value:
    """JSON arrays (lists or tuples) as tuples, recursively."""
    return tuple(tuples(x) for x in v) if isinstance(v, list | tuple) else v


def is_int(x: Value) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def int_param(params: Mapping[str, Value], key: str, default: int, minimum: int) -> int:
    value = params.get(key, default)
    if not is_int(value) or value < minimum:
        raise malformed(f"parameter {key!r} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def partition_of(key: Value, k: int) -> int:
    """The partition of a key among ``k``: ``key mod k`` for integers, else the
    sum of the UTF-8 bytes of its compact JSON (sorted keys) mod ``k`` (the
    suite's convention for ``split_merge`` and ``join_partitioned``)."""
    if is_int(key):
        return int(key) % k
    text = json.dumps(_lists(key), sort_keys=True, separators=(",", ":"))
    return sum(text.encode("utf-8")) % k


def _lists(v: Value) -> Value:
    return [_lists(x) for x in v] if isinstance(v, tuple) else v


class Kernel(ABC):
    """One named processor as a per-batch step (STREAM-DEF-3.16)."""

    shape: Shape = "sequence"

    @abstractmethod
    def parse(self, item: Value) -> Value:
        """The item as an input element, or :func:`malformed`."""

    def key(self, element: Value) -> str:
        """The group of an element: ``""`` when the whole run is one group."""
        return ""

    @abstractmethod
    def step(self, store: Store, items: Sequence[tuple[int, Value]]) -> list[Out]:
        """Consume one group's items of a micro-batch, in ``pos`` order."""


# --- sequences: the run is the group, the state a constant ------------------------------


class IntKernel(Kernel):
    def parse(self, item: Value) -> Value:
        if not is_int(item):
            raise malformed(f"expected an integer, got {item!r}")
        return int(item)


class RunningSum(IntKernel):
    """``prefix_sum`` (STREAM-EX-3.15, state ``Z``) and ``integral`` (STREAM-DEF-3.37)."""

    def step(self, store: Store, items: Sequence[tuple[int, Value]]) -> list[Out]:
        total = store.get("a") or 0
        out: list[Out] = []
        for pos, x in items:
            total += x
            out.append((0, pos, encode(total)))
        store.put("a", total)
        return out


class Derivative(IntKernel):
    """``derivative`` (STREAM-DEF-3.37): the state is the last item, initially 0."""

    def step(self, store: Store, items: Sequence[tuple[int, Value]]) -> list[Out]:
        last = store.get("a") or 0
        out: list[Out] = []
        for pos, x in items:
            out.append((0, pos, encode(x - last)))
            last = x
        store.put("a", last)
        return out


class Pure(IntKernel):
    """A pure processor (STREAM-DEF-3.24): no state, one output list per item."""

    def __init__(self, f: Callable[[int], list[int]]) -> None:
        self.f = f

    def step(self, store: Store, items: Sequence[tuple[int, Value]]) -> list[Out]:
        return [(0, pos, encode(y)) for pos, x in items for y in self.f(x)]


class FullAdder(Kernel):
    """``full_adder`` (STREAM-EX-4.1): the state is the carry bit."""

    def __init__(self, carry: int) -> None:
        self.carry = carry

    def parse(self, item: Value) -> Value:
        item = tuples(item)
        if not (isinstance(item, tuple) and len(item) == 2 and all(b in (0, 1) for b in item)):
            raise malformed(f"expected a pair of bits [a, b], got {item!r}")
        return (int(item[0]), int(item[1]))

    def step(self, store: Store, items: Sequence[tuple[int, Value]]) -> list[Out]:
        carry = store.get("a")
        c = self.carry if carry is None else carry
        out: list[Out] = []
        for pos, (a, b) in items:
            out.append((0, pos, encode((a + b + c) % 2)))
            c = (a + b + c) // 2
        store.put("a", c)
        return out


# --- bags: keyed groups -----------------------------------------------------------


class AnyValue(Kernel):
    shape: Shape = "bag"

    def parse(self, item: Value) -> Value:
        return tuples(item)


class SplitMerge(AnyValue):
    """``split_merge`` (STREAM-DEF-3.44): the grouping by ``partition_of(x, k)`` is
    the split, the union of the groups' outputs the merge; no state."""

    def __init__(self, k: int) -> None:
        self.k = k

    def key(self, element: Value) -> str:
        return str(partition_of(element, self.k))

    def step(self, store: Store, items: Sequence[tuple[int, Value]]) -> list[Out]:
        return [(0, 0, encode(x)) for _, x in items]


class Distinct(AnyValue):
    """``distinct`` (STREAM-EX-3.12): one group per value; emitted once, when first seen."""

    def key(self, element: Value) -> str:
        return encode(element)

    def step(self, store: Store, items: Sequence[tuple[int, Value]]) -> list[Out]:
        if not items or store.get("a") is not None:
            return []
        store.put("a", True)
        return [(0, 0, encode(items[0][1]))]


class Bilinear(Kernel):
    """``pairs`` and the joins: ``Δ(E1 ⊗ E2) = E1⊗δE2 + δE1⊗E2 + δE1⊗δE2`` over the
    group's bags (STREAM-PROP-3.48), the bags kept in list state (``l`` left, ``r``
    right). A side is read only when the other side has new rows."""

    shape: Shape = "bag"

    def __init__(self, edges: bool) -> None:
        self.edges = edges

    def parse(self, item: Value) -> Value:
        item = tuples(item)
        if not (isinstance(item, tuple) and len(item) == 2 and item[0] in ("L", "R")):
            raise malformed(f'expected ["L", row] or ["R", row], got {item!r}')
        if self.edges and not (isinstance(item[1], tuple) and len(item[1]) == 2):
            raise malformed(f"expected an edge [source, target], got {item[1]!r}")
        return item

    def step(self, store: Store, items: Sequence[tuple[int, Value]]) -> list[Out]:
        d1 = [row for _, (side, row) in items if side == "L"]
        d2 = [row for _, (side, row) in items if side == "R"]
        e1 = store.list_all("l") if d2 else []
        e2 = store.list_all("r") if d1 else []
        out: list[Out] = [(0, 0, encode((x, y))) for x in e1 + d1 for y in d2]
        out += [(0, 0, encode((x, y))) for x in d1 for y in e2]
        store.list_extend("l", d1)
        store.list_extend("r", d2)
        return out


class Join(Bilinear):
    """``join`` and ``join_partitioned``: the group is the join key ``y`` (left edge
    ``[x, y]``, right edge ``[y, z]``), with ``partition_of(y, k)`` in front for the
    partitioned layout. All rows of a key meet in one group, and groups never
    interact: Theorem 3.51 (STREAM-THM-3.51), the partitioning Spark's shuffle
    makes on the grouping key."""

    def __init__(self, k: int | None) -> None:
        super().__init__(edges=True)
        self.k = k

    def key(self, element: Value) -> str:
        side, (u, v) = element
        y = v if side == "L" else u
        return encode(y) if self.k is None else f"{partition_of(y, self.k)}:{encode(y)}"


# --- sequential processors with a per-run state ------------------------------------------


TICK = "tick"


class SetDifferenceTicks(Kernel):
    """``set_difference_ticks`` (STREAM-PROP-3.55, counted ticks: STREAM-DEC-COUNTED-TICKS).

    Stratum ``i`` outputs ``A_i \\ B_(i-1)``: ``B_(i-1)`` is complete once its tick
    has passed, so ``["+", x]`` in stratum ``i`` is emitted at once unless ``x`` is
    in ``B_(i-1)`` (or already emitted in stratum ``i``). State: ``a`` the stratum
    number; map ``m`` the negatives of strata ``i-1`` and ``i``, map ``n`` the
    positives emitted in stratum ``i`` (keys ``[stratum, x]``); list ``l`` the keys
    written, so a tick deletes the entries that died (each entry is written and
    deleted once: amortised constant work per item; the state holds two strata).
    A tick emits a marker: the stratum exists even if empty."""

    shape: Shape = "strata"

    def parse(self, item: Value) -> Value:
        item = tuples(item)
        if item == TICK:
            return TICK
        if isinstance(item, tuple) and len(item) == 2 and item[0] in ("+", "-"):
            return item
        raise malformed(f'expected ["+", x], ["-", x] or "tick", got {item!r}')

    def step(self, store: Store, items: Sequence[tuple[int, Value]]) -> list[Out]:
        i = store.get("a") or 0
        written: list[Value] = []
        out: list[Out] = []
        for pos, item in items:
            if item == TICK:
                i += 1
                out.append((i, pos, None))
                self._prune(store, i, written)
                written = []
                continue
            sign, x = item
            text = encode(x)
            if sign == "-":
                cell = encode((i, text))
                if store.map_get("m", cell) is None:
                    store.map_put("m", cell, True)
                    written.append(("m", i, text))
            else:
                cell = encode((i, text))
                if store.map_get("n", cell) is None and store.map_get("m", encode((i - 1, text))) is None:
                    store.map_put("n", cell, True)
                    written.append(("n", i, text))
                    out.append((i, 0, text))
        store.list_extend("l", written)
        store.put("a", i)
        return out

    @staticmethod
    def _prune(store: Store, i: int, written: list[Value]) -> None:
        """Entering stratum ``i``: negatives of ``i-2`` and positives of ``i-1`` are dead."""
        keep = []
        for slot, stratum, text in [*store.list_all("l"), *written]:
            if (slot == "m" and stratum < i - 1) or (slot == "n" and stratum < i):
                store.map_remove(slot, encode((stratum, text)))
            else:
                keep.append((slot, stratum, text))
        store.list_replace("l", keep)


class TcpReceiver(Kernel):
    """The TCP receiver of §3.9 (STREAM-PROP-3.62): the state is the next expected
    number ``n`` (``a``) and the packets received ahead of it (map ``m``, by
    number): bounded by how far the network reorders, not by the input. A packet
    ``n`` delivers ``n`` and every consecutive buffered packet after it; every
    item (packet or tick) emits the request ``n``. Delivered data are part 0
    (ordered by number), requests part 1 (ordered by position)."""

    shape: Shape = "tcp"

    def parse(self, item: Value) -> Value:
        item = tuples(item)
        if item == TICK:
            return TICK
        if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], int):
            return (int(item[0]), item[1])
        raise malformed(f'expected [sequence number, data] or "tick", got {item!r}')

    def step(self, store: Store, items: Sequence[tuple[int, Value]]) -> list[Out]:
        n = store.get("a") or 0
        out: list[Out] = []
        for pos, item in items:
            if item != TICK:
                i, data = item
                if i > n and store.map_get("m", str(i)) is None:
                    store.map_put("m", str(i), data)
                elif i == n:
                    out.append((0, n, encode(data)))
                    n += 1
                    while (held := store.map_get("m", str(n))) is not None:
                        store.map_remove("m", str(n))
                        out.append((0, n, encode(held)))
                        n += 1
            out.append((1, pos, encode(n)))
        store.put("a", n)
        return out


class TransitiveClosureLoop(Kernel):
    """``transitive_closure_loop`` (STREAM-EX-3.58 through ``loop``, STREAM-DEF-3.59):
    round ``r`` adds the edges ``m_r`` to ``E`` and outputs ``J_r \\ J_(r-1)`` with
    ``J_r = E_r ∪ J_(r-1)∘E_r``. Semi-naively, since ``J`` grows:
    ``J_r \\ J_(r-1) = (m_r ∪ D_(r-1)∘E_r ∪ J_(r-1)∘m_r) \\ J_(r-1)``, ``D`` the last
    round's output. State: ``a`` the round number, ``b`` the last ``D``, map ``m``
    the targets of each source (``E``), map ``n`` the sources of each target
    (``J``): a round reads only the entries its new edges and ``D`` touch. Each
    round emits a marker (a round with no new path still has its place)."""

    shape: Shape = "rounds"

    def parse(self, item: Value) -> Value:
        item = tuples(item)
        if not isinstance(item, tuple):
            raise malformed(f"expected a list of edges per round, got {item!r}")
        for e in item:
            if not (isinstance(e, tuple) and len(e) == 2):
                raise malformed(f"expected an edge [source, target], got {e!r}")
        return tuple(dict.fromkeys((encode(u), encode(v)) for u, v in item))

    def step(self, store: Store, items: Sequence[tuple[int, Value]]) -> list[Out]:
        r = store.get("a") or 0
        last: list[tuple[str, str]] = [(p[0], p[1]) for p in store.get("b") or []]
        cache: dict[tuple[MapSlot, str], list[str]] = {}
        dirty: set[tuple[MapSlot, str]] = set()

        def entry(slot: MapSlot, node: str) -> list[str]:
            if (slot, node) not in cache:
                cache[(slot, node)] = list(store.map_get(slot, node) or [])
            return cache[(slot, node)]

        def add(slot: MapSlot, node: str, other: str) -> bool:
            row = entry(slot, node)
            if other in row:
                return False
            row.append(other)
            dirty.add((slot, node))
            return True

        out: list[Out] = []
        for pos, edges in items:
            r += 1
            out.append((r, pos, None))
            for u, v in edges:
                add("m", u, v)
            candidates = dict.fromkeys(edges)
            candidates.update(dict.fromkeys((x, z) for x, y in last for z in entry("m", y)))
            candidates.update(dict.fromkeys((x, v) for u, v in edges for x in entry("n", u)))
            fresh = [(x, z) for x, z in candidates if x not in entry("n", z)]
            for x, z in fresh:
                add("n", z, x)
                out.append((r, 0, encode((decode(x), decode(z)))))
            last = fresh
        for slot, node in dirty:
            store.map_put(slot, node, cache[(slot, node)])
        store.put("a", r)
        store.put("b", last)
        return out


# --- the vocabulary --------------------------------------------------------------------------


def _map_inc(params: Mapping[str, Value]) -> Kernel:
    k = params.get("k", 1)
    if not is_int(k):
        raise malformed(f"parameter 'k' must be an integer, got {k!r}")
    return Pure(lambda x: [x + k])


def _full_adder(params: Mapping[str, Value]) -> Kernel:
    carry = int_param(params, "carry", 0, 0)
    if carry not in (0, 1):
        raise malformed(f"parameter 'carry' must be a bit, got {carry!r}")
    return FullAdder(carry)


KERNELS: Mapping[str, Callable[[Mapping[str, Value]], Kernel]] = {
    "prefix_sum": lambda p: RunningSum(),
    "integral": lambda p: RunningSum(),
    "derivative": lambda p: Derivative(),
    "filter_even": lambda p: Pure(lambda x: [x] if x % 2 == 0 else []),
    "map_inc": _map_inc,
    "full_adder": _full_adder,
    "split_merge": lambda p: SplitMerge(int_param(p, "partitions", 2, 1)),
    "distinct": lambda p: Distinct(),
    "pairs": lambda p: Bilinear(edges=False),
    "join": lambda p: Join(None),
    "join_partitioned": lambda p: Join(int_param(p, "partitions", 2, 1)),
    "set_difference_ticks": lambda p: SetDifferenceTicks(),
    "tcp_receiver": lambda p: TcpReceiver(),
    "transitive_closure_loop": lambda p: TransitiveClosureLoop(),
}


def kernel(name: str, params: Mapping[str, Value]) -> Kernel:
    """The kernel of a named processor of the suite's vocabulary (raises
    ``malformed-input`` for an unknown name or a bad parameter)."""
    if name not in KERNELS:
        raise malformed(f"unknown processor {name!r}")
    return KERNELS[name](params)
