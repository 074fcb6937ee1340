"""The ``fixpoint`` area: :class:`conformance.protocols.FixpointEngine` on Spark.

Elements travel as canonical JSON text. Observations are read back from
Spark: the live set with its ranks, and the update's added/removed elements
(only these when the case asks for changes only, the feature ``changes-only``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pyspark.sql import DataFrame, SparkSession

from conformance.protocols import EngineError, FixpointChange, FixpointObservation, Value
from spark_impl.driver_rows import frame_of_rows
from spark_impl.fixpoint.reachability import IncrementalReachability
from spark_impl.fixpoint.update import Work
from spark_impl.protocol import decode, encode, speaks_suite_errors


def _pairs(edges: Iterable[Any]) -> list[tuple[str, str]]:
    out = []
    for edge in edges:
        if not isinstance(edge, tuple | list) or len(edge) != 2:
            raise EngineError("malformed-input", f"an edge is a pair, got {edge!r}")
        out.append((encode(edge[0]), encode(edge[1])))
    return out


@speaks_suite_errors
class SparkFixpointEngine:
    """One case's fixpoint engine (the managed API: the engine owns the edges)."""

    def __init__(self, spark: SparkSession) -> None:
        self.spark = spark
        self.engine = IncrementalReachability(spark, "string")
        self.only_changes = False  # observations without the live set (the feature changes-only)

    def observe_changes_only(self) -> None:
        """Observations carry the added and removed elements only: the live set and its ranks
        are then not collected from Spark at each step."""
        self.only_changes = True

    def _nodes(self, nodes: Iterable[Value]) -> DataFrame:
        return frame_of_rows(self.spark, [(encode(n),) for n in nodes], "node string")

    def _edges(self, edges: Iterable[Any]) -> DataFrame:
        return frame_of_rows(self.spark, _pairs(edges), "src string, dst string")

    def _observe(self, added: set[Any], removed: set[Any], work: Work) -> FixpointObservation:
        if self.only_changes:
            return FixpointObservation(current=frozenset(), added=frozenset(decode(n) for n in added),
                                       removed=frozenset(decode(n) for n in removed), work=work.as_mapping())
        live = self.engine.live.collect_rows()
        ranks = {decode(node): int(rank) for (node, rank), w in live.items() if w > 0}
        return FixpointObservation(
            current=frozenset(ranks),
            added=frozenset(decode(n) for n in added),
            removed=frozenset(decode(n) for n in removed),
            ranks=ranks,
            work=work.as_mapping(),
        )

    def make(self, roots: Sequence[Value], edges: Sequence[tuple[Value, Value]]) -> FixpointObservation:
        # The first batch of an empty engine takes the from-scratch path
        # (semi-naive rounds), as IncrementalReachability.make does.
        delta = self.engine.apply(add_roots=[encode(n) for n in roots], add_edges=_pairs(edges))
        return self._observe(delta.added, delta.removed, delta.work)

    def apply(self, change: FixpointChange) -> FixpointObservation:
        delta = self.engine.apply(
            [encode(n) for n in change.add_roots], [encode(n) for n in change.remove_roots],
            _pairs(change.add_edges), _pairs(change.remove_edges))
        return self._observe(delta.added, delta.removed, delta.work)
