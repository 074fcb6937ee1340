"""Named stream processors from the paper: the oracle of the conformance suite's
``stream`` area (``StreamEngine.run(processor, params, batches) -> output``).

Each entry says its parameters, how a batch of JSON items becomes an input
element, and how the output element becomes JSON. :func:`run_named` feeds the
batches one at a time (threading the processor's state, like an engine) and
returns the whole output; it equals the output on the concatenated input for
every batching, which the tests check (the output never depends on the cut).

Conventions (stable; other areas build on them):

- JSON arrays arrive as lists or tuples; outputs use tuples for arrays (the
  protocol's convention: hashable). :func:`to_json` turns them into lists.
- Bag and set outputs are sorted (canonical order: natural order when the items
  compare, else by ``repr``), with multiplicity for bags.
- Items are never mutated; an unknown name raises :class:`UnknownProcessor`, a
  malformed item or parameter raises :class:`MalformedInput`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reference.algebra.json_values import from_json
from reference.algebra.json_values import to_json as plain_json
from reference.algebra.monoid import bag_tensor, bags, direct_product, free_monoid, powerset
from reference.algebra.multiset import Multiset
from reference.algebra.weights import canonical_order
from reference.streams.feedback import loop_processor, transitive_closure_step
from reference.streams.functions import prefix_sum_compact
from reference.streams.integral import derivative_processor, integral_processor
from reference.streams.joins import join, k_partitioned_join
from reference.streams.parallel import pairs, product, pure_merge
from reference.streams.processors import Processor, processor_of, pure, run_batches
from reference.streams.representations import full_adder
from reference.streams.sequential import seq
from reference.streams.tcp import Pack, Re, receiver
from reference.streams.ticks import embed, strata, stratified_difference, tick

Value = Any
Params = Mapping[str, Value]


class UnknownProcessor(KeyError):
    """No named processor has this name."""


class MalformedInput(ValueError):
    """An item or a parameter does not follow the processor's conventions."""


@dataclass(frozen=True)
class NamedProcessor:
    """A processor of the paper with JSON conventions.

    ``build(params)`` gives the processor; ``encode(params, items)`` the input
    element for one batch; ``decode(params, output)`` the JSON output."""

    name: str
    summary: str
    params: Mapping[str, str]
    input: str
    output: str
    spec_ids: tuple[str, ...]
    build: Callable[[Params], Processor]
    encode: Callable[[Params, Sequence[Value]], Any]
    decode: Callable[[Params, Any], Value]
    #: How outputs compare (STREAM-DEC-OUTPUT-ORDER): ``sequence`` (a free monoid: in
    #: order), ``bag`` or ``set`` (commutative: in any order), ``sequence-of-sets``
    #: (one set per stratum or round, strata in order). The sorted order ``decode``
    #: writes is a convenience of the oracle, never compared for bags and sets.
    output_monoid: str = "sequence"


# --- helpers -----------------------------------------------------------------


def _tuple(v: Value) -> Value:
    """JSON arrays (lists or tuples) as tuples, recursively; ``true`` and ``1.0`` as
    :class:`JsonBool` (never the number 1), ``1.0`` as ``1`` (one number)."""
    return from_json(v)


def to_json(v: Value) -> Value:
    """Tuples as lists, recursively (for writing JSON)."""
    return plain_json(v)


def _ints(items: Sequence[Value]) -> tuple[int, ...]:
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in items):
        raise MalformedInput(f"expected integers, got {list(items)!r}")
    return tuple(items)


def _int_param(params: Params, key: str, default: int, minimum: int) -> int:
    value = params.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise MalformedInput(f"parameter {key!r} must be an integer >= {minimum}, got {value!r}")
    return value


def _sorted_bag(m: Multiset) -> tuple[Value, ...]:
    return tuple(m.elements())


def partition_of(key: Value, k: int) -> int:
    """The partition of a join key among ``k``: ``key mod k`` for integers, else the
    sum of the UTF-8 bytes of its compact JSON (sorted keys) mod ``k``."""
    if isinstance(key, int) and not isinstance(key, bool):
        return key % k
    text = json.dumps(to_json(key), sort_keys=True, separators=(",", ":"))
    return sum(text.encode("utf-8")) % k


def _tagged(items: Sequence[Value], row: Callable[[Value], Value]) -> tuple[Multiset, Multiset]:
    left: list[Value] = []
    right: list[Value] = []
    for item in items:
        item = _tuple(item)
        if not (isinstance(item, tuple) and len(item) == 2 and item[0] in ("L", "R")):
            raise MalformedInput(f'expected ["L", row] or ["R", row], got {item!r}')
        (left if item[0] == "L" else right).append(row(item[1]))
    return Multiset.from_iterable(left), Multiset.from_iterable(right)


def _edge(v: Value) -> Value:
    if not (isinstance(v, tuple) and len(v) == 2):
        raise MalformedInput(f"expected an edge [source, target], got {v!r}")
    return v


def _join_pred(a: Value, b: Value) -> bool:
    return bool(a[1] == b[0])


# --- the processors ----------------------------------------------------------


def _lists() -> Any:
    return free_monoid("List")


def _pure_list(f: Callable[[tuple[Any, ...]], tuple[Any, ...]], name: str) -> Processor:
    L = _lists()
    return pure(f, L, L, name)


def _map_inc(params: Params) -> Processor:
    k = params.get("k", 1)
    if not isinstance(k, int) or isinstance(k, bool):
        raise MalformedInput(f"parameter 'k' must be an integer, got {k!r}")
    return _pure_list(lambda xs: tuple(x + k for x in xs), f"map (+{k})")


def _split_merge(params: Params) -> Processor:
    k = _int_param(params, "partitions", 2, 1)
    B = bags()
    if k == 1:
        return pure(lambda m: m, B, B, "id")

    def level(j: int) -> Processor:
        if j == k - 1:
            return pure(lambda m: m, B, B, "id")
        split = pure(lambda m: (Multiset.from_iterable(x for x in m.elements() if partition_of(x, k) == j),
                                Multiset.from_iterable(x for x in m.elements() if partition_of(x, k) != j)),
                     B, direct_product(B, B), f"split_{j}")
        return seq(split, product(pure(lambda m: m, B, B, "id"), level(j + 1)), pure_merge(B))

    return level(0)


def _tc(params: Params) -> Processor:
    return loop_processor(processor_of(transitive_closure_step()))


def _tc_encode(params: Params, items: Sequence[Value]) -> tuple[Any, ...]:
    rounds = []
    for item in items:
        item = _tuple(item)
        if not isinstance(item, tuple):
            raise MalformedInput(f"expected a list of edges per round, got {item!r}")
        rounds.append(frozenset(_edge(e) for e in item))
    return tuple(rounds)


def _ticks_encode(params: Params, items: Sequence[Value]) -> Any:
    sf = stratified_difference(counted=True)
    P = powerset()
    PP = direct_product(P, P)
    word = sf.M.identity
    for item in items:
        item = _tuple(item)
        if item == "tick":
            g = tick(counted=True)
        elif isinstance(item, tuple) and len(item) == 2 and item[0] in ("+", "-"):
            pair = (frozenset([item[1]]), frozenset()) if item[0] == "+" else (frozenset(), frozenset([item[1]]))
            g = embed(pair, PP)
        else:
            raise MalformedInput(f'expected ["+", x], ["-", x] or "tick", got {item!r}')
        word = sf.M.op(word, g)
    return word


def _tcp_encode(params: Params, items: Sequence[Value]) -> Any:
    word = Pack.identity
    for item in items:
        item = _tuple(item)
        if item == "tick":
            g = tick()
        elif isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], int):
            g = ((0, ((item[0], item[1]),)),)
        else:
            raise MalformedInput(f'expected [sequence number, data] or "tick", got {item!r}')
        word = Pack.op(word, g)
    return (word, Re.identity)


def _bits(items: Sequence[Value]) -> tuple[tuple[int, int], ...]:
    out = []
    for item in items:
        item = _tuple(item)
        if not (isinstance(item, tuple) and len(item) == 2 and all(b in (0, 1) for b in item)):
            raise MalformedInput(f"expected a pair of bits [a, b], got {item!r}")
        out.append((int(item[0]), int(item[1])))
    return tuple(out)


def _registry() -> dict[str, NamedProcessor]:
    entries = [
        NamedProcessor(
            "prefix_sum", "prefix sum, decomposed with state S = Z (Example 3.15, Theorem 3.18)", {},
            "integers", "the running sums, one per input integer",
            ("STREAM-EX-3.15", "STREAM-THM-3.18"),
            lambda p: prefix_sum_compact(), lambda p, items: _ints(items), lambda p, o: tuple(o),
        ),
        NamedProcessor(
            "filter_even", "pure filter keeping even integers (Definition 3.24)", {},
            "integers", "the even input integers, in order", ("STREAM-DEF-3.24",),
            lambda p: _pure_list(lambda xs: tuple(x for x in xs if x % 2 == 0), "filter_even"),
            lambda p, items: _ints(items), lambda p, o: tuple(o),
        ),
        NamedProcessor(
            "map_inc", "pure map x ↦ x + k (Definition 3.24)", {"k": "integer increment, default 1"},
            "integers", "each input integer plus k, in order", ("STREAM-DEF-3.24",),
            _map_inc,
            lambda p, items: _ints(items), lambda p, o: tuple(o),
        ),
        NamedProcessor(
            "integral", "discrete integral I over Z (Definition 3.37, σ of the second proof of Theorem 3.38)",
            {}, "integers", "the running sums", ("STREAM-DEF-3.37",),
            lambda p: integral_processor(), lambda p, items: _ints(items), lambda p, o: tuple(o),
        ),
        NamedProcessor(
            "derivative", "discrete derivative D over Z (Definition 3.37, τ of the second proof of Theorem 3.38)",
            {}, "integers", "the differences a_k - a_(k-1), with a_0 = 0", ("STREAM-DEF-3.37",),
            lambda p: derivative_processor(), lambda p, items: _ints(items), lambda p, o: tuple(o),
        ),
        NamedProcessor(
            "pairs", "all pairs of two bags (Definition 3.49, the compact f_pairs of §2)", {},
            'tagged items ["L", x] or ["R", y]', "the bag of all pairs [x, y], sorted",
            ("STREAM-DEF-3.49", "STREAM-PROP-3.48"),
            lambda p: _pairs(), lambda p, items: _tagged(items, lambda v: v), lambda p, o: _sorted_bag(o),
            "bag",
        ),
        NamedProcessor(
            "join", "join of edge bags on E(x,y) ∧ E(y,z): pairs ; pure filter fused (§2, Proposition 3.30)", {},
            'tagged edges ["L", [x, y]] or ["R", [y, z]]', "the bag of matches [[x, y], [y, z]], sorted",
            ("STREAM-PROP-3.30", "STREAM-THM-3.51"),
            lambda p: join(bag_tensor(), _join_pred),
            lambda p, items: _tagged(items, _edge), lambda p, o: _sorted_bag(o), "bag",
        ),
        NamedProcessor(
            "join_partitioned",
            "join laid out as Theorem 3.51: pure split ; (join × join) ; pure merge, nested for k partitions",
            {"partitions": "number of partitions k >= 1, default 2; left edge [x, y] goes to "
                           "partition_of(y, k), right edge [y, z] to partition_of(y, k)"},
            'tagged edges ["L", [x, y]] or ["R", [y, z]]', "the bag of matches [[x, y], [y, z]], sorted",
            ("STREAM-THM-3.51", "STREAM-LEM-3.6"),
            lambda p: _partitioned_join(p),
            lambda p, items: _tagged(items, _edge), lambda p, o: _sorted_bag(o), "bag",
        ),
        NamedProcessor(
            "split_merge", "a splitter followed by merge, ∼ pure id (Definition 3.44)",
            {"partitions": "number of partitions k >= 1, default 2 (item x goes to partition_of(x, k))"},
            "any JSON values", "the bag of the input values, sorted", ("STREAM-DEF-3.44", "STREAM-PROP-3.45"),
            _split_merge, lambda p, items: Multiset.from_iterable(_tuple(x) for x in items),
            lambda p, o: _sorted_bag(o), "bag",
        ),
        NamedProcessor(
            "distinct", "the set of values seen: the homomorphism Bag → P (Example 3.12)", {},
            "any JSON values", "the distinct input values, sorted", ("STREAM-EX-3.12",),
            lambda p: pure(lambda m: m.support(), bags(), powerset(), "distinct"),
            lambda p, items: Multiset.from_iterable(_tuple(x) for x in items),
            lambda p, o: tuple(canonical_order(o)), "set",
        ),
        NamedProcessor(
            "set_difference_ticks",
            "stratified set difference over ticked streams, A_i \\ B_(i-1) per stratum "
            "(Proposition 3.55, counted ticks: STREAM-DEC-COUNTED-TICKS)", {},
            '["+", x] (x joins the current positive set), ["-", x] (negative set) or "tick" (end of stratum)',
            "one sorted list per stratum (ticks + 1 of them): A_1, A_2 \\ B_1, A_3 \\ B_2, …",
            ("STREAM-PROP-3.55", "STREAM-DEC-COUNTED-TICKS"),
            lambda p: processor_of(stratified_difference(counted=True)), _ticks_encode,
            lambda p, o: tuple(tuple(canonical_order(s)) for s in strata(o, powerset(), counted=True)),
            "sequence-of-sets",
        ),
        NamedProcessor(
            "tcp_receiver", "the TCP receiver of §3.9 (numbers start at 0)", {},
            '[i, data] (packet with sequence number i) or "tick"',
            "[data delivered in order, retransmission requests (next expected number, one per packet or tick)]",
            ("STREAM-PROP-3.62",),
            lambda p: receiver(), _tcp_encode,
            lambda p, o: (tuple(o[0]), tuple(x for side, v in o[1] if side == 0 for x in v)),
        ),
        NamedProcessor(
            "transitive_closure_loop",
            "monotone Datalog through loop: path :- edge; path(x,z) :- path(x,y), edge(y,z) (Example 3.58)", {},
            "one item per round: the list of edges [x, y] arriving in that round ([] for a round with none)",
            "per round (the initial output first): the sorted list of newly derived paths [x, z]",
            ("STREAM-EX-3.58", "STREAM-DEF-3.59"),
            _tc, _tc_encode, lambda p, o: tuple(tuple(canonical_order(r)) for r in o),
            "sequence-of-sets",
        ),
        NamedProcessor(
            "full_adder", "binary addition of two bit streams, least significant bit first (Example 4.1)",
            {"carry": "initial carry bit, default 0"},
            "pairs of bits [a, b]", "the sum bits, one per input pair (the final carry is not emitted)",
            ("STREAM-EX-4.1",),
            lambda p: full_adder(_int_param(p, "carry", 0, 0)), lambda p, items: _bits(items),
            lambda p, o: tuple(o),
        ),
    ]
    return {e.name: e for e in entries}


def _pairs() -> Processor:
    return pairs(bag_tensor())


def _partitioned_join(params: Params) -> Processor:
    k = _int_param(params, "partitions", 2, 1)
    return k_partitioned_join(bag_tensor(), _join_pred,
                              lambda a: partition_of(a[1], k), lambda b: partition_of(b[0], k), k)


PROCESSORS: Mapping[str, NamedProcessor] = _registry()


def names() -> tuple[str, ...]:
    """The names of the registered processors, sorted."""
    return tuple(sorted(PROCESSORS))


def describe(name: str) -> dict[str, Value]:
    """The documentation of a named processor as JSON (for case files and reports)."""
    entry = lookup(name)
    return {"name": entry.name, "summary": entry.summary, "params": dict(entry.params),
            "input": entry.input, "output": entry.output, "output_monoid": entry.output_monoid,
            "cites": list(entry.spec_ids)}


def lookup(name: str) -> NamedProcessor:
    try:
        return PROCESSORS[name]
    except KeyError:
        raise UnknownProcessor(name) from None


def run_named(name: str, params: Params, batches: Sequence[Sequence[Value]]) -> Value:
    """The oracle: run the named processor over the input cut into ``batches``
    (fed one at a time) and return its whole output in JSON form."""
    entry = lookup(name)
    sigma = entry.build(params)
    return entry.decode(params, run_batches(sigma, [entry.encode(params, b) for b in batches]))

