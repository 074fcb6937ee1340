"""A small dataflow language over Z-set collections, with a JSON form, its
standard semantics and its incremental (differential) evaluation (DD-DEC-DATAFLOW).

This is the program syntax of the conformance suite's ``zset`` area
(``ZSetEngine.build(program)`` / ``step(inputs) -> output delta``).

Syntax (JSON; arrays stand for tuples)::

    program := {"inputs": [name, ...], "output": node, "max_iterations": int?}
    node    := {"op": "input",    "name": name}
             | {"op": "map",      "fn": fn,     "arg": node}
             | {"op": "filter",   "pred": pred, "arg": node}
             | {"op": "join",     "left": node, "right": node}
             | {"op": "distinct", "arg": node}
             | {"op": "reduce",   "agg": agg,   "arg": node}
             | {"op": "plus",     "left": node, "right": node}   ("union" is an alias)
             | {"op": "negate",   "arg": node}
             | {"op": "iterate",  "var": name, "seed": node, "body": node}
             | {"op": "var",      "name": name}

``fn``, ``pred`` and ``agg`` are names from the vocabulary of
:mod:`reference.differential.operators`. ``join`` matches pairs on their first
component and outputs ``(k, (a, b))``. ``plus`` (alias ``union``) is Z-set
addition (bag union: weights add). ``iterate`` binds ``var`` in ``body``:
``X_0 = seed``, ``X_{n+1} = body(X_n)``, and its value is ``X_k`` for the
first ``k`` with ``X_{k+1} = X_k`` (``k + 1 <= max_iterations``, default 100;
otherwise the error class ``no-fixpoint``). ``input`` and outer ``var``s may be
used anywhere inside a body (they are constant across iterations).

Observation. Versions are ``0, 1, 2, ...``; at each version the engine is fed
one delta per input (absent = empty). The *observation* an engine produces at
version ``t`` is the output delta, a Z-set:

    ``output(t) - output(t - 1)``   (``output(-1)`` is empty),

where ``output(t)`` is the standard semantics of the program on the input
collections at version ``t`` (the sums of the input deltas of versions ``<= t``).
On the wire a Z-set is a list of rows ``[element, weight]``
(:func:`zset_to_rows`, :func:`zset_from_rows`); observations are compared as
Z-sets: row order is irrelevant, rows of equal elements add up, zero weights vanish.
An engine keeps its state between versions; :func:`step` shows what state suffices
(the traces of differences per node and time).

Two evaluations, which must agree (checked in tests, DD-DEC-DATAFLOW):

- :func:`standard_output_deltas`: recompute ``output(t)`` from scratch at every
  version and subtract;
- :func:`incremental_output_deltas` (one version at a time with :func:`step`):
  differential evaluation over times ``N^d``, following DD-CLAIM-RULE-LINEAR,
  DD-CLAIM-RULE-JOIN, DD-CLAIM-RULE-DISTINCT, DD-CLAIM-RULE-REDUCE and DD-CLAIM-RULE-ITERATE.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from reference.algebra.json_values import from_json, to_json
from reference.algebra.persistent import MapEvolver, PMap
from reference.algebra.zset import ZSet
from reference.differential.operators import (
    AGGREGATES,
    FILTER_PREDICATES,
    MAP_FUNCTIONS,
    Arrangement,
    DataflowError,
    Time,
    Trace,
    arrange,
    distinct,
    element_key,
    filter_zset,
    join,
    join_key,
    join_rule,
    keyed_rule,
    leq,
    linear_rule,
    map_zset,
    pair_key,
    reduce,
    split_by_key,
    sum_zsets,
)

# --- syntax ---------------------------------------------------------------------


@dataclass(frozen=True)
class Input:
    name: str


@dataclass(frozen=True)
class Map:
    fn: str
    arg: Node


@dataclass(frozen=True)
class Filter:
    pred: str
    arg: Node


@dataclass(frozen=True)
class Join:
    left: Node
    right: Node


@dataclass(frozen=True)
class Distinct:
    arg: Node


@dataclass(frozen=True)
class Reduce:
    agg: str
    arg: Node


@dataclass(frozen=True)
class Plus:
    left: Node
    right: Node


@dataclass(frozen=True)
class Negate:
    arg: Node


@dataclass(frozen=True)
class Iterate:
    var: str
    seed: Node
    body: Node


@dataclass(frozen=True)
class Var:
    name: str


Node = Input | Map | Filter | Join | Distinct | Reduce | Plus | Negate | Iterate | Var

DEFAULT_MAX_ITERATIONS = 100


@dataclass(frozen=True)
class Program:
    inputs: tuple[str, ...]
    output: Node
    max_iterations: int = DEFAULT_MAX_ITERATIONS


def children(node: Node) -> tuple[Node, ...]:
    """The sub-nodes, in a fixed order (their positions name them in traces)."""
    if isinstance(node, (Map, Filter, Distinct, Reduce, Negate)):
        return (node.arg,)
    if isinstance(node, (Join, Plus)):
        return (node.left, node.right)
    if isinstance(node, Iterate):
        return (node.seed, node.body)
    return ()


def validate(program: Program) -> Program:
    """Check names: inputs declared, vars bound, vocabulary known; return the program."""
    if program.max_iterations < 1:
        raise DataflowError("malformed-input", "max_iterations must be >= 1")

    def check(node: Node, bound: frozenset[str]) -> None:
        if isinstance(node, Input) and node.name not in program.inputs:
            raise DataflowError("malformed-input", f"undeclared input {node.name!r}")
        if isinstance(node, Var) and node.name not in bound:
            raise DataflowError("malformed-input", f"unbound var {node.name!r}")
        if isinstance(node, Map) and node.fn not in MAP_FUNCTIONS:
            raise DataflowError("malformed-input", f"unknown map fn {node.fn!r}")
        if isinstance(node, Filter) and node.pred not in FILTER_PREDICATES:
            raise DataflowError("malformed-input", f"unknown filter pred {node.pred!r}")
        if isinstance(node, Reduce) and node.agg not in AGGREGATES:
            raise DataflowError("malformed-input", f"unknown aggregate {node.agg!r}")
        if isinstance(node, Iterate):
            check(node.seed, bound)
            check(node.body, bound | {node.var})
            return
        for child in children(node):
            check(child, bound)

    check(program.output, frozenset())
    return program


# --- JSON form ----------------------------------------------------------------------


def _field(obj: Mapping[str, Any], name: str, kind: type) -> Any:
    value = obj.get(name)
    if not isinstance(value, kind):
        raise DataflowError("malformed-input", f"{obj.get('op')!r} needs {name!r}: {kind.__name__}")
    return value


def node_from_json(obj: Any) -> Node:
    """Parse a node from its JSON object."""
    if not isinstance(obj, Mapping):
        raise DataflowError("malformed-input", f"a node is a JSON object, got {obj!r}")
    op = obj.get("op")

    def sub(name: str) -> Node:
        return node_from_json(obj.get(name))

    if op == "input":
        return Input(_field(obj, "name", str))
    if op == "var":
        return Var(_field(obj, "name", str))
    if op == "map":
        return Map(_field(obj, "fn", str), sub("arg"))
    if op == "filter":
        return Filter(_field(obj, "pred", str), sub("arg"))
    if op == "join":
        return Join(sub("left"), sub("right"))
    if op == "distinct":
        return Distinct(sub("arg"))
    if op == "reduce":
        return Reduce(_field(obj, "agg", str), sub("arg"))
    if op in ("plus", "union"):
        return Plus(sub("left"), sub("right"))
    if op == "negate":
        return Negate(sub("arg"))
    if op == "iterate":
        return Iterate(_field(obj, "var", str), sub("seed"), sub("body"))
    raise DataflowError("malformed-input", f"unknown op {op!r}")


def node_to_json(node: Node) -> dict[str, Any]:
    """The JSON object of a node (``plus`` is written ``plus``)."""
    if isinstance(node, Input):
        return {"op": "input", "name": node.name}
    if isinstance(node, Var):
        return {"op": "var", "name": node.name}
    if isinstance(node, Map):
        return {"op": "map", "fn": node.fn, "arg": node_to_json(node.arg)}
    if isinstance(node, Filter):
        return {"op": "filter", "pred": node.pred, "arg": node_to_json(node.arg)}
    if isinstance(node, Join):
        return {"op": "join", "left": node_to_json(node.left), "right": node_to_json(node.right)}
    if isinstance(node, Distinct):
        return {"op": "distinct", "arg": node_to_json(node.arg)}
    if isinstance(node, Reduce):
        return {"op": "reduce", "agg": node.agg, "arg": node_to_json(node.arg)}
    if isinstance(node, Plus):
        return {"op": "plus", "left": node_to_json(node.left), "right": node_to_json(node.right)}
    if isinstance(node, Negate):
        return {"op": "negate", "arg": node_to_json(node.arg)}
    return {"op": "iterate", "var": node.var, "seed": node_to_json(node.seed),
            "body": node_to_json(node.body)}


def program_from_json(obj: Any) -> Program:
    """Parse and validate a program from its JSON object."""
    if not isinstance(obj, Mapping):
        raise DataflowError("malformed-input", "a program is a JSON object")
    inputs = obj.get("inputs")
    if not (isinstance(inputs, (list, tuple)) and all(isinstance(n, str) for n in inputs)):
        raise DataflowError("malformed-input", "a program needs 'inputs': [name, ...]")
    bound = obj.get("max_iterations", DEFAULT_MAX_ITERATIONS)
    if type(bound) is not int:
        raise DataflowError("malformed-input", "'max_iterations' is an int")
    return validate(Program(tuple(inputs), node_from_json(obj.get("output")), bound))


def program_to_json(program: Program) -> dict[str, Any]:
    return {"inputs": list(program.inputs), "output": node_to_json(program.output),
            "max_iterations": program.max_iterations}


def zset_from_rows(rows: Sequence[Sequence[Any]]) -> ZSet:
    """A Z-set from wire rows ``[[element, weight], ...]`` (JSON arrays become tuples;
    rows with equal elements are summed, zero weights dropped)."""
    pairs = []
    for row in rows:
        if len(row) != 2 or type(row[1]) is not int:
            raise DataflowError("malformed-input", f"a row is [element, int weight], got {row!r}")
        pairs.append((_tuples(row[0]), row[1]))
    return ZSet.from_pairs(pairs)


def zset_to_rows(z: ZSet) -> list[list[Any]]:
    """Wire rows ``[[element, weight], ...]`` in canonical order (tuples become arrays)."""
    return [[_lists(e), w] for e, w in z.items()]


def _tuples(v: Any) -> Any:
    return from_json(v)  # arrays as tuples; true, 1 and 1.0 three values


def _lists(v: Any) -> Any:
    return to_json(v)


# --- (a) the standard semantics --------------------------------------------------------


def evaluate(
    node: Node, inputs: Mapping[str, ZSet], env: Mapping[str, ZSet], max_iterations: int
) -> ZSet:
    """The collection a node denotes, given input collections and loop variables."""

    def ev(n: Node) -> ZSet:
        return evaluate(n, inputs, env, max_iterations)

    if isinstance(node, Input):
        return inputs.get(node.name, ZSet.zero())
    if isinstance(node, Var):
        return env[node.name]
    if isinstance(node, Map):
        return map_zset(node.fn, ev(node.arg))
    if isinstance(node, Filter):
        return filter_zset(node.pred, ev(node.arg))
    if isinstance(node, Join):
        return join(ev(node.left), ev(node.right))
    if isinstance(node, Distinct):
        return distinct(ev(node.arg))
    if isinstance(node, Reduce):
        return reduce(node.agg, ev(node.arg))
    if isinstance(node, Plus):
        return ev(node.left) + ev(node.right)
    if isinstance(node, Negate):
        return -ev(node.arg)
    x = ev(node.seed)  # X_0
    for _ in range(max_iterations):
        nxt = evaluate(node.body, inputs, {**env, node.var: x}, max_iterations)
        if nxt == x:
            return x
        x = nxt
    raise DataflowError("no-fixpoint", f"iterate {node.var!r}: no fixpoint in {max_iterations} steps")


def input_collections(
    program: Program, deltas: Sequence[Mapping[str, ZSet]]
) -> list[dict[str, ZSet]]:
    """The input collections at each version: sums of the deltas so far."""
    current = {name: ZSet.zero() for name in program.inputs}
    versions = []
    for delta in deltas:
        for name, d in delta.items():
            if name not in current:
                raise DataflowError("malformed-input", f"undeclared input {name!r}")
            current[name] = current[name] + d
        versions.append(dict(current))
    return versions


def standard_outputs(program: Program, deltas: Sequence[Mapping[str, ZSet]]) -> tuple[ZSet, ...]:
    """``output(t)`` for each version ``t``, recomputed from scratch."""
    return tuple(
        evaluate(program.output, collections, {}, program.max_iterations)
        for collections in input_collections(program, deltas)
    )


def standard_output_deltas(
    program: Program, deltas: Sequence[Mapping[str, ZSet]]
) -> tuple[ZSet, ...]:
    """The observations: ``output(t) - output(t - 1)`` for each version ``t``."""
    outputs = standard_outputs(program, deltas)
    previous = (ZSet.zero(), *outputs[:-1])
    return tuple(now - before for now, before in zip(outputs, previous, strict=True))


# --- (b) the incremental (differential) evaluation ---------------------------------------

#: A node's position in the program tree: child indices from the output node.
Path = tuple[int, ...]


#: The trace with no differences.
EMPTY_TRACE: PMap[Time, ZSet] = PMap()


@dataclass(frozen=True)
class DifferentialState:
    """What the differential evaluation keeps between versions: the trace of
    every node (its non-zero differences by time ``N^d``), never mutated.

    Persistent (DD-DEC-PERSISTENT-TRACES): the traces are persistent maps, and the trace
    of each input of a ``join``, ``distinct`` or ``reduce`` is also kept arranged by the
    key that operator works on (``arrangements``: an index of ``traces``, derived from
    them and left out of equality; built from the traces when a state has none). A step
    writes the times and keys its differences touch and shares everything else with the
    state it started from, which stays valid and unchanged. For each loop it also keeps the
    largest iteration its differences reached (``reached``, DD-DEC-PERSISTENT-LOOPS), so
    that deciding where a loop's differences stop reads no trace whole.
    """

    version: int
    traces: Mapping[Path, Trace]
    arrangements: Mapping[Path, Arrangement] = field(default_factory=PMap, compare=False, repr=False)
    #: For each ``iterate``: :func:`iterations_reached` of its traces (DD-DEC-PERSISTENT-LOOPS),
    #: an index of ``traces`` like ``arrangements``.
    reached: Mapping[Path, Mapping[Time, int]] = field(default_factory=PMap, compare=False, repr=False)


def initial_state() -> DifferentialState:
    return DifferentialState(0, PMap())


def arranged_inputs(node: Node, path: Path = ()) -> dict[Path, Callable[[Any], Any]]:
    """The nodes whose traces are arranged (DD-DEC-PERSISTENT-TRACES), with the key of
    each: both inputs of a ``join`` by :func:`join_key`, the input of a ``distinct`` by
    the element itself, the input of a ``reduce`` by :func:`pair_key`."""
    keys: dict[Path, Callable[[Any], Any]] = {}
    if isinstance(node, Join):
        keys[(*path, 0)] = keys[(*path, 1)] = join_key
    elif isinstance(node, Distinct):
        keys[(*path, 0)] = element_key
    elif isinstance(node, Reduce):
        keys[(*path, 0)] = pair_key
    for i, child in enumerate(children(node)):
        keys.update(arranged_inputs(child, (*path, i)))
    return keys


def loops(node: Node, path: Path = (), depth: int = 1) -> dict[Path, int]:
    """The ``iterate`` nodes by path, with the length of the times at which each runs
    (one for a loop at the top, one more per enclosing loop): its body runs at times one
    longer, ``(τ, i)``, ``i`` its iteration."""
    found: dict[Path, int] = {}
    if isinstance(node, Iterate):
        found[path] = depth
        found.update(loops(node.seed, (*path, 0), depth))
        found.update(loops(node.body, (*path, 1), depth + 1))
        return found
    for i, child in enumerate(children(node)):
        found.update(loops(child, (*path, i), depth))
    return found


def feeds(loop_path: Path, depth: int, path: Path, u: Time) -> int:
    """The iteration of the loop at ``loop_path`` (run at times of length ``depth``) that a
    non-zero difference of the node at ``path`` at time ``u`` reaches, or -1 if none:
    ``j + 1`` for a node of the body at ``u = (τ, j, ...)`` (the body at ``(τ, j)`` feeds the
    variable at ``(τ, j + 1)``); 1 for the seed (it reaches the variable at ``(τ, 0)`` and
    ``(τ, 1)``, DD-CLAIM-RULE-ITERATE)."""
    if path[: len(loop_path) + 1] == (*loop_path, 1):
        return u[depth] + 1
    return 1 if path == (*loop_path, 0) else -1


def iterations_reached(traces: Mapping[Path, Trace], loop_path: Path, depth: int
                       ) -> PMap[Time, int]:
    """DD-DEC-PERSISTENT-LOOPS: for the loop at ``loop_path``, the largest iteration its
    differences reach (:func:`feeds`) at each outer time ``(v, ρ)`` of the traces, over every
    version ``v``: keyed by ``ρ``, the outer time without its version (``()`` for a loop at
    the top). What :func:`step` keeps of it is the same map, updated with each version's
    differences as they are recorded."""
    reached: dict[Time, int] = {}
    for path, trace in traces.items():
        for u in trace:
            j = feeds(loop_path, depth, path, u)
            if j >= 0:
                rho = u[1:depth]
                reached[rho] = max(reached.get(rho, -1), j)
    return PMap(reached)


def step(
    program: Program, state: DifferentialState, inputs: Mapping[str, ZSet]
) -> tuple[DifferentialState, ZSet]:
    """Feed the input deltas of the next version; the new state and the output delta.

    Every node is evaluated at the times of this version only (``(t,)`` at the top,
    ``(t, i, ...)`` inside loops), from its children's differences at those times
    and the traces of earlier times, by the DD-CLAIM-RULE-* rules.
    """
    for name in inputs:
        if name not in program.inputs:
            raise DataflowError("malformed-input", f"undeclared input {name!r}")
    run = _Step(program, state, inputs)
    out = run.diff(program.output, (), (state.version,), {})
    return run.next_state(), out


def incremental_output_deltas(
    program: Program, deltas: Sequence[Mapping[str, ZSet]]
) -> tuple[ZSet, ...]:
    """The observations computed version by version with :func:`step`."""
    state, out = initial_state(), []
    for delta in deltas:
        state, d = step(program, state, delta)
        out.append(d)
    return tuple(out)


#: For each bound loop variable: the path of its ``iterate`` and the depth of its body.
_Bindings = Mapping[str, tuple[Path, int]]


class _Step:
    """The work of one version (local, discarded after :func:`step`)."""

    def __init__(
        self, program: Program, state: DifferentialState, inputs: Mapping[str, ZSet]
    ) -> None:
        self.program = program
        self.inputs = inputs
        self.version = state.version
        # One entry per node: the traces themselves are persistent, shared with ``state``.
        self.traces: dict[Path, PMap[Time, ZSet]] = {
            path: PMap(trace) for path, trace in state.traces.items()
        }
        self.key_of = arranged_inputs(program.output)
        self.arrangements: dict[Path, Arrangement] = {
            path: state.arrangements[path] if path in state.arrangements
            else arrange(self.traces.get(path, EMPTY_TRACE), key_of)
            for path, key_of in self.key_of.items()
        }
        self.drafts: dict[Path, MapEvolver[Any, Trace]] = {}
        #: The keys of each arranged node's differences in this version, by time.
        self.touched: dict[Path, dict[Time, frozenset[Any]]] = {}
        self.loops = loops(program.output)
        #: Each loop's iterations reached in earlier versions (DD-DEC-PERSISTENT-LOOPS) ...
        self.reached: dict[Path, PMap[Time, int]] = {
            path: PMap(state.reached[path]) if path in state.reached
            else iterations_reached(state.traces, path, depth)
            for path, depth in self.loops.items()
        }
        #: ... and in this one, by outer time without the version.
        self.reached_now: dict[Path, dict[Time, int]] = {path: {} for path in self.loops}

    def next_state(self) -> DifferentialState:
        """The state after this version: what was recorded, sharing the rest."""
        arrangements = {**self.arrangements,
                        **{path: draft.persistent() for path, draft in self.drafts.items()}}
        reached = {}
        for path, before in self.reached.items():
            draft = before.evolver()
            for rho, j in self.reached_now[path].items():
                draft[rho] = max(draft.get(rho, -1), j)
            reached[path] = draft.persistent()
        return DifferentialState(self.version + 1, PMap(self.traces), PMap(arrangements), PMap(reached))

    def trace(self, path: Path) -> PMap[Time, ZSet]:
        return self.traces.get(path, EMPTY_TRACE)

    def at(self, path: Path, t: Time) -> ZSet:
        return self.trace(path).get(t, ZSet.zero())

    def record(self, path: Path, t: Time, diff: ZSet) -> ZSet:
        if not diff.is_empty():
            assert t not in self.trace(path), "a node's difference at a time is computed once"
            self.traces[path] = self.trace(path).set(t, diff)
            if path in self.key_of:
                self.arrange(path, t, diff)
            for loop_path, depth in self.loops.items():  # DD-DEC-PERSISTENT-LOOPS
                j = feeds(loop_path, depth, path, t)
                if j >= 0:
                    now, rho = self.reached_now[loop_path], t[1:depth]
                    now[rho] = max(now.get(rho, -1), j)
        return diff

    def arrange(self, path: Path, t: Time, diff: ZSet) -> None:
        """File ``diff`` under its keys in the arrangement of ``path`` (DD-DEC-PERSISTENT-TRACES)."""
        if path not in self.drafts:
            self.drafts[path] = PMap(self.arrangements[path]).evolver()
        draft = self.drafts[path]
        parts = split_by_key(diff, self.key_of[path])
        for k, part in parts.items():
            draft[k] = PMap(draft.get(k, EMPTY_TRACE)).set(t, part)
        self.touched.setdefault(path, {})[t] = frozenset(parts)

    def key_trace(self, path: Path, k: Any) -> Trace:
        """The trace of the elements of key ``k`` at ``path`` (zero where it has none)."""
        draft = self.drafts.get(path)
        if draft is not None:
            return draft.get(k, EMPTY_TRACE)
        return self.arrangements[path].get(k, EMPTY_TRACE)

    def candidate_keys(self, path: Path, t: Time) -> set[Any]:
        """The keys of the differences of ``path`` in this version at times ``u <= t``.

        A key with no such difference is not affected at ``t`` (:func:`affected_keys`,
        first coordinate: the version, ``t_0``, is this one), so a keyed rule or the join
        rule gives zero for it: only these keys are evaluated (DD-DEC-PERSISTENT-TRACES)."""
        keys: set[Any] = set()
        for u, touched in self.touched.get(path, {}).items():
            if leq(u, t):
                keys |= touched
        return keys

    def by_key(self, rule: Callable[[Any], ZSet], keys: set[Any]) -> ZSet:
        """``Σ_{k ∈ keys} rule(k)``: a rule applied key by key on arrangements."""
        return sum_zsets(rule(k) for k in keys)

    def diff(self, node: Node, path: Path, t: Time, bound: _Bindings) -> ZSet:
        """The difference of ``node`` at time ``t`` (recorded in its trace)."""
        return self.record(path, t, self._compute(node, path, t, bound))

    def _compute(self, node: Node, path: Path, t: Time, bound: _Bindings) -> ZSet:
        if isinstance(node, Input):
            # Extend: an input is constant across iterations, so its difference
            # lives at (t, 0, ..., 0) only.
            constant = all(c == 0 for c in t[1:])
            return self.inputs.get(node.name, ZSet.zero()) if constant else ZSet.zero()
        if isinstance(node, Var):
            loop_path, depth = bound[node.name]
            constant = all(c == 0 for c in t[depth:])
            return self.var_diff(loop_path, t[:depth]) if constant else ZSet.zero()
        if isinstance(node, Iterate):
            return self.iterate(node, path, t, bound)
        subs = [
            self.diff(child, (*path, i), t, bound) for i, child in enumerate(children(node))
        ]
        if isinstance(node, Map):
            return linear_rule(lambda c: map_zset(node.fn, c), {t: subs[0]}, t)
        if isinstance(node, Filter):
            return linear_rule(lambda c: filter_zset(node.pred, c), {t: subs[0]}, t)
        if isinstance(node, Negate):
            return linear_rule(lambda c: -c, {t: subs[0]}, t)
        if isinstance(node, Plus):
            return subs[0] + subs[1]
        # Join, distinct and reduce act on each key separately: their rules are applied
        # key by key, to the keys this version touches (DD-DEC-PERSISTENT-TRACES).
        if isinstance(node, Join):
            left, right = (*path, 0), (*path, 1)
            return self.by_key(
                lambda k: join_rule(self.key_trace(left, k), self.key_trace(right, k), t),
                self.candidate_keys(left, t) | self.candidate_keys(right, t))
        arg = (*path, 0)
        if isinstance(node, Distinct):
            return self.by_key(
                lambda k: keyed_rule(distinct, element_key, self.key_trace(arg, k), t),
                self.candidate_keys(arg, t))
        assert isinstance(node, Reduce)
        agg = node.agg
        return self.by_key(
            lambda k: keyed_rule(lambda c: reduce(agg, c), pair_key, self.key_trace(arg, k), t),
            self.candidate_keys(arg, t))

    def var_diff(self, loop_path: Path, u: Time) -> ZSet:
        """DD-CLAIM-RULE-ITERATE: the loop variable ``d = in(seed) + fb(body)`` at ``u = (τ, i)``:
        ``δd = δseed_τ`` at ``i = 0``, ``δbody_(τ,0) - δseed_τ`` at ``i = 1`` (Proposition 3,
        ``δ(in)``), ``δbody_(τ,i-1)`` at ``i >= 2`` (``δ(fb) = fb``)."""
        tau, i = u[:-1], u[-1]
        seed, body = (*loop_path, 0), (*loop_path, 1)
        if i == 0:
            return self.at(seed, tau)
        if i == 1:
            return self.at(body, (*tau, 0)) - self.at(seed, tau)
        return self.at(body, (*tau, i - 1))

    def iterate(self, node: Iterate, path: Path, t: Time, bound: _Bindings) -> ZSet:
        """DD-CLAIM-RULE-ITERATE: run the body at ``(t, 0), (t, 1), ...`` until the loop
        variable's next difference is zero and no earlier time has differences at a
        later iteration; the egress is ``Σ_i δd_(t,i)`` (Proposition 3, ``δ(out_k)``).

        The bound is the standard semantics' (:func:`evaluate`): refuse with
        ``no-fixpoint`` iff ``X_{m} != X_{m-1}`` at this time, ``m = max_iterations``
        (a fixpoint reached within ``m`` body applications is kept by every later
        one). That is decided from the collections, not from the number of times the
        body runs here: earlier versions may make the differential evaluation look at
        iterations past the fixpoint of this version (a seed alone reaches iteration 1).
        """
        depth = len(t)
        self.diff(node.seed, (*path, 0), t, bound)
        inner = {**bound, node.var: (path, depth + 1)}
        last_earlier = self.last_earlier_iteration(path, t)
        bound_m = self.program.max_iterations
        i = 0
        while True:
            self.diff(node.body, (*path, 1), (*t, i), inner)
            if self.var_diff(path, (*t, i + 1)).is_empty() and i + 1 > last_earlier:
                break
            i += 1
            if i == bound_m and not self.variable_step(path, t, bound_m - 1).is_empty():
                raise DataflowError(
                    "no-fixpoint", f"iterate {node.var!r}: no fixpoint in {bound_m} steps"
                )
            # Past a fixpoint reached at k < bound, the differences stop at iteration
            # max(k, last_earlier): earlier versions have none beyond last_earlier.
            assert i <= max(bound_m - 1, last_earlier), "differences did not stop"
        total = ZSet.zero()
        for j in range(i + 1):
            total = total + self.var_diff(path, (*t, j))
        return total

    def variable_step(self, loop_path: Path, t: Time, i: int) -> ZSet:
        """``X_{i+1} - X_i`` at time ``t``: the loop variable's differences at iteration
        ``i + 1`` summed over the times ``τ' <= t`` (its ``(i+1)``-th iterate minus its
        ``i``-th, as collections)."""
        depth = len(t)
        total = ZSet.zero()
        for u, d in self.trace((*loop_path, 1)).items():  # δbody_(τ',i) feeds δd_(τ',i+1)
            if u[depth] == i and leq(u[:depth], t):
                total = total + d
        if i == 0:  # δd_(τ',1) also retracts δseed_τ'
            for u, d in self.trace((*loop_path, 0)).items():
                if leq(u, t):
                    total = total - d
        return total

    def last_earlier_iteration(self, loop_path: Path, t: Time) -> int:
        """The largest iteration index ``j`` with a non-zero difference of the loop
        variable or of a node of the body at a time ``(τ', j, ...)``, ``τ' < t``
        (-1 if none). Beyond it, earlier versions contribute nothing.

        Read from the iterations reached (DD-DEC-PERSISTENT-LOOPS), not from the traces:
        every earlier version's outer times ``(v', ρ')`` are below ``t = (v, ρ)`` iff
        ``ρ' <= ρ``, and this version's iff besides ``ρ' != ρ``; there are as many ``ρ'``
        as iterations of the enclosing loops (one, ``()``, for a loop at the top)."""
        rho = t[1:]
        earlier = [j for r, j in self.reached[loop_path].items() if leq(r, rho)]
        now = [j for r, j in self.reached_now[loop_path].items() if r != rho and leq(r, rho)]
        return max([-1, *earlier, *now])
