"""An operator-at-a-time delta engine for the ``zset`` area, written to be mutated.

Each node keeps the integral of its output (its collection so far); a version's
input deltas flow bottom-up through the delta rules of a production engine:
linear operators map deltas, join takes ΔA ⋈ B + A ⋈ ΔB + ΔA ⋈ ΔB (old A, B)
over hash partitions of the join key, distinct and reduce diff the operator
on the old and new collections, and an ``iterate`` node diffs its value
recomputed by the standard semantics. Unmutated it passes the suite (a test
checks it); each zset mutant overrides one rule.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from typing import Any

from conformance.api import canonical_json
from conformance.protocols import EngineError, WeightedRows
from reference.algebra.zset import ZSet
from reference.differential.dataflow import (
    Distinct,
    Filter,
    Input,
    Iterate,
    Join,
    Map,
    Negate,
    Node,
    Plus,
    Program,
    Reduce,
    children,
    evaluate,
    program_from_json,
    zset_from_rows,
    zset_to_rows,
)
from reference.differential.operators import (
    DataflowError,
    distinct,
    filter_zset,
    join,
    map_zset,
    reduce,
)

PARTITIONS = 3


def key_hash(k: Any) -> int:
    return zlib.crc32(canonical_json(k).encode("utf-8"))


class ZSetEngineBase:
    def __init__(self) -> None:
        self.program: Program | None = None
        self.acc: dict[tuple[int, ...], ZSet] = {}
        self.inputs: dict[str, ZSet] = {}

    # --- hooks ---------------------------------------------------------------------

    def left_partition(self, k: Any) -> int:
        return key_hash(k) % PARTITIONS

    def right_partition(self, k: Any) -> int:
        return key_hash(k) % PARTITIONS

    def partitioned_join(self, a: ZSet, b: ZSet) -> ZSet:
        """Join partition by partition (hash of the key); equal to ``join`` when both
        sides use the same hash (the join-partitioning result of the stream paper)."""
        out = ZSet.zero()
        for p in range(PARTITIONS):
            left = ZSet({x: w for x, w in a.items() if self.left_partition(x[0]) == p})
            right = ZSet({x: w for x, w in b.items() if self.right_partition(x[0]) == p})
            out = out + join(left, right)
        return out

    def join_delta(self, da: ZSet, db: ZSet, a: ZSet, b: ZSet) -> ZSet:
        """Δ(A ⋈ B) = ΔA ⋈ B + A ⋈ ΔB + ΔA ⋈ ΔB, with A, B the collections before the version."""
        j = self.partitioned_join
        return j(da, b) + j(a, db) + j(da, db)

    def distinct_delta(self, da: ZSet, a: ZSet) -> ZSet:
        """Δ distinct(A) = distinct(A + ΔA) - distinct(A): distinct is not linear."""
        return distinct(a + da) - distinct(a)

    # --- evaluation ---------------------------------------------------------------

    def delta(self, node: Node, path: tuple[int, ...], new_inputs: Mapping[str, ZSet]) -> ZSet:
        if isinstance(node, Iterate):
            before = evaluate(node, self.inputs, {}, self.program_or_fail().max_iterations)
            after = evaluate(node, new_inputs, {}, self.program_or_fail().max_iterations)
            return after - before
        if isinstance(node, Input):
            return new_inputs.get(node.name, ZSet.zero()) - self.inputs.get(node.name, ZSet.zero())
        subs = [self.delta(child, (*path, i), new_inputs) for i, child in enumerate(children(node))]
        olds = [self.acc.get((*path, i), ZSet.zero()) for i in range(len(subs))]
        if isinstance(node, Map):
            out = map_zset(node.fn, subs[0])
        elif isinstance(node, Filter):
            out = filter_zset(node.pred, subs[0])
        elif isinstance(node, Negate):
            out = -subs[0]
        elif isinstance(node, Plus):
            out = subs[0] + subs[1]
        elif isinstance(node, Join):
            out = self.join_delta(subs[0], subs[1], olds[0], olds[1])
        elif isinstance(node, Distinct):
            out = self.distinct_delta(subs[0], olds[0])
        else:
            assert isinstance(node, Reduce)
            out = reduce(node.agg, olds[0] + subs[0]) - reduce(node.agg, olds[0])
        for i, d in enumerate(subs):
            self.acc[(*path, i)] = olds[i] + d
        return out

    def program_or_fail(self) -> Program:
        if self.program is None:
            raise EngineError("malformed-input", "no program built")
        return self.program

    # --- the ZSetEngine protocol --------------------------------------------------------

    def build(self, program: Mapping[str, Any]) -> None:
        try:
            self.program = program_from_json(program)
        except DataflowError as exc:
            raise EngineError(exc.error_class, str(exc)) from exc

    def step(self, inputs: Mapping[str, WeightedRows]) -> WeightedRows:
        program = self.program_or_fail()
        saved = dict(self.acc)
        try:
            deltas = {name: zset_from_rows(rows) for name, rows in inputs.items()}
            if any(name not in program.inputs for name in deltas):
                raise DataflowError("malformed-input", "undeclared input")
            new_inputs = {name: self.inputs.get(name, ZSet.zero()) + deltas.get(name, ZSet.zero())
                          for name in program.inputs}
            out = self.delta(program.output, (), new_inputs)
        except DataflowError as exc:
            self.acc = saved
            raise EngineError(exc.error_class, str(exc)) from exc
        self.inputs = new_inputs
        return [(e, w) for e, w in zset_to_rows(out)]
