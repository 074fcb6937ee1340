"""Lockstep engines: many conformance cases of one area in *one* Spark dataflow.

A Spark action costs ~0.1-0.3 s even on tiny data, and a case is a handful of
actions, so cases run one after the other spend their time waiting for job
latency. These engines implement the suite's lockstep protocols
(:class:`conformance.protocols.LockstepReduceEngine`,
:class:`~conformance.protocols.LockstepFixpointEngine`): the suite's driver
hands them the i-th operation of several cases at once, and every case is
*tagged into the keys*: key ``k`` (element ``x``) of the case tagged ``i`` is
the key ``[i, k]`` (element ``[i, x]``) of one engine. Keys of different cases
never meet (a reducer works key by key; no edge joins two cases), so each
case's answers are those of a separate run, while one Spark update serves all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from conformance.protocols import (
    CaseTag,
    EngineError,
    FixpointChange,
    FixpointObservation,
    ReduceObservation,
    Value,
)
from spark_impl.driver_rows import frame_of_rows
from spark_impl.fixpoint.reachability import IncrementalReachability
from spark_impl.protocol import decode, encode, view_changes
from spark_impl.protocol.reduce import Runner, RunnerPath, SparkReduceEngine, suite_refusal
from spark_impl.reduce.maintained_view import InvalidDelta, Refused

Collection = Mapping[Value, Sequence[Value]]

#: How long an idle group's query waits between looks at its input. One group steps at a
#: time, the others idle: at Spark's 10 ms, ten idle queries took 0.75 of a core here (100 ms:
#: 0.35). The suite's reduce area (72 cases, 10 groups; ``scripts/main --area reduce``, one
#: run each, 2 cores): 510 s wall and 977 s CPU at 10 ms, 320 s and 525 s at 100 ms.
IDLE_POLLING = "100ms"


class _ReducerGroup:
    """The cases declaring one reducer (same name and parameters): one maintained view
    for all, its keys ``[case tag, key]``, one micro-batch per lockstep step."""

    def __init__(self, spark: SparkSession, reducer: str, params: Mapping[str, Value],
                 path: RunnerPath = "stream") -> None:
        # rows in, accumulators out: the per-case encoding
        self.adapter = SparkReduceEngine(spark, path=path)
        self.adapter.declare(reducer, params)
        self.changed: list[tuple[CaseTag, Value, Value | None]] = []
        case_of_key = F.regexp_extract(F.col("k"), r"^\[(\d+),", 1).cast("int")
        self.runner: Runner = self.adapter.new_runner(self._collect, work_by=case_of_key,
                                                          polling_delay=IDLE_POLLING)

    def _collect(self, changes: DataFrame, batch_id: int) -> None:
        for row in changes.collect():
            i, k = decode(row["key"])
            self.changed.append((i, k, self.adapter.accumulator(row["accumulator"])
                                 if row["present"] else None))

    def tagged(self, i: CaseTag, collection: Collection, sign: int) -> list[tuple[Any, ...]]:
        return self.adapter.rows({(i, k): vs for k, vs in collection.items()}, sign)

    def views(self) -> dict[CaseTag, dict[Value, Value]]:
        out: dict[CaseTag, dict[Value, Value]] = {}
        for key, acc in self.adapter.read_view(self.runner).items():
            i, k = key
            out.setdefault(i, {})[k] = acc
        return out

    def update(self, deltas: dict[CaseTag, list[tuple[Any, ...]]],
               out: dict[CaseTag, ReduceObservation | EngineError]) -> dict[CaseTag, dict[str, int]]:
        """One micro-batch of every case's rows. A case whose delta must be refused (it
        removes a value not there) is answered ``invalid-delta`` in ``out`` and taken out
        (the refused micro-batch left the state unchanged), every case the refusal names at
        once; the others go again. Returns
        each remaining case's work counters."""
        def frame() -> DataFrame:
            return frame_of_rows(self.adapter.spark, [r for rs in deltas.values() for r in rs], self.runner.schema)

        def without_refused(refused: Refused) -> DataFrame | None:
            """The micro-batch again without the cases the refusal names (None: none left)."""
            if not isinstance(refused, InvalidDelta):
                return None
            named = 0
            for breach in (refused, *refused.others):  # each case's first breach, its keys' prefix
                i = decode(breach.key)[0]
                if i in deltas:
                    out[i] = suite_refusal(breach)
                    del deltas[i]
                    named += 1
            assert named, f"a refusal naming no case of the micro-batch: {refused}"
            self.changed = []
            return frame() if deltas else None

        self.changed = []
        if deltas:
            try:
                self.runner.step(frame(), retry=without_refused)
            except InvalidDelta:
                if deltas:  # not a refusal of the last cases left
                    raise
        return {i: dict(self.runner.work.get(i, {"reducer_calls": 0, "keys_touched": 0}))
                for i in deltas}


class SparkLockstepReduce:
    """Reduce cases in lockstep: one maintained view per declared reducer.

    * a delta a case must refuse (it removes a value not there) is taken out of the
      micro-batch and that case is answered ``invalid-delta`` (state unchanged), the others go on;
    * a ``load`` replaces the case's collection: its current values are removed in one
      micro-batch (its keys leave the view, so they restart from ι), then the new ones added
      in the next: a recompute, as a fresh load is.
    """

    work_per_case = True

    def __init__(self, spark: SparkSession, path: RunnerPath = "stream") -> None:
        """``path``: where the group reducers' views keep their state (:data:`~spark_impl.protocol.reduce.RunnerPath`)."""
        self.spark, self.path = spark, path
        self.groups: dict[str, _ReducerGroup] = {}
        self.group_of: dict[CaseTag, _ReducerGroup] = {}
        self.collections: dict[CaseTag, dict[Value, list[Value]]] = {}

    def admits(self, ops: Sequence[str]) -> bool:
        return bool(ops) and ops[0] == "declare" and all(op in ("load", "apply") for op in ops[1:])

    def declare(self, batch: Mapping[CaseTag, tuple[str, Mapping[str, Value]]]) -> dict[CaseTag, EngineError | None]:
        out: dict[CaseTag, EngineError | None] = {}
        for i, (reducer, params) in batch.items():
            name = encode([reducer, params])
            try:
                if name not in self.groups:
                    self.groups[name] = _ReducerGroup(self.spark, reducer, params, self.path)
            except EngineError as refused:  # the adapter's declare speaks the suite's errors
                out[i] = refused
                continue
            self.group_of[i] = self.groups[name]
            self.collections[i] = {}
            out[i] = None
        return out

    def close(self) -> None:
        """Stop every group's streaming query (an idle one still polls its input)."""
        for group in self.groups.values():
            group.runner.stop()

    def _by_group(self, tags: Sequence[CaseTag]) -> dict[int, list[CaseTag]]:
        members: dict[int, list[CaseTag]] = {}
        for i in tags:
            members.setdefault(id(self.group_of[i]), []).append(i)
        return members

    def load(self, batch: Mapping[CaseTag, tuple[Collection]]) -> dict[CaseTag, ReduceObservation | EngineError]:
        out: dict[CaseTag, ReduceObservation | EngineError] = {}
        for tags in self._by_group(list(batch)).values():
            group = self.group_of[tags[0]]
            removed: dict[CaseTag, list[tuple[Any, ...]]] = {}
            added: dict[CaseTag, list[tuple[Any, ...]]] = {}
            for i in tags:
                try:
                    added[i] = group.tagged(i, batch[i][0], 1)
                except EngineError as refused:
                    out[i] = refused
                    continue
                if self.collections[i]:
                    removed[i] = group.tagged(i, self.collections[i], -1)
            before = group.views()
            calls: dict[CaseTag, int] = {}
            for rows in (removed, added):
                if rows:
                    for i, work in group.update(dict(rows), out).items():
                        calls[i] = calls.get(i, 0) + work["reducer_calls"]
            after = group.views()
            for i in added:
                self.collections[i] = {k: list(vs) for k, vs in batch[i][0].items()}
                # a load reports its calls only, as a separate run's load does; a reload's
                # calls include the removal of the case's previous collection
                out[i] = ReduceObservation(view=after.get(i, {}),
                                           changes=view_changes(before.get(i, {}), after.get(i, {})),
                                           work={"reducer_calls": calls.get(i, 0)})
        return out

    def apply(self, batch: Mapping[CaseTag, tuple[Collection, Collection]]
              ) -> dict[CaseTag, ReduceObservation | EngineError]:
        out: dict[CaseTag, ReduceObservation | EngineError] = {}
        for tags in self._by_group(list(batch)).values():
            group = self.group_of[tags[0]]
            deltas: dict[CaseTag, list[tuple[Any, ...]]] = {}
            for i in tags:
                plus, minus = batch[i]
                try:
                    deltas[i] = group.tagged(i, plus, 1) + group.tagged(i, minus, -1)
                except EngineError as refused:
                    out[i] = refused
            work = group.update(deltas, out)
            changed: dict[CaseTag, dict[Value, Value | None]] = {i: {} for i in work}
            for i, k, acc in group.changed:
                changed[i][k] = acc
            views = group.views()
            for i in work:
                plus, minus = batch[i]
                for k, vs in minus.items():
                    for v in vs:
                        self.collections[i][k].remove(v)
                for k, vs in plus.items():
                    self.collections[i].setdefault(k, []).extend(vs)
                out[i] = ReduceObservation(view=views.get(i, {}), changes=changed[i], work=work[i])
        return out


class SparkLockstepFixpoint:
    """Fixpoint cases in lockstep: one :class:`IncrementalReachability` for all of them.

    Every round of an update advances each case's frontier exactly as a separate run
    would (same rounds, same ranks, same added and removed elements). Its work
    counters are those of all the cases together, so it reports none (the suite
    runs a case with cost checks on its own engine).
    """

    work_per_case = False

    def __init__(self, spark: SparkSession) -> None:
        self.engine = IncrementalReachability(spark, "string")

    def admits(self, ops: Sequence[str]) -> bool:
        return bool(ops) and ops[0] == "make" and all(op == "apply" for op in ops[1:])

    def make(self, batch: Mapping[CaseTag, tuple[Sequence[Value], Sequence[tuple[Value, Value]]]]
             ) -> dict[CaseTag, FixpointObservation | EngineError]:
        return self._update({i: FixpointChange(add_roots=tuple(roots), add_edges=tuple(edges))
                             for i, (roots, edges) in batch.items()})

    def apply(self, batch: Mapping[CaseTag, tuple[FixpointChange]]
              ) -> dict[CaseTag, FixpointObservation | EngineError]:
        return self._update({i: change for i, (change,) in batch.items()})

    def _update(self, changes: Mapping[CaseTag, FixpointChange]) -> dict[CaseTag, FixpointObservation | EngineError]:
        def tag(i: CaseTag, xs: Sequence[Value]) -> list[str]:
            return [encode([i, x]) for x in xs]

        def tag_edges(i: CaseTag, es: Sequence[tuple[Value, Value]]) -> list[tuple[str, str]]:
            return [(encode([i, u]), encode([i, v])) for u, v in es]

        delta = self.engine.apply(
            [n for i, c in changes.items() for n in tag(i, c.add_roots)],
            [n for i, c in changes.items() for n in tag(i, c.remove_roots)],
            [e for i, c in changes.items() for e in tag_edges(i, c.add_edges)],
            [e for i, c in changes.items() for e in tag_edges(i, c.remove_edges)])
        ranks: dict[CaseTag, dict[Value, int]] = {i: {} for i in changes}
        for (node, rank), w in self.engine.live.collect_rows().items():
            i, x = decode(node)
            if w > 0 and i in ranks:
                ranks[i][x] = int(rank)
        added: dict[CaseTag, set[Value]] = {i: set() for i in changes}
        removed: dict[CaseTag, set[Value]] = {i: set() for i in changes}
        for side, out in ((delta.added, added), (delta.removed, removed)):
            for node in side:
                i, x = decode(node)
                out[i].add(x)
        return {i: FixpointObservation(current=frozenset(ranks[i]), added=frozenset(added[i]),
                                       removed=frozenset(removed[i]), ranks=ranks[i])
                for i in changes}
