"""pydbsp (DBSP in pure Python) under the conformance suite's zset and fixpoint areas, through the
JSON-lines protocol.

    .engines/pydbsp/bin/python engines/pydbsp/adapter.py

It runs in pydbsp's own virtual environment (Python 3.12 or later) and imports nothing of the
project. Every case is one pydbsp circuit on pydbsp's time lattice (``dbsp_time(2)``: axis 0 the
versions, axis 1 the iterations; ``dbsp_time(3)`` when an ``iterate`` nests in another's body),
evaluated by pydbsp's ``Evaluator``; each step pushes the inputs' deltas at outer tick ``t`` and
reads the output at ``(t, 0…)``. Elements are the canonical JSON of the suite's values (sorted
object keys, 1.0 written 1), so true and 1 stay apart.

* zset: the program's nodes as pydbsp's operators, each input lifted into the lattice by
  ``LiftStreamIntroduction`` (and ``CoreTimeAxisIntroduction(axis=2)``): map ``LiftLiftProject``,
  filter ``LiftLiftSelect``, plus ``Lift2`` of ``ZSetAddition.add``, negate ``Lift1`` of
  ``ZSetAddition.neg``, join ``IndexedDeltaLiftedDeltaLiftedJoin`` over ``LiftIndex`` by the pair's
  key, distinct ``DeltaLiftedDeltaLiftedDistinct``, reduce ``DeltaLiftedDeltaLiftedGroupBy``; on
  three axes join and distinct are pydbsp's ``DeltaLiftedDeltaLiftedDeltaLifted…`` (its stratified
  Datalog's), and reduce is unsupported (no 3-axis group-by). pydbsp's recursion is driven by its
  caller (its reachability and Datalog bodies take the loop's state as an ``Input`` that the caller
  pushes back, as its own tests and ``Evaluator.saturate_inner`` do): an ``iterate`` is an
  ``Input`` for its variable, pushed at ``(c, n)`` (``c`` the enclosing cell, ``(t,)`` at the top)
  with X_n differentiated on every axis, from the body's output at ``(c, n - 1)``, until
  X_{n+1} = X_n and the depth of every cell before ``c`` is passed; its value downstream is a
  second ``Input`` pushed at ``c`` with the fixpoint's change there.
* fixpoint: the live set by pydbsp's ``IndexedIncrementalReachabilityBody`` (transitive closure
  over edges), driven as pydbsp's streaming tests drive it; each root ``r`` enters as an edge from
  a source node of its own, and the live set is what that node reaches. The adapter applies set
  semantics and removals first, pushing only the edges that change.
"""

from __future__ import annotations

import importlib.metadata
import json
import sys
from collections.abc import Callable, Iterable
from typing import Any, TypeAlias

from pydbsp.circuit import Circuit
from pydbsp.compute import ComputeCtx
from pydbsp.core import Antichain, dbsp_time
from pydbsp.datalog_stratified import (
    DeltaLiftedDeltaLiftedDeltaLiftedDistinct,
    DeltaLiftedDeltaLiftedDeltaLiftedJoin,
)
from pydbsp.evaluate import Evaluator
from pydbsp.indexed_relational_operators import (
    DeltaLiftedDeltaLiftedGroupBy,
    IndexedDeltaLiftedDeltaLiftedJoin,
    IndexedIncrementalReachabilityBody,
    LiftIndex,
)
from pydbsp.indexed_zset import IndexedZSetAddition
from pydbsp.operator import CoreTimeAxisIntroduction, Input, Lift1, Lift2, LiftStreamIntroduction
from pydbsp.progress import NodeId, Time
from pydbsp.relational_operators import (
    DeltaLiftedDeltaLiftedDistinct,
    LiftLiftProject,
    LiftLiftSelect,
)
from pydbsp.storage import DictStorage
from pydbsp.zset import ZSet, ZSetAddition

ROOT = "\x00root"  # the source node of the fixpoint area's root edges (no canonical JSON spells it)
MAX_INNER = 10_000  # a guard on the fixpoint area's inner loop (the suite's graphs are small)

Z: TypeAlias = "ZSet[str]"
GROUP: ZSetAddition[str] = ZSetAddition[str]()


def canon(value: Any) -> str:
    """One spelling per JSON value: sorted object keys, 1.0 written 1, true never 1."""
    def norm(v: Any) -> Any:
        if isinstance(v, float) and v.is_integer():
            return int(v)
        if isinstance(v, list):
            return [norm(x) for x in v]
        if isinstance(v, dict):
            return {k: norm(x) for k, x in v.items()}
        return v
    return json.dumps(norm(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class Refused(Exception):
    def __init__(self, error_class: str, detail: str = "") -> None:
        super().__init__(detail or error_class)
        self.error_class = error_class


def evaluator() -> Evaluator[Time]:
    return Evaluator[Time](circuit=Circuit[Time](), storage=DictStorage(), ctx=ComputeCtx(lattice=dbsp_time(2)),
                           group=GROUP)


def input_1d(e: Evaluator[Time]) -> NodeId:
    return Input[Z](frontier=Antichain(dbsp_time(1))).connect(e.circuit, ())


def input_2d(e: Evaluator[Time]) -> NodeId:
    return Input[Z](frontier=Antichain(dbsp_time(2))).connect(e.circuit, ())


# --- the zset vocabulary, over canonical JSON -------------------------------------------------------


def integer(x: Any) -> int:
    if not isinstance(x, int) or isinstance(x, bool):
        raise Refused("malformed-input", f"not an integer: {canon(x)}")
    return x


def pair(x: Any) -> list[Any]:
    if not isinstance(x, list) or len(x) != 2:
        raise Refused("malformed-input", f"not a pair: {canon(x)}")
    return x


MAPS: dict[str, Callable[[Any], Any]] = {
    "inc": lambda x: integer(x) + 1, "double": lambda x: 2 * integer(x), "neg": lambda x: -integer(x),
    "mod3": lambda x: integer(x) % 3, "key_mod3": lambda x: [integer(x) % 3, x], "dup": lambda x: [x, x],
    "swap": lambda x: [pair(x)[1], x[0]], "fst": lambda x: pair(x)[0], "snd": lambda x: pair(x)[1],
}
FILTERS: dict[str, Callable[[Any], bool]] = {
    "even": lambda x: integer(x) % 2 == 0, "odd": lambda x: integer(x) % 2 == 1,
    "positive": lambda x: integer(x) > 0, "nonnegative": lambda x: integer(x) >= 0,
    "small": lambda x: 0 <= integer(x) < 10, "fst_even": lambda x: integer(pair(x)[0]) % 2 == 0,
    "fst_lt_snd": lambda x: integer(pair(x)[0]) < integer(x[1]),
}
AGGREGATES: dict[str, Callable[[list[tuple[Any, int]]], int]] = {  # over one key's (v, weight), weights non-zero
    "count": lambda vs: sum(w for _, w in vs),
    "sum": lambda vs: sum(w * integer(v) for v, w in vs),
    "min": lambda vs: min(integer(v) for v, _ in vs),
    "max": lambda vs: max(integer(v) for v, _ in vs),
}


def named(table: dict[str, Any], name: Any, what: str) -> Any:
    if not isinstance(name, str) or name not in table:
        raise Refused("malformed-input", f"unknown {what} {canon(name)}")
    return table[name]


def key_of(element: str) -> str:
    """The canonical JSON of a pair's first component (the join's and reduce's key)."""
    return canon(pair(json.loads(element))[0])


def lifted(f: Callable[[Any], Any]) -> Callable[[str], str]:
    return lambda element: canon(f(json.loads(element)))


def aggregate_of(agg: Callable[[list[tuple[Any, int]]], int]) -> Callable[[Iterable[tuple[str, int]]], int]:
    return lambda items: agg([(pair(json.loads(r))[1], w) for r, w in items])


Cell = tuple[int, ...]


def nesting(node: Any) -> int:
    """How deep ``iterate`` nodes nest in ``node`` (0: none)."""
    if not isinstance(node, dict):
        return 0
    below = max((nesting(node.get(f)) for f in ("arg", "left", "right", "seed")), default=0)
    return max(below, 1 + nesting(node.get("body"))) if node.get("op") == "iterate" else max(
        below, nesting(node.get("body")))


def below(a: Cell, b: Cell) -> bool:
    """``a`` strictly before ``b`` in the product order."""
    return a != b and all(x <= y for x, y in zip(a, b, strict=True))


class Iterate:
    """An ``iterate`` node on axis ``axis``: its variable's input, the body's output node, the seed's
    node, the input carrying the fixpoint's change downstream, and the iterates directly in its body."""

    def __init__(self, axis: int, var: NodeId, out: NodeId) -> None:
        self.axis, self.var, self.out = axis, var, out
        self.seed: NodeId = -1
        self.body: NodeId = -1
        self.children: list[Iterate] = []
        self.pushed: dict[Cell, Z] = {}  # (enclosing cell c, n) -> the push at (c, n)
        self.depth: dict[Cell, int] = {}  # enclosing cell -> the last n pushed there


class Program:
    """The suite's zset program as one pydbsp circuit, on ``dbsp_time(axes)``: axis 0 the versions,
    one more axis per level of ``iterate`` nesting (at least 2: pydbsp's incremental join, distinct
    and group-by are 2-axis; 3-axis join and distinct come with its stratified Datalog)."""

    def __init__(self, program: Any) -> None:
        if not isinstance(program, dict) or not isinstance(program.get("inputs"), list):
            raise Refused("malformed-input", "a program is {inputs, output}")
        self.axes = max(2, 1 + nesting(program.get("output")))
        if self.axes > 3:
            raise Refused("unsupported", "iterates nested three deep: pydbsp has no 4-axis join or distinct")
        self.e = Evaluator[Time](circuit=Circuit[Time](), storage=DictStorage(),
                                 ctx=ComputeCtx(lattice=dbsp_time(self.axes)), group=GROUP)
        self.max_iterations = program.get("max_iterations", 100)
        if not isinstance(self.max_iterations, int) or isinstance(self.max_iterations, bool):
            raise Refused("malformed-input", "max_iterations")
        self.inputs: dict[str, NodeId] = {}
        self.lifted: dict[str, NodeId] = {}
        for name in program["inputs"]:
            if not isinstance(name, str) or name in self.inputs:
                raise Refused("malformed-input", f"input {canon(name)}")
            self.inputs[name] = input_1d(self.e)
            node = LiftStreamIntroduction[Z](group=GROUP).connect(self.e.circuit, (self.inputs[name],))
            for axis in range(2, self.axes):
                node = CoreTimeAxisIntroduction[Z](axis=axis, group=GROUP).connect(self.e.circuit, (node,))
            self.lifted[name] = node
        self.iterates: list[Iterate] = []  # the outermost, in evaluation order (an iterate after those it reads)
        self.output = self.compile(program.get("output"), {}, self.iterates)
        self.version = 0

    def input_nd(self) -> NodeId:
        return Input[Z](frontier=Antichain(dbsp_time(self.axes))).connect(self.e.circuit, ())

    def every_iterate(self) -> list[Iterate]:
        found, todo = [], list(self.iterates)
        while todo:
            it = todo.pop()
            found.append(it)
            todo.extend(it.children)
        return found

    def compile(self, node: Any, scope: dict[str, Iterate], siblings: list[Iterate]) -> NodeId:
        c = self.e.circuit
        if not isinstance(node, dict):
            raise Refused("malformed-input", "a node is an object")
        op = node.get("op")

        def arg(field: str = "arg") -> NodeId:
            return self.compile(node.get(field), scope, siblings)

        if op == "input":
            if node.get("name") not in self.lifted:
                raise Refused("malformed-input", f"unknown input {canon(node.get('name'))}")
            return self.lifted[node["name"]]
        if op == "var":
            if node.get("name") not in scope:
                raise Refused("malformed-input", f"unbound var {canon(node.get('name'))}")
            return scope[node["name"]].var
        if op == "map":
            f = named(MAPS, node.get("fn"), "map function")
            return LiftLiftProject[str, str](f=lifted(f)).connect(c, (arg(),))
        if op == "filter":
            p = named(FILTERS, node.get("pred"), "filter predicate")
            return LiftLiftSelect[str](pred=lambda element: bool(p(json.loads(element)))).connect(c, (arg(),))
        if op in ("plus", "union"):
            left, right = arg("left"), arg("right")
            return Lift2[Z, Z, Z](op=GROUP.add).connect(c, (left, right))
        if op == "negate":
            return Lift1[Z, Z](f=GROUP.neg).connect(c, (arg(),))
        if op == "distinct":
            if self.axes == 3:
                return DeltaLiftedDeltaLiftedDeltaLiftedDistinct[str](inner_group=GROUP).connect(c, (arg(),))
            return DeltaLiftedDeltaLiftedDistinct[str](inner_group=GROUP).connect(c, (arg(),))
        if op == "join":
            left, right = arg("left"), arg("right")

            def joined(k: str, x: str, y: str) -> str:
                return canon([json.loads(k), [json.loads(x)[1], json.loads(y)[1]]])

            if self.axes == 3:
                return DeltaLiftedDeltaLiftedDeltaLiftedJoin[str, str, str](
                    pred=lambda x, y: key_of(x) == key_of(y), proj=lambda x, y: joined(key_of(x), x, y),
                    group_a=GROUP, group_b=GROUP, out_group=GROUP).connect(c, (left, right))
            indexed = IndexedZSetAddition[str, str](GROUP, key_of)
            a = LiftIndex[str, str](indexer=key_of).connect(c, (left,))
            b = LiftIndex[str, str](indexer=key_of).connect(c, (right,))
            return IndexedDeltaLiftedDeltaLiftedJoin[str, str, str, str](
                proj=joined, group_a=indexed, group_b=indexed, out_group=GROUP).connect(c, (a, b))
        if op == "reduce":
            agg = named(AGGREGATES, node.get("agg"), "aggregate")
            if self.axes == 3:
                raise Refused("unsupported", "reduce beside a nested iterate: pydbsp has no 3-axis group-by")
            indexed_arg = LiftIndex[str, str](indexer=key_of).connect(c, (arg(),))
            grouped = DeltaLiftedDeltaLiftedGroupBy[str, str, int](
                aggregate=aggregate_of(agg), group=IndexedZSetAddition[str, str](GROUP, key_of),
                out_group=ZSetAddition[tuple[str, int]]()).connect(c, (indexed_arg,))
            return LiftLiftProject[tuple[str, int], str](f=lambda kc: canon([json.loads(kc[0]), kc[1]])).connect(
                c, (grouped,))
        if op == "iterate":
            var = node.get("var")
            if not isinstance(var, str):
                raise Refused("malformed-input", "iterate's var")
            it = Iterate(1 + len(scope), self.input_nd(), self.input_nd())
            it.seed = self.compile(node.get("seed"), scope, siblings)
            it.body = self.compile(node.get("body"), {**scope, var: it}, it.children)
            siblings.append(it)
            return it.out
        raise Refused("malformed-input", f"unknown node {canon(op)}")

    def cell(self, *coordinates: int) -> Cell:
        return coordinates + (0,) * (self.axes - len(coordinates))

    def step(self, inputs: Any) -> list[list[Any]]:
        if not isinstance(inputs, dict) or any(name not in self.inputs for name in inputs):
            raise Refused("malformed-input", "inputs")
        t = self.version
        saved = [(it, dict(it.pushed), dict(it.depth)) for it in self.every_iterate()]
        try:
            out = self.run_version(t, inputs)
        except Refused:
            # a refused version changes nothing: its cells leave pydbsp's storage (Storage.evict),
            # the iterates' bookkeeping is as before, and the next version takes its tick
            for node in range(len(self.e.circuit.progress_rules)):
                for cell in [c for c in self.e.storage.times(node) if c[0] == t]:
                    self.e.storage.evict(node, cell)
            for it, pushed, depth in saved:
                it.pushed, it.depth = pushed, depth
            raise
        self.version += 1
        return out

    def run_version(self, t: int, inputs: dict[str, Any]) -> list[list[Any]]:
        for name, node in self.inputs.items():
            rows: dict[str, int] = {}
            for element, weight in inputs.get(name, []):
                s = canon(element)
                rows[s] = rows.get(s, 0) + int(weight)
            self.e.push(node, ZSet({s: w for s, w in rows.items() if w != 0}), t=(t,))
        for it in self.iterates:
            self.saturate(it, (t,))
        out: Z = self.e.read(self.output, self.cell(t))
        return [[json.loads(s), w] for s, w in out.items() if w != 0]

    def saturate(self, it: Iterate, c: Cell) -> None:
        """Drive ``it`` at its enclosing cell ``c`` (one coordinate per axis below ``it.axis``): push
        the var's X_n at ``(c, n)`` (differentiated on every axis), read the body's Y_n at ``(c, n)``,
        until X_{n+1} = X_n (n + 1 body evaluations at most max_iterations) and n passes the depth
        of every cell before ``c``; then push the fixpoint's change at ``c`` into ``it.out``."""
        dseed: Z = self.e.read(it.seed, self.cell(*c))
        prior = max((d for e, d in it.depth.items() if below(e, c)), default=-1)
        change = GROUP.identity()  # the sum of the pushes at c: the fixpoint's change there
        pushed = dseed
        n = 0
        converged = False
        while True:
            self.e.push(it.var, pushed, t=self.cell(*c, n))
            it.pushed[(*c, n)] = pushed
            change = GROUP.add(change, pushed)
            if converged and n > prior:
                break
            for child in it.children:
                self.saturate(child, (*c, n))
            d2y: Z = self.e.read(it.body, self.cell(*c, n))
            pushed = GROUP.add(d2y, GROUP.neg(dseed)) if n == 0 else d2y
            if not converged:
                # X_{n+1} - X_n at c: the pushes at (e, n + 1) for the cells e before c, and this one
                step = pushed
                for (*e, m), z in it.pushed.items():
                    if m == n + 1 and below(tuple(e), c):
                        step = GROUP.add(step, z)
                converged = step.is_identity()
                if not converged and n + 1 >= self.max_iterations:
                    raise Refused("no-fixpoint", f"no fixpoint within {self.max_iterations} iterations")
            n += 1
        it.depth[c] = n
        self.e.push(it.out, change, t=self.cell(*c))


# --- fixpoint ----------------------------------------------------------------------------------------


class Reach:
    """The live set: what ROOT reaches in the transitive closure of the edges and of ROOT -> r per root."""

    def __init__(self) -> None:
        self.e = evaluator()
        self.edges_1d = input_1d(self.e)
        self.state_2d = input_2d(self.e)
        self.body = IndexedIncrementalReachabilityBody[str](edge_group=ZSetAddition[tuple[str, str]]()).connect(
            self.e.circuit, (self.edges_1d, self.state_2d))
        self.version = 0
        self.deepest = -1
        self.roots: dict[str, Any] = {}
        self.edges: dict[str, list[Any]] = {}
        self.live: dict[str, Any] = {}

    def step(self, step: dict[str, Any]) -> dict[str, Any]:
        if step.get("op") not in ("make", "apply"):
            raise Refused("malformed-input")
        make = step["op"] == "make"
        roots: dict[str, Any] = {} if make else dict(self.roots)
        edges: dict[str, list[Any]] = {} if make else dict(self.edges)
        for r in step.get("remove_roots", []):
            roots.pop(canon(r), None)
        for e in step.get("remove_edges", []):
            edges.pop(canon(e), None)
        for r in [*step.get("roots", []), *step.get("add_roots", [])]:
            roots[canon(r)] = r
        for e in [*step.get("edges", []), *step.get("add_edges", [])]:
            if not isinstance(e, list) or len(e) != 2:
                raise Refused("malformed-input", "an edge is a pair")
            edges[canon(e)] = e
        delta: dict[tuple[str, str], int] = {}
        for s in set(self.roots) ^ set(roots):
            delta[(ROOT, s)] = 1 if s in roots else -1
        for s in set(self.edges) ^ set(edges):
            u, v = edges[s] if s in edges else self.edges[s]
            delta[(canon(u), canon(v))] = 1 if s in edges else -1
        values = {**{s: r for s, r in roots.items()},
                  **{canon(x): x for e in edges.values() for x in e}, **self.live}
        self.roots, self.edges = roots, edges
        t = self.version
        self.version += 1
        self.e.push(self.edges_1d, ZSet(delta), t=(t,))
        # as pydbsp's streaming tests drive a 2-D body: push each inner diff back as the state, until
        # a diff is empty past the deepest inner tick of every earlier version
        closure: dict[tuple[str, str], int] = {}
        depth = -1
        for k in range(MAX_INNER):
            diff: ZSet[tuple[str, str]] = self.e.read(self.body, (t, k))
            if not diff.inner and k > self.deepest:
                break
            depth = k
            self.e.push(self.state_2d, diff, t=(t, k))
            for edge, w in diff.items():
                closure[edge] = closure.get(edge, 0) + w
        else:
            raise RuntimeError(f"no fixpoint within {MAX_INNER} inner ticks")
        self.deepest = max(self.deepest, depth)
        added, removed = [], []
        for (u, v), w in closure.items():
            if u != ROOT or w == 0:
                continue
            if w == 1 and v not in self.live:
                self.live[v] = values[v]
                added.append(values[v])
            elif w == -1 and v in self.live:
                removed.append(self.live.pop(v))
            else:
                raise RuntimeError(f"pydbsp's closure changed {v} by {w} (live: {v in self.live})")
        return {"current": list(self.live.values()), "added": added, "removed": removed}


# --- the protocol ---------------------------------------------------------------------------------


def run_case(case: dict[str, Any]) -> dict[str, Any]:
    observations: list[dict[str, Any]] = []
    try:
        if case["area"] == "zset":
            try:
                program: Program | Refused = Program(case["setup"].get("program"))
            except Refused as exc:
                program = exc
            for step in case["steps"]:
                try:
                    if isinstance(program, Refused):
                        raise program
                    if step.get("op") != "step":
                        raise Refused("malformed-input")
                    observations.append({"output": program.step(step.get("inputs", {}))})
                except Refused as exc:
                    if exc.error_class == "unsupported":
                        return {"skipped": {"message": str(exc)}}
                    observations.append({"error": exc.error_class})
        elif case["area"] == "fixpoint":
            reach = Reach()
            for step in case["steps"]:
                try:
                    observations.append(reach.step(step))
                except Refused as exc:
                    observations.append({"error": exc.error_class})
        else:
            return {"skipped": {"message": f"area {case['area']} not implemented"}}
    except Exception as exc:  # the engine failed: report it, go on with the next case
        return {"errored": {"message": f"{type(exc).__name__}: {exc}", "context": {}}}
    return {"result": {"observations": observations}}


def main() -> int:
    sys.setrecursionlimit(100_000)  # pydbsp's Evaluator.read recurses through each node's history
    for line in sys.stdin:
        message = json.loads(line)
        if message["cmd"] == "start":
            reply: dict[str, Any] = {"implementation": {
                "name": "pydbsp", "version": importlib.metadata.version("pydbsp"), "language": "python",
                "areas": ["zset", "fixpoint"], "features": ["iterate", "nested-iterate"],
                "configuration": {"lattice": "dbsp_time(2), dbsp_time(3) for a nested iterate", "fixpoint": "IndexedIncrementalReachabilityBody"}}}
        elif message["cmd"] == "run":
            reply = {"seq": message["seq"], **run_case(message["case"])}
        else:
            return 0
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
