"""A minimal reproduction of how pathway applies a step to a custom accumulator, on pathway alone:

    .engines/pathway/bin/python engines/pathway/repro.py

The reduce semantics (SKIP-DEF-10) removes Δ⁻ from the accumulator first, then adds Δ⁺, value by
value. The script logs the calls pathway makes on a custom accumulator (``update`` with the values
of the rows it merges, ``retract`` with those it removes) for two steps:

1. k holds [5]; one commit removes that 5 and adds 5 and 3: Definition 10 retracts 5, adds 5 and 3;
2. k holds [2, 5]; one commit removes 5 and 2 and adds 6: Definition 10 retracts 5 and 2, then adds 6.
"""

from __future__ import annotations

from typing import Any

import pathway as pw
from adapter import Run  # the adapter's dataflow runner, beside this file

calls: list[str] = []


class Logged(pw.BaseCustomAccumulator):  # type: ignore[misc]
    def __init__(self, values: tuple[int, ...]) -> None:
        self.values = values

    @classmethod
    def from_row(cls, row: list[Any]) -> Logged:
        return cls((row[0],))

    def update(self, other: Logged) -> None:
        calls.append(f"update {list(other.values)}")
        self.values = self.values + other.values

    def retract(self, other: Logged) -> None:
        calls.append(f"retract {list(other.values)}")

    def compute_result(self) -> int:
        return 0

    def serialize(self) -> tuple[int, ...]:
        return self.values

    @classmethod
    def deserialize(cls, val: Any) -> Logged:
        return cls(tuple(int(v) for v in val))


def build(table: Any) -> Any:
    view = table.groupby(table.a).reduce(table.a, acc=pw.reducers.udf_reducer(Logged)(table.v))
    return view.select(a=view.a, b=pw.apply(str, view.acc))


def row(rid: int, v: int) -> dict[str, Any]:
    return {"rid": rid, "a": "k", "b": str(v), "v": v}


run = Run(build)
run.feed([(1, row(1, 5))])
calls.clear()
run.feed([(-1, row(1, 5)), (1, row(2, 5)), (1, row(3, 3))])
print(f"1. pathway {pw.__version__}: {calls}; Definition 10: retract [5], then add [5] and [3]")
run.feed([(1, row(4, 2))])
calls.clear()
run.feed([(-1, row(2, 5)), (-1, row(4, 2)), (-1, row(3, 3)), (1, row(5, 6))])
print(f"2. pathway {pw.__version__}: {calls}; Definition 10: retract [5], [2] and [3], then add [6]")
run.close()
