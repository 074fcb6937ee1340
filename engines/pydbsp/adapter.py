"""pydbsp (DBSP in pure Python) under the conformance suite's zset and fixpoint areas, through the
JSON-lines protocol.

    .engines/pydbsp/bin/python engines/pydbsp/adapter.py

It runs in pydbsp's own virtual environment (Python 3.12 or later) and imports nothing of the
project. Every case is one pydbsp circuit on pydbsp's 2-D time lattice (``dbsp_time(2)``: axis 0
the versions, axis 1 the iterations), evaluated by pydbsp's ``Evaluator``; each step pushes the
inputs' deltas at outer tick ``t`` and reads the output at ``(t, 0)``. Elements are the canonical
JSON of the suite's values (sorted object keys, 1.0 written 1), so true and 1 stay apart.

* zset: the program's nodes as pydbsp's operators, each input lifted into the 2-D lattice by
  ``LiftStreamIntroduction``: map ``LiftLiftProject``, filter ``LiftLiftSelect``, plus ``Lift2``
  of ``ZSetAddition.add``, negate ``Lift1`` of ``ZSetAddition.neg``, join
  ``IndexedDeltaLiftedDeltaLiftedJoin`` over ``LiftIndex`` by the pair's key, distinct
  ``DeltaLiftedDeltaLiftedDistinct``, reduce ``DeltaLiftedDeltaLiftedGroupBy``. pydbsp's recursion
  is driven by its caller (its reachability and Datalog bodies take the loop's state as a 2-D
  ``Input`` that the caller pushes back, as its own tests and ``Evaluator.saturate_inner`` do):
  an ``iterate`` is a 2-D ``Input`` for its variable, pushed at ``(t, n)`` with the doubly
  differentiated X_n from the body's output at ``(t, n - 1)``, until X_{n+1} = X_n and the depth
  of every earlier version is passed; its value downstream is a second ``Input`` pushed at
  ``(t, 0)`` with the version's change of the fixpoint. An ``iterate`` nested in a body would
  need a third axis: the feature ``nested-iterate`` is not declared.
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
from pydbsp.evaluate import Evaluator
from pydbsp.indexed_relational_operators import (
    DeltaLiftedDeltaLiftedGroupBy,
    IndexedDeltaLiftedDeltaLiftedJoin,
    IndexedIncrementalReachabilityBody,
    LiftIndex,
)
from pydbsp.indexed_zset import IndexedZSetAddition
from pydbsp.operator import Input, Lift1, Lift2, LiftStreamIntroduction
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


class Iterate:
    """An ``iterate`` node: its variable's 2-D input, the body's output node, the seed's node, and the
    input carrying the fixpoint's change downstream."""

    def __init__(self, var: NodeId, out: NodeId) -> None:
        self.var, self.out = var, out
        self.seed: NodeId = -1
        self.body: NodeId = -1
        self.dx: dict[int, Z] = {}  # n -> X_n - X_{n-1} at the last version (its running sum over versions)
        self.depth = -1  # the deepest n pushed at any version


class Program:
    """The suite's zset program as one pydbsp circuit."""

    def __init__(self, program: Any) -> None:
        self.e = evaluator()
        if not isinstance(program, dict) or not isinstance(program.get("inputs"), list):
            raise Refused("malformed-input", "a program is {inputs, output}")
        self.max_iterations = program.get("max_iterations", 100)
        if not isinstance(self.max_iterations, int) or isinstance(self.max_iterations, bool):
            raise Refused("malformed-input", "max_iterations")
        self.inputs: dict[str, NodeId] = {}
        self.lifted: dict[str, NodeId] = {}
        for name in program["inputs"]:
            if not isinstance(name, str) or name in self.inputs:
                raise Refused("malformed-input", f"input {canon(name)}")
            self.inputs[name] = input_1d(self.e)
            self.lifted[name] = LiftStreamIntroduction[Z](group=GROUP).connect(self.e.circuit, (self.inputs[name],))
        self.iterates: list[Iterate] = []  # in evaluation order: an iterate after those it reads
        self.output = self.compile(program.get("output"), {})
        self.version = 0

    def compile(self, node: Any, scope: dict[str, Iterate]) -> NodeId:
        c = self.e.circuit
        if not isinstance(node, dict):
            raise Refused("malformed-input", "a node is an object")
        op = node.get("op")

        def arg(field: str = "arg") -> NodeId:
            return self.compile(node.get(field), scope)

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
            return DeltaLiftedDeltaLiftedDistinct[str](inner_group=GROUP).connect(c, (arg(),))
        if op == "join":
            left, right = arg("left"), arg("right")
            indexed = IndexedZSetAddition[str, str](GROUP, key_of)
            a = LiftIndex[str, str](indexer=key_of).connect(c, (left,))
            b = LiftIndex[str, str](indexer=key_of).connect(c, (right,))

            def joined(k: str, x: str, y: str) -> str:
                return canon([json.loads(k), [json.loads(x)[1], json.loads(y)[1]]])

            return IndexedDeltaLiftedDeltaLiftedJoin[str, str, str, str](
                proj=joined, group_a=indexed, group_b=indexed, out_group=GROUP).connect(c, (a, b))
        if op == "reduce":
            agg = named(AGGREGATES, node.get("agg"), "aggregate")
            indexed_arg = LiftIndex[str, str](indexer=key_of).connect(c, (arg(),))
            grouped = DeltaLiftedDeltaLiftedGroupBy[str, str, int](
                aggregate=aggregate_of(agg), group=IndexedZSetAddition[str, str](GROUP, key_of),
                out_group=ZSetAddition[tuple[str, int]]()).connect(c, (indexed_arg,))
            return LiftLiftProject[tuple[str, int], str](f=lambda kc: canon([json.loads(kc[0]), kc[1]])).connect(
                c, (grouped,))
        if op == "iterate":
            if scope:
                raise Refused("unsupported", "an iterate nested in a body (a third time axis)")
            var = node.get("var")
            if not isinstance(var, str):
                raise Refused("malformed-input", "iterate's var")
            it = Iterate(input_2d(self.e), input_2d(self.e))
            it.seed = self.compile(node.get("seed"), scope)
            it.body = self.compile(node.get("body"), {**scope, var: it})
            self.iterates.append(it)
            return it.out
        raise Refused("malformed-input", f"unknown node {canon(op)}")

    def step(self, inputs: Any) -> list[list[Any]]:
        if not isinstance(inputs, dict) or any(name not in self.inputs for name in inputs):
            raise Refused("malformed-input", "inputs")
        t = self.version
        saved = [(it.dx, it.depth) for it in self.iterates]
        try:
            out = self.run_version(t, inputs)
        except Refused:
            # a refused version changes nothing: its cells leave pydbsp's storage (Storage.evict),
            # the iterates' bookkeeping is as before, and the next version takes its tick
            for node in range(len(self.e.circuit.progress_rules)):
                for cell in [c for c in self.e.storage.times(node) if c[0] == t]:
                    self.e.storage.evict(node, cell)
            for it, (dx, depth) in zip(self.iterates, saved, strict=True):
                it.dx, it.depth = dx, depth
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
            self.saturate(it, t)
        out: Z = self.e.read(self.output, (t, 0))
        return [[json.loads(s), w] for s, w in out.items() if w != 0]

    def saturate(self, it: Iterate, t: int) -> None:
        """Drive one iterate at version t: push d²X(t, n), read d²Y(t, n) = the body's output, until
        X_{n+1} = X_n (n + 1 body evaluations at most max_iterations) and n passes every earlier depth."""
        dseed: Z = self.e.read(it.seed, (t, 0))
        change = GROUP.identity()  # X*(t) - X*(t - 1): the sum of the version's pushes
        pushed = dseed
        n = 0
        converged_at: int | None = None
        while True:
            self.e.push(it.var, pushed, t=(t, n))
            change = GROUP.add(change, pushed)
            it.dx = {**it.dx, n: GROUP.add(it.dx.get(n, GROUP.identity()), pushed)}
            if converged_at is not None and n > it.depth:
                break
            d2y: Z = self.e.read(it.body, (t, n))
            pushed = GROUP.add(d2y, GROUP.neg(dseed)) if n == 0 else d2y
            # X_{n+1} - X_n at version t: its value at t - 1 plus this version's push
            if converged_at is None and GROUP.add(it.dx.get(n + 1, GROUP.identity()), pushed).is_identity():
                converged_at = n
            if converged_at is None and n + 1 >= self.max_iterations:
                raise Refused("no-fixpoint", f"no fixpoint within {self.max_iterations} iterations")
            n += 1
        it.depth = max(it.depth, n)
        self.e.push(it.out, change, t=(t, 0))


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
                "areas": ["zset", "fixpoint"], "features": ["iterate"],
                "configuration": {"lattice": "dbsp_time(2)", "fixpoint": "IndexedIncrementalReachabilityBody"}}}
        elif message["cmd"] == "run":
            reply = {"seq": message["seq"], **run_case(message["case"])}
        else:
            return 0
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
