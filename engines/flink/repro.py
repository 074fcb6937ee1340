"""Minimal reproductions of where Flink's retracting aggregates leave the suite's semantics, on
PyFlink alone:

    .engines/flink/bin/python engines/flink/repro.py

0. The known failures (``key-emptied-mid-step``). A changelog has no steps. With one row per
   bundle (``python.fn-execution.bundle.size`` 1, the adapter's setting, which keeps the result
   rows in the order of the step markers), Flink's group aggregate applies the changelog row by row
   and, when a key's row count reaches 0, emits ``-D`` and drops the key's accumulator: the next
   ``+I`` of the key starts from ``create_accumulator`` again. A step that removes every value of a
   key and adds others (Δ⁻ first, SKIP-DEF-10) thus restarts the key's accumulator in the middle of
   the step; Definition 10 keeps it (the key leaves the view only when it is empty after the
   step). An aggregate function logging its calls into its accumulator shows it: k holds [5]; one
   step removes 5 and adds 5 and 3. With a bundle holding the four rows, the rows of a
   bundle reach one accumulator and only the bundle's last result is emitted.

No case of the suite reaches the next two (the adapter keeps them out):

1. ``SUM`` over ``BIGINT`` wraps at 2**63 without an error; the suite's integers are unbounded
   (the adapter refuses a value outside 64 bits as ``unsupported``, but a sum of values inside
   them may still leave them).
2. A ``-D`` of a value a key never held is not refused: Flink's group aggregate counts the key's
   rows down (a key whose count reaches 0 is dropped with its state, ``-D`` in the result), or
   retracts the value from ``SUM`` and ``MIN`` as if it were there. The suite refuses such a
   delta (``invalid-delta``, SKIP-DEC-INVALID-DELTA); the adapter checks Δ⁻ ⊆ C itself.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

from pyflink.common import Row, Types
from pyflink.common.types import RowKind
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.table import DataTypes, StreamTableEnvironment
from pyflink.table.udf import AggregateFunction, udaf

SHORT = {RowKind.INSERT: "+I", RowKind.UPDATE_BEFORE: "-U", RowKind.UPDATE_AFTER: "+U", RowKind.DELETE: "-D"}
env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
t_env = StreamTableEnvironment.create(env)


def changelog(query: str, rows: list[tuple[RowKind, str, int]]) -> list[str]:
    """Flink's result changelog of ``query`` over ``input(a, v)`` fed ``rows`` in order."""
    types = Types.ROW_NAMED(["a", "v"], [Types.STRING(), Types.LONG()])
    source = env.from_collection([Row.of_kind(kind, a, v) for kind, a, v in rows], type_info=types)
    t_env.create_temporary_view("input", t_env.from_changelog_stream(source))
    try:
        with t_env.sql_query(query).execute().collect() as changes:
            return [f"{SHORT[change.get_row_kind()]}{tuple(change)}" for change in changes]
    finally:
        t_env.drop_temporary_view("input")


class Logged(AggregateFunction):  # type: ignore[misc]
    """Its accumulator is the log of the calls made on it since create_accumulator."""

    def create_accumulator(self) -> list[str]:
        return ["create"]

    def accumulate(self, acc: list[str], v: int) -> None:
        acc.append(f"accumulate {v}")

    def retract(self, acc: list[str], v: int) -> None:
        acc.append(f"retract {v}")

    def get_value(self, acc: list[str]) -> str:
        return ", ".join(acc)

    def get_accumulator_type(self) -> Any:
        return DataTypes.ARRAY(DataTypes.STRING())

    def get_result_type(self) -> Any:
        return DataTypes.STRING()


I, D = RowKind.INSERT, RowKind.DELETE
t_env.create_temporary_function("logged", udaf(Logged(), func_type="general"))
print(f"0. flink {version('apache-flink')}: +I 5, then (one step) -D 5, +I 5, +I 3; the result changelog")
for bundle in ("1", "100000 (the four rows in one)"):
    t_env.get_config().set("python.fn-execution.bundle.size", bundle.split()[0])
    out: Any = changelog("SELECT a, logged(v) FROM input GROUP BY a",
                         [(I, "k", 5), (D, "k", 5), (I, "k", 5), (I, "k", 3)])
    print(f"   bundle size {bundle}:")
    for change in out:
        print(f"     {change}")
print("   Definition 10: create, accumulate 5 | retract 5, accumulate 5, accumulate 3 (one accumulator)")
big = 2**63 - 1
out = changelog("SELECT a, SUM(v) FROM input GROUP BY a", [(I, "k", big), (I, "k", 1)])
print(f"1. flink {version('apache-flink')}: SUM of {big} and 1: {out}; the suite: {big + 1}")
out = changelog("SELECT a, SUM(v), MIN(v) FROM input GROUP BY a", [(I, "k", 5), (I, "k", 7), (D, "k", 3)])
print(f"2. flink {version('apache-flink')}: k holds 5 and 7, -D 3: {out}; the suite: invalid-delta")
out = changelog("SELECT a, SUM(v) FROM input GROUP BY a", [(I, "k", 5), (D, "k", 3)])
print(f"   k holds 5, -D 3: {out}; the suite: invalid-delta")
