"""Engine protocols: what an implementation under test provides, per area.

This module is the contract between the suite and every implementation
(in-process ones implement these Protocols; subprocess ones speak the JSON-lines
protocol, whose messages carry the same data). Changes are *additive only*:
new optional methods or fields, never a changed signature.

Values crossing the boundary are JSON values. In Python, JSON arrays become
tuples so that they are hashable (a key, a set element, a multiset value), and
``true``/``false`` arrive as :class:`JsonBool` (``.value`` is the Python bool), so
that true is never the number 1, and integral numbers as ``int`` (``1.0`` is the
number 1): the ``*-DEC-JSON-VALUES`` items.
An engine is created fresh per case; the suite never reuses one across cases.

Areas and their observations:

- ``reduce``  : declare a reducer (by name, from :mod:`conformance.reducers`),
  load a collection, apply deltas; observe the view and the changes it emitted.
- ``fixpoint``: make from roots and edges (the managed API: the engine owns the
  step relation), apply changes; observe the live set and the elements added
  and removed; optionally ranks and work counters.
- ``zset``    : build a dataflow program (the suite's JSON syntax), push input
  deltas version by version; observe each version's output delta.
- ``stream``  : run a named stream processor over an input cut into batches;
  observe the output.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

# The protocol's value model: JSON true/false as values that equal no number.
from reference.algebra.json_values import JsonBool as JsonBool

AREAS = ("reduce", "fixpoint", "zset", "stream")

#: A JSON value, with arrays as tuples (hashable).
Value = Any
#: A Z-set delta on the wire: ((element, weight), ...), weights non-zero.
WeightedRows = Sequence[tuple[Value, int]]


@dataclass(frozen=True)
class Handshake:
    """What an implementation says of itself before the first case."""

    name: str
    version: str
    language: str = "python"
    areas: tuple[str, ...] = AREAS
    features: tuple[str, ...] = ()


class EngineError(Exception):
    """An engine refused an operation; ``error_class`` is what cases compare.

    Classes: ``invalid-delta`` (removing a value not present), ``ill-formed-reducer``,
    ``malformed-input``, ``unsupported``.
    """

    def __init__(self, error_class: str, message: str = "") -> None:
        super().__init__(message or error_class)
        self.error_class = error_class


# --- reduce ------------------------------------------------------------------


@dataclass(frozen=True)
class ReduceObservation:
    """After an operation: the view (keys with a non-empty multiset only, see
    SKIP-DEC-VIEW) and the changes emitted: key -> new accumulator, or ``None``
    when the key left the view. Work counters are optional (cost conformance)."""

    view: Mapping[Value, Value]
    changes: Mapping[Value, Value | None]
    work: Mapping[str, int] | None = None


@runtime_checkable
class ReduceEngine(Protocol):
    def declare(self, reducer: str, params: Mapping[str, Value]) -> None:
        """Use the reducer named ``reducer`` (see :mod:`conformance.reducers`)."""

    def load(self, collection: Mapping[Value, Sequence[Value]]) -> ReduceObservation:
        """Initial collection: key -> values (with repetition)."""

    def apply(
        self, plus: Mapping[Value, Sequence[Value]], minus: Mapping[Value, Sequence[Value]]
    ) -> ReduceObservation:
        """Apply the delta (Δ⁺, Δ⁻); raise ``EngineError('invalid-delta')`` and keep
        the state unchanged when Δ⁻(k) ⊄ C(k)."""


# --- fixpoint ----------------------------------------------------------------


@dataclass(frozen=True)
class FixpointChange:
    add_roots: tuple[Value, ...] = ()
    remove_roots: tuple[Value, ...] = ()
    add_edges: tuple[tuple[Value, Value], ...] = ()
    remove_edges: tuple[tuple[Value, Value], ...] = ()


@dataclass(frozen=True)
class FixpointObservation:
    current: frozenset[Value]
    added: frozenset[Value]
    removed: frozenset[Value]
    ranks: Mapping[Value, int] | None = None
    work: Mapping[str, int] | None = None


@runtime_checkable
class FixpointEngine(Protocol):
    def make(
        self, roots: Sequence[Value], edges: Sequence[tuple[Value, Value]]
    ) -> FixpointObservation: ...

    def apply(self, change: FixpointChange) -> FixpointObservation: ...


# --- zset --------------------------------------------------------------------


@runtime_checkable
class ZSetEngine(Protocol):
    def build(self, program: Mapping[str, Value]) -> None:
        """A dataflow program in the suite's JSON syntax (see :mod:`conformance.zset_programs`)."""

    def step(self, inputs: Mapping[str, WeightedRows]) -> WeightedRows:
        """Feed one version's input deltas (by input name); return the output delta."""


# --- stream ------------------------------------------------------------------


@runtime_checkable
class StreamEngine(Protocol):
    def run(
        self, processor: str, params: Mapping[str, Value], batches: Sequence[Sequence[Value]]
    ) -> Sequence[Value]:
        """Run the named processor over the input cut into ``batches``; the output."""


# --- implementations ---------------------------------------------------------


@dataclass(frozen=True)
class CaseResult:
    """What an implementation returns for one case: observations per step, or skipped/errored."""

    case_id: str
    status: str  # "result" | "skipped" | "errored"
    observations: Sequence[Value] = field(default=())
    message: str = ""


@runtime_checkable
class Implementation(Protocol):
    """An implementation under test: a handshake and a fresh engine per case.

    An implementation that cannot serve an area returns ``None`` from its factory
    and omits the area from its handshake. It may also provide
    ``run_cases(cases) -> Sequence[CaseResult]`` to run many cases in one go
    (the Spark implementation does, to share Spark jobs across cases); the
    suite uses it when present.
    """

    def handshake(self) -> Handshake: ...

    def reduce_engine(self) -> ReduceEngine | None: ...

    def fixpoint_engine(self) -> FixpointEngine | None: ...

    def zset_engine(self) -> ZSetEngine | None: ...

    def stream_engine(self) -> StreamEngine | None: ...
