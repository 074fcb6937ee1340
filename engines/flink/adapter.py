"""Apache Flink (PyFlink) under the conformance suite's reduce area, through the JSON-lines protocol.

    .engines/flink/bin/python engines/flink/adapter.py [--reducers builtin|custom]

It runs in PyFlink's own virtual environment and imports nothing of the project. One local
mini-cluster (the PyFlink gateway's JVM) serves every case; a case is one streaming job at
parallelism 1 whose input is a changelog (``+I`` for a value added, ``-D`` for a value removed,
``from_changelog_stream``) aggregated by ``SELECT a, AGG(v) FROM input GROUP BY a``:

* ``--reducers builtin`` (default): Flink's retracting built-ins for sum, count, min and max
  (``SUM(v)``, ``COUNT(*)``, ``MIN(v)``, ``MAX(v)``), a Python ``AggregateFunction`` for the others;
  ``--reducers custom``: a Python ``AggregateFunction`` for every reducer (ι = create_accumulator,
  ⊕ = accumulate, ⊖ = retract; a declining ⊖ folds ⊕ from ι over the key's values, which the
  accumulator then keeps).

Steps are cut by markers: after a step's rows the adapter sends ``+I`` of a fresh key ``TICK#i``;
with one task per operator Flink's output keeps its input's order, so the result rows Flink emits
before the marker's own ``+I`` are the step's. The view after each step is the result changelog
(``+I``/``-U``/``+U``/``-D``) applied up to the step's marker. Invalid deltas (Δ⁻ ⊄ C) are
refused by the adapter (``invalid-delta``) and send no rows; a ``load`` sends the removal of
every held value, then the new values; an ``apply`` its removals, then its additions.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable
from typing import Any

from pyflink.common import Row, Types
from pyflink.common.types import RowKind
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.table import DataTypes, StreamTableEnvironment
from pyflink.table.udf import AggregateFunction, udaf

TICK = "\x00tick#"
INT64 = (-(2**63), 2**63 - 1)


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


# --- reducers ---------------------------------------------------------------------------------

Add = Callable[[int, int], int]
Remove = Callable[[int, int], "int | None"]  # None: the remove declines (recompute the key)
INF = None  # the accumulator ±inf of min and max before any value


def _min(a: int | None, v: int) -> int:
    return v if a is None else min(a, v)


def _max(a: int | None, v: int) -> int:
    return v if a is None else max(a, v)


#: name -> (ι, ⊕, ⊖); ⊖ returning None declines.
CUSTOM: dict[str, tuple[int | None, Callable[[Any, int], Any], Callable[[Any, int], Any]]] = {
    "sum": (0, lambda a, v: a + v, lambda a, v: a - v),
    "count": (0, lambda a, v: a + 1, lambda a, v: a - 1),
    "xor": (0, lambda a, v: a ^ v, lambda a, v: a ^ v),
    "sum_monus_int": (0, lambda a, v: a + v, lambda a, v: max(a - v, 0)),
    "sum_bad_remove": (0, lambda a, v: a + v, lambda a, v: a - 2 * v),
    "min": (INF, _min, lambda a, v: None if v <= a else a),
    "max": (INF, _max, lambda a, v: None if v >= a else a),
    "min_never_declines": (INF, _min, lambda a, v: a),
    "min_declines_below": (INF, _min, lambda a, v: None if v < a else a),
}
BUILTIN = {"sum": "SUM(v)", "count": "COUNT(*)", "min": "MIN(v)", "max": "MAX(v)"}
DECLINING = {"min", "max", "min_declines_below"}
ILL_FORMED = {"sum_bad_remove", "min_never_declines", "min_declines_below", "saturating_sum"}


class Fold(AggregateFunction):  # type: ignore[misc]
    """A suite reducer as a Flink aggregate function. The accumulator is ``[set, acc, *values]``:
    ``set`` 0 while ``acc`` is ι = ±inf; the key's values only when ⊖ may decline."""

    def __init__(self, initial: int | None, add: Callable[[Any, int], Any],
                 remove: Callable[[Any, int], Any], keep_values: bool) -> None:
        self.initial, self.add, self.remove, self.keep_values = initial, add, remove, keep_values

    def create_accumulator(self) -> list[int]:
        return [0, 0] if self.initial is None else [1, self.initial]

    def accumulate(self, acc: list[int], v: int) -> None:
        acc[1] = self.add(acc[1] if acc[0] else None, v) if self.initial is None else self.add(acc[1], v)
        acc[0] = 1
        if self.keep_values:
            acc.append(v)

    def retract(self, acc: list[int], v: int) -> None:
        if self.keep_values:
            del acc[acc.index(v, 2)]
        out = self.remove(acc[1] if acc[0] else None, v) if self.initial is None else self.remove(acc[1], v)
        if out is None:  # declined: ι, then ⊕ over the key's values after the removal
            fresh = self.create_accumulator()
            acc[0], acc[1] = fresh[0], fresh[1]
            for value in acc[2:]:
                acc[1] = self.add(acc[1] if acc[0] else None, value) if self.initial is None else self.add(acc[1], value)
                acc[0] = 1
        else:
            acc[1] = out

    def get_value(self, acc: list[int]) -> int | None:
        return acc[1] if acc[0] else None

    def get_accumulator_type(self) -> Any:
        return DataTypes.ARRAY(DataTypes.BIGINT())

    def get_result_type(self) -> Any:
        return DataTypes.BIGINT()


def aggregate_of(name: str, params: dict[str, Any], mode: str, t_env: Any) -> str:
    """The SQL aggregate call over column ``v`` for the suite's named reducer (a Python one is
    registered in ``t_env`` as ``fold``)."""
    if mode == "builtin" and name in BUILTIN:
        return BUILTIN[name]
    if name == "saturating_sum":
        cap = int(params["cap"])
        initial, add, remove = 0, (lambda a, v: min(cap, a + v)), (lambda a, v: a - v)
    elif name in CUSTOM:
        initial, add, remove = CUSTOM[name]
    else:
        raise Refused("unsupported")
    fold = Fold(initial, add, remove, keep_values=name in DECLINING)
    t_env.create_temporary_function("fold", udaf(fold, func_type="general"))
    return "fold(v)"


# --- one case: one streaming job over the whole case's changelog, cut by markers --------------


class Flink:
    """The mini-cluster, kept for every case of the run."""

    def __init__(self) -> None:
        self.env = StreamExecutionEnvironment.get_execution_environment()
        self.env.set_parallelism(1)
        self.t_env = StreamTableEnvironment.create(self.env)
        self.t_env.get_config().set("python.fn-execution.bundle.size", "1")
        self.t_env.get_config().set("table.exec.resource.default-parallelism", "1")

    def run(self, aggregate: Callable[[Any], str], steps: list[list[tuple[int, str, int]]], whole: bool = True
            ) -> list[tuple[dict[str, int | None], dict[str, int] | None]]:
        """Feed ``steps`` (each a list of (sign, key, value)) as one changelog; per step, as Flink's
        result changelog tells it, the changes (key -> new accumulator, None for a key that left)
        and, with ``whole``, the view after it (a copy per step: what the changes alone avoid)."""
        rows: list[Row] = []
        for i, batch in enumerate(steps):
            for sign, key, value in batch:
                rows.append(Row.of_kind(RowKind.INSERT if sign > 0 else RowKind.DELETE, key, value))
            rows.append(Row.of_kind(RowKind.INSERT, f"{TICK}{i}", 0))
        types = Types.ROW_NAMED(["a", "v"], [Types.STRING(), Types.LONG()])
        table = self.t_env.from_changelog_stream(self.env.from_collection(rows, type_info=types))
        self.t_env.create_temporary_view("input", table)
        try:
            call = aggregate(self.t_env)
            result = self.t_env.sql_query(f"SELECT a, {call} AS acc FROM input GROUP BY a")
            views: list[tuple[dict[str, int | None], dict[str, int] | None]] = []
            view: dict[str, int] = {}
            before: dict[str, int | None] = {}  # each key the step touched, as it was before the step
            with result.execute().collect() as changes:
                for change in changes:
                    key, acc = change[0], change[1]
                    if key.startswith(TICK):
                        if change.get_row_kind() == RowKind.INSERT:
                            changed = {k: view.get(k) for k, old in before.items() if view.get(k) != old}
                            views.append((changed, dict(view) if whole else None))
                            before = {}
                        continue
                    before.setdefault(key, view.get(key))
                    if change.get_row_kind() in (RowKind.INSERT, RowKind.UPDATE_AFTER):
                        view[key] = acc
                    elif view.get(key) == acc:
                        del view[key]
            if len(views) != len(steps):
                raise RuntimeError(f"{len(views)} markers came back for {len(steps)} steps")
            return views
        finally:
            self.t_env.drop_temporary_view("input")
            self.t_env.drop_temporary_function("fold")


def grouped(pairs: list[list[Any]]) -> dict[str, tuple[Any, list[Any]]]:
    out: dict[str, tuple[Any, list[Any]]] = {}
    for key, values in pairs:
        out.setdefault(canon(key), (key, []))[1].extend(values)
    return out


def number(value: Any, name: str) -> int:
    """The BIGINT a value enters Flink as (count never reads its values: 0 for any JSON)."""
    if name == "count":
        return 0
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or not INT64[0] <= value <= INT64[1]:
        raise Refused("unsupported")  # an adapter limit: the column is a 64-bit BIGINT
    return value


def reduce_case(flink: Flink, steps: list[dict[str, Any]], mode: str, only_changes: bool = False) -> list[dict[str, Any]]:
    declare = steps[0]
    if declare.get("op") != "declare":
        raise Refused("malformed-input")
    name, params = declare["reducer"], declare.get("params", {})
    if name not in CUSTOM and name != "saturating_sum":
        raise Refused("unsupported")
    held: dict[str, list[Any]] = {}  # canonical key -> its values
    batches: list[list[tuple[int, str, int]]] = []
    refused: dict[int, str] = {}  # step index (in batches) -> error class
    for index, step in enumerate(steps[1:]):
        batch: list[tuple[int, str, int]] = []
        try:
            if step["op"] == "load":
                minus = {s: (json.loads(s), list(values)) for s, values in held.items()}
                plus = grouped(step["collection"])
            elif step["op"] == "apply":
                minus, plus = grouped(step["minus"]), grouped(step["plus"])
                check_removal(held, minus)
            else:
                raise Refused("malformed-input")
            for _, values in [*minus.values(), *plus.values()]:
                for value in values:
                    number(value, name)
        except Refused as exc:
            refused[index] = exc.error_class
            batches.append([])
            continue
        for s, (_, values) in minus.items():
            for value in values:
                del held[s][next(i for i, v in enumerate(held[s]) if canon(v) == canon(value))]
                batch.append((-1, s, number(value, name)))
        for s, (_, values) in plus.items():
            for value in values:
                held.setdefault(s, []).append(value)
                batch.append((1, s, number(value, name)))
        batches.append(batch)
    steps_out = flink.run(lambda t_env: aggregate_of(name, params, mode, t_env), batches, whole=not only_changes)
    observations: list[dict[str, Any]] = [{}]
    for index, (changed, view) in enumerate(steps_out):
        if index in refused:
            observations.append({"error": refused[index]})
            continue
        changes = [[json.loads(s), acc] for s, acc in changed.items()]
        if view is None:
            observations.append({"changes": changes})
        else:
            observations.append({"view": [[json.loads(s), acc] for s, acc in view.items()], "changes": changes})
    return observations


def check_removal(held: dict[str, list[Any]], minus: dict[str, tuple[Any, list[Any]]]) -> None:
    for s, (_, values) in minus.items():
        if Counter(canon(v) for v in values) - Counter(canon(v) for v in held.get(s, [])):
            raise Refused("invalid-delta")


# --- the protocol ---------------------------------------------------------------------------------


def run_case(flink: Flink, case: dict[str, Any], mode: str) -> dict[str, Any]:
    if case["area"] != "reduce":
        return {"skipped": {"message": f"area {case['area']} not implemented"}}
    try:
        observations = reduce_case(flink, case["steps"], mode, case.get("setup", {}).get("observe") == "changes")
    except Refused as exc:
        observations = [{"error": exc.error_class}]
    except Exception as exc:  # the engine failed: report it, go on with the next case
        return {"errored": {"message": f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}",
                            "context": {}}}
    return {"result": {"observations": observations}}


def version() -> str:
    from importlib.metadata import version as dist_version
    return dist_version("apache-flink")


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--reducers", choices=("builtin", "custom"), default="builtin")
    mode = p.parse_args().reducers
    flink: Flink | None = None
    for line in sys.stdin:
        message = json.loads(line)
        if message["cmd"] == "start":
            flink = flink or Flink()
            reply: dict[str, Any] = {"implementation": {
                "name": "flink", "version": version(), "language": "java",
                "areas": ["reduce"],
                "features": ["ill-formed-reducers", "declining-remove", "changes-only"],
                "configuration": {"reducers": mode, "mode": "streaming", "parallelism": 1}}}
        elif message["cmd"] == "run":
            assert flink is not None
            reply = {"seq": message["seq"], **run_case(flink, message["case"], mode)}
        else:
            return 0
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
