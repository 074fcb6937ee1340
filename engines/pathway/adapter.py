"""pathway under the conformance suite's reduce and fixpoint areas, through the JSON-lines protocol.

    .engines/pathway/bin/python engines/pathway/adapter.py [--reducers builtin|custom]

It runs in pathway's own virtual environment and imports nothing of the project. One pathway
dataflow per case: rows enter through a Python connector subject, one commit per step; the
adapter reads the step's output from a subscription and answers when the step's time ends.

* reduce: one row per value occurrence (its own id, so a removal retracts exactly one row),
  grouped by the key's canonical JSON; ``--reducers builtin`` (default) uses pathway's reducers
  for sum, count, min and max and custom accumulators (``pw.BaseCustomAccumulator`` with
  ``retract``) for the others, ``--reducers custom`` custom accumulators for all. A reducer whose
  remove may decline has no custom-accumulator form: unsupported there.
* fixpoint: the live set by ``pw.iterate`` of ``reach = distinct(roots ∪ succ(reach))`` over roots
  and edges given as rows (set semantics and removals first are applied by the adapter, which
  sends only the rows that change).

A case whose setup says ``"observe": "changes"`` (the feature ``changes-only``: the suite's scaling
probes) is answered with each step's changes alone, read from the keys the subscription saw
change: a step then costs the adapter what the change costs, not a copy of the whole view.

Every step's rows change a ticker (count and sum of the row ids, concatenated to the output), so
every non-empty step ends one output time; a step with no rows does not touch the dataflow.
The adapter itself checks a reduce delta (Δ⁻ ⊆ C, else ``invalid-delta``).
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pathway as pw

TICK = "\x00tick"
TIMEOUT = 60.0


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
    def __init__(self, error_class: str) -> None:
        super().__init__(error_class)
        self.error_class = error_class


# --- reducers -------------------------------------------------------------------------------


def accumulator(name: str, add: Callable[[int, int], int], remove: Callable[[int, int], int]) -> type:
    """A pathway custom accumulator folding ``add`` from 0, undoing a row by ``remove``."""

    class Acc(pw.BaseCustomAccumulator):  # type: ignore[misc]
        def __init__(self, acc: int, values: tuple[int, ...]) -> None:
            self.acc, self.values = acc, values

        @classmethod
        def from_row(cls, row: list[Any]) -> Any:
            return cls(add(0, row[0]), (row[0],))

        def update(self, other: Any) -> None:
            for v in other.values:
                self.acc = add(self.acc, v)
            self.values = self.values + other.values

        def retract(self, other: Any) -> None:
            for v in other.values:
                self.acc = remove(self.acc, v)

        def compute_result(self) -> int:
            return self.acc

        def serialize(self) -> tuple[int, ...]:  # a pathway value (the class is not picklable)
            return (self.acc, *self.values)

        @classmethod
        def deserialize(cls, val: Any) -> Any:
            return cls(int(val[0]), tuple(int(v) for v in val[1:]))

    Acc.__name__ = Acc.__qualname__ = name
    return Acc


CUSTOM: dict[str, tuple[Callable[[int, int], int], Callable[[int, int], int]]] = {
    "sum": (lambda a, v: a + v, lambda a, v: a - v),
    "count": (lambda a, v: a + 1, lambda a, v: a - 1),
    "xor": (lambda a, v: a ^ v, lambda a, v: a ^ v),
    "sum_monus_int": (lambda a, v: a + v, lambda a, v: max(a - v, 0)),
    "sum_bad_remove": (lambda a, v: a + v, lambda a, v: a - 2 * v),
}
BUILTIN = {"sum": "sum", "count": "count", "min": "min", "max": "max"}


def reducer_of(name: str, params: dict[str, Any], mode: str, table: Any) -> Any:
    """The pathway reducer expression over ``table.v`` for the suite's named reducer."""
    if mode == "builtin" and name in BUILTIN:
        return getattr(pw.reducers, BUILTIN[name])(table.v) if name != "count" else pw.reducers.count()
    if name == "saturating_sum":
        cap = int(params["cap"])
        add, remove = (lambda a, v: min(cap, a + v)), (lambda a, v: a - v)
    elif name in CUSTOM:
        add, remove = CUSTOM[name]
    else:
        raise Refused("unsupported")
    return pw.reducers.udf_reducer(accumulator(name, add, remove))(table.v)


# --- one case: a dataflow fed step by step ------------------------------------------------------


class Run:
    """A pathway dataflow over rows (rid, a, b, v); ``feed`` answers each step from its output:
    ``output`` (kept up to date in place, output ``a`` -> ``b``) and the ``a`` the step touched."""

    def __init__(self, build: Callable[[Any], Any]) -> None:
        pw.internals.parse_graph.G.clear()
        self.batches: list[list[tuple[int, dict[str, Any]]] | None] = []
        self.ready = threading.Semaphore(0)
        self.time_ended = threading.Event()
        self.output: dict[str, Any] = {}
        self.touched: set[str] = set()
        run = self

        class Feeder(pw.io.python.ConnectorSubject):  # type: ignore[misc]
            def run(self) -> None:
                while True:
                    run.ready.acquire()
                    batch = run.batches.pop(0)
                    if batch is None:
                        return
                    for sign, row in batch:
                        (self.next if sign > 0 else self.delete)(**row)
                    self.commit()

            @property
            def _deletions_enabled(self) -> bool:
                return True

        class Row(pw.Schema):
            rid: int = pw.column_definition(primary_key=True)
            a: str
            b: str
            v: int

        table = pw.io.python.read(Feeder(), schema=Row, autocommit_duration_ms=None)
        ticker = table.reduce(s=pw.reducers.sum(table.rid), n=pw.reducers.count())
        tick = ticker.select(a=TICK, b=pw.apply(lambda s, n: f"{s}/{n}", ticker.s, ticker.n))
        both = pw.Table.concat_reindex(build(table), tick)
        pw.io.subscribe(both, on_change=self._change, on_time_end=lambda t: self.time_ended.set())
        self.failure: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            pw.run(monitoring_level=pw.MonitoringLevel.NONE)
        except BaseException as exc:  # reported by the step waiting for its output
            self.failure = exc
            self.time_ended.set()

    def _change(self, key: Any, row: dict[str, Any], time: int, is_addition: bool) -> None:
        if row["a"] == TICK:
            return
        self.touched.add(row["a"])
        if is_addition:
            self.output[row["a"]] = row["b"]
        elif self.output.get(row["a"]) == row["b"]:
            del self.output[row["a"]]

    def feed(self, batch: list[tuple[int, dict[str, Any]]]) -> set[str]:
        """Send one step's rows, wait for its time to end; the output ``a`` it touched
        (:attr:`output` holds the output then)."""
        if batch:
            self.time_ended.clear()
            self.batches.append(batch)
            self.ready.release()
            if not self.time_ended.wait(TIMEOUT):
                raise TimeoutError("pathway ended no output time for the step")
            if self.failure is not None:
                raise RuntimeError(f"pathway failed: {str(self.failure).splitlines()[0]}")
        touched, self.touched = self.touched, set()
        return touched

    def close(self) -> None:
        self.batches.append(None)
        self.ready.release()
        self.thread.join(TIMEOUT)


class Ids:
    def __init__(self) -> None:
        self.next = 0

    def __call__(self) -> int:
        self.next += 1
        return self.next


# --- reduce -------------------------------------------------------------------------------------


def grouped(pairs: list[list[Any]]) -> dict[str, tuple[Any, list[Any]]]:
    out: dict[str, tuple[Any, list[Any]]] = {}
    for key, values in pairs:
        out.setdefault(canon(key), (key, []))[1].extend(values)
    return out


def reduce_case(steps: list[dict[str, Any]], mode: str, only_changes: bool) -> Iterator[dict[str, Any]]:
    declare = steps[0]
    if declare.get("op") != "declare":
        raise Refused("malformed-input")
    name, params = declare["reducer"], declare.get("params", {})
    if name not in BUILTIN and name not in CUSTOM and name != "saturating_sum":
        raise Refused("unsupported")
    if mode == "custom" and name in ("min", "max"):
        raise Refused("unsupported")

    def build(table: Any) -> Any:
        view = table.groupby(table.a).reduce(table.a, acc=reducer_of(name, params, mode, table))
        return view.select(a=view.a, b=pw.apply(str, view.acc))

    run = Run(build)
    try:
        yield {}
        rows: dict[str, dict[int, tuple[Any, Any]]] = {}  # canonical key -> row id -> (key, value)
        ids = Ids()
        view: dict[str, Any] = {}
        for step in steps[1:]:
            batch: list[tuple[int, dict[str, Any]]] = []
            try:
                if step["op"] == "load":
                    minus = {s: (json.loads(s), [v for _, v in held.values()]) for s, held in rows.items()}
                    plus = grouped(step["collection"])
                elif step["op"] == "apply":
                    minus, plus = grouped(step["minus"]), grouped(step["plus"])
                    check_removal(rows, minus)
                else:
                    raise Refused("malformed-input")
            except Refused as exc:
                yield {"error": exc.error_class}
                continue
            for s, (_, values) in minus.items():
                for value in values:
                    rid = next(r for r, (_, v) in rows[s].items() if canon(v) == canon(value))
                    key, v = rows[s].pop(rid)
                    batch.append((-1, row(rid, key, v)))
            for s, (key, values) in plus.items():
                for value in values:
                    rid = ids()
                    rows.setdefault(s, {})[rid] = (key, value)
                    batch.append((1, row(rid, key, value)))
            changes = []
            for s in sorted(run.feed(batch)):
                acc = int(run.output[s]) if s in run.output else None
                if view.get(s) != acc:
                    changes.append([json.loads(s), acc])
                    if acc is None:
                        del view[s]
                    else:
                        view[s] = acc
            if only_changes:
                yield {"changes": changes}
            else:
                yield {"view": [[json.loads(s), acc] for s, acc in view.items()], "changes": changes}
    finally:
        run.close()


def row(rid: int, key: Any, value: Any) -> dict[str, Any]:
    """A row: its id, the key's canonical JSON, and the value (an integer, or 0 for count's
    values of any JSON type: count never reads them)."""
    number = value if isinstance(value, int) and not isinstance(value, bool) else 0
    return {"rid": rid, "a": canon(key), "b": canon(value), "v": number}


def check_removal(rows: dict[str, dict[int, tuple[Any, Any]]], minus: dict[str, tuple[Any, list[Any]]]) -> None:
    for s, (_, values) in minus.items():
        held = Counter(canon(v) for _, v in rows.get(s, {}).values())
        if Counter(canon(v) for v in values) - held:
            raise Refused("invalid-delta")


# --- fixpoint -----------------------------------------------------------------------------------


def reach(table: Any) -> Any:
    root_rows, edge_rows = table.filter(table.a == "root"), table.filter(table.a != "root")
    roots = root_rows.select(node=root_rows.b)
    edges = edge_rows.select(src=edge_rows.a, dst=edge_rows.b)

    def step(reach: Any, edges: Any, roots: Any) -> dict[str, Any]:
        succ = reach.join(edges, reach.node == edges.src).select(node=edges.dst)
        both = pw.Table.concat_reindex(roots, succ)
        return {"reach": both.groupby(both.node).reduce(both.node)}

    seed = roots.groupby(roots.node).reduce(roots.node)
    live = pw.iterate(step, reach=pw.iterate_universe(seed), edges=edges, roots=roots).reach
    return live.select(a=live.node, b=live.node)


def edits(held: dict[str, int], removed: list[str], added: list[str]) -> tuple[list[str], list[str]]:
    """What leaves and what enters ``held`` when ``removed`` are taken out, then ``added`` put
    in (set semantics: removals first), in time proportional to the edit, not to ``held``."""
    kept = set(added)
    leaving = [x for x in dict.fromkeys(removed) if x in held and x not in kept]
    entering = [x for x in dict.fromkeys(added) if x not in held]
    return leaving, entering


def fixpoint_case(steps: list[dict[str, Any]], only_changes: bool) -> Iterator[dict[str, Any]]:
    run = Run(reach)
    try:
        roots: dict[str, int] = {}  # canonical root -> row id
        edges: dict[str, int] = {}  # canonical [u, v] -> row id
        values: dict[str, Any] = {}
        ids = Ids()
        live: set[str] = set()
        for step in steps:
            if step["op"] not in ("make", "apply"):
                yield {"error": "malformed-input"}
                continue
            make = step["op"] == "make"
            new_roots = [*step.get("roots", []), *step.get("add_roots", [])]
            new_edges = [*step.get("edges", []), *step.get("add_edges", [])]
            for x in new_roots:
                values[canon(x)] = x
            for u, v in new_edges:
                values[canon(u)], values[canon(v)] = u, v
            root_edit = edits(roots, list(roots) if make else [canon(r) for r in step.get("remove_roots", [])],
                              [canon(r) for r in new_roots])
            edge_edit = edits(edges, list(edges) if make else [canon(e) for e in step.get("remove_edges", [])],
                              [canon(e) for e in new_edges])
            batch = []
            for s in root_edit[0]:
                batch.append((-1, {"rid": roots.pop(s), "a": "root", "b": s, "v": 0}))
            for s in edge_edit[0]:
                u, v = json.loads(s)
                batch.append((-1, {"rid": edges.pop(s), "a": canon(u), "b": canon(v), "v": 0}))
            for s in root_edit[1]:
                roots[s] = ids()
                batch.append((1, {"rid": roots[s], "a": "root", "b": s, "v": 0}))
            for s in edge_edit[1]:
                edges[s] = ids()
                u, v = json.loads(s)
                batch.append((1, {"rid": edges[s], "a": canon(u), "b": canon(v), "v": 0}))
            added, removed = [], []
            for s in sorted(run.feed(batch)):
                if s in run.output and s not in live:
                    live.add(s)
                    added.append(values[s])
                elif s not in run.output and s in live:
                    live.remove(s)
                    removed.append(values[s])
            changes = {"added": added, "removed": removed}
            yield changes if only_changes else {"current": [values[s] for s in live], **changes}
    finally:
        run.close()


# --- the protocol ---------------------------------------------------------------------------------


def run_case(case: dict[str, Any], mode: str) -> dict[str, Any]:
    observations: list[dict[str, Any]] = []
    try:
        only_changes = case.get("setup", {}).get("observe") == "changes"
        steps = (reduce_case(case["steps"], mode, only_changes) if case["area"] == "reduce"
                 else fixpoint_case(case["steps"], only_changes) if case["area"] == "fixpoint" else None)
        if steps is None:
            return {"skipped": {"message": f"area {case['area']} not implemented"}}
        for observation in steps:
            observations.append(observation)
    except Refused as exc:
        observations.append({"error": exc.error_class})
    except Exception as exc:  # the engine failed: report it, go on with the next case
        return {"errored": {"message": f"{type(exc).__name__}: {exc}", "context": {}}}
    return {"result": {"observations": observations}}


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--reducers", choices=("builtin", "custom"), default="builtin")
    mode = p.parse_args().reducers
    for line in sys.stdin:
        message = json.loads(line)
        if message["cmd"] == "start":
            reply: dict[str, Any] = {"implementation": {
                "name": "pathway", "version": pw.__version__, "language": "python",
                "areas": ["reduce", "fixpoint"],
                "features": ["ill-formed-reducers", "changes-only"]
                + (["declining-remove"] if mode == "builtin" else []),
                "configuration": {"reducers": mode, "fixpoint": "pw.iterate"}}}
        elif message["cmd"] == "run":
            reply = {"seq": message["seq"], **run_case(message["case"], mode)}
        else:
            return 0
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
