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

from collections.abc import Callable, Mapping, Sequence
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
    #: how the engine is set up for this run (a mode, a mapping, a backend), shown in every report
    configuration: Mapping[str, Any] = field(default_factory=dict)


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
    when the key left the view. Work counters are optional (cost conformance).

    Changes only (the feature ``changes-only``): an engine whose optional
    ``observe_changes_only()`` the suite called before the first step may leave ``view``
    empty, as the suite then reads only ``changes`` (so that a step's time can follow the
    change, not the view: the scaling probes)."""

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
    """The live set, the elements an operation added and removed, optionally ranks and work.
    Changes only (as :class:`ReduceObservation`): after ``observe_changes_only()``,
    ``current`` and ``ranks`` may be left empty; the suite reads ``added`` and ``removed``."""

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
    #: the case's own run time, when the backend measured it (cases run concurrently, or
    #: together on a lockstep engine: the time between two results is then no case's own)
    seconds: float | None = None


# --- lockstep: many cases of one area in one engine ---------------------------
#
# An implementation may also run several cases of an area *together*, in one
# engine (one dataflow for all of them: Spark does, to share its jobs). The
# suite's one driver still reads every case and judges every observation: it
# hands the engine the i-th operation of each case at once, as a batch keyed by
# a case tag, and the engine answers per tag what the per-case method would have
# returned, or the refusal (an :class:`EngineError` *returned*, not raised: the
# other cases of the batch go on). A lockstep method takes, per tag, exactly
# the arguments of the per-case method of the same name. Cases must not see each
# other: each case's answers are those of a separate run on a fresh engine.

#: The tag of a case in a lockstep batch (its position among the batch's cases).
CaseTag = int


@runtime_checkable
class LockstepReduceEngine(Protocol):
    #: Whether its work counters are each case's own (else cases with cost checks run alone).
    work_per_case: bool

    def admits(self, ops: Sequence[str]) -> bool:
        """Whether a case with these operations (in order) may join the batch."""

    def declare(
        self, batch: Mapping[CaseTag, tuple[str, Mapping[str, Value]]]
    ) -> Mapping[CaseTag, EngineError | None]: ...

    def load(
        self, batch: Mapping[CaseTag, tuple[Mapping[Value, Sequence[Value]]]]
    ) -> Mapping[CaseTag, ReduceObservation | EngineError]: ...

    def apply(
        self,
        batch: Mapping[CaseTag, tuple[Mapping[Value, Sequence[Value]], Mapping[Value, Sequence[Value]]]],
    ) -> Mapping[CaseTag, ReduceObservation | EngineError]: ...


@runtime_checkable
class LockstepFixpointEngine(Protocol):
    work_per_case: bool

    def admits(self, ops: Sequence[str]) -> bool: ...

    def make(
        self, batch: Mapping[CaseTag, tuple[Sequence[Value], Sequence[tuple[Value, Value]]]]
    ) -> Mapping[CaseTag, FixpointObservation | EngineError]: ...

    def apply(
        self, batch: Mapping[CaseTag, tuple[FixpointChange]]
    ) -> Mapping[CaseTag, FixpointObservation | EngineError]: ...


@runtime_checkable
class LockstepStreamEngine(Protocol):
    work_per_case: bool

    def admits(self, ops: Sequence[str]) -> bool: ...

    def run(
        self, batch: Mapping[CaseTag, tuple[str, Mapping[str, Value], Sequence[Sequence[Value]]]]
    ) -> Mapping[CaseTag, Sequence[Value] | EngineError]: ...


LockstepEngine = LockstepReduceEngine | LockstepFixpointEngine | LockstepStreamEngine


# --- implementations ---------------------------------------------------------


@runtime_checkable
class Implementation(Protocol):
    """An implementation under test: a handshake and a fresh engine per case.

    An implementation that cannot serve an area returns ``None`` from its factory
    and omits the area from its handshake. Two optional members, read with
    ``getattr``: ``lockstep_engine(area)`` returning a fresh lockstep engine
    (:class:`LockstepReduceEngine`, :class:`LockstepFixpointEngine`) or ``None``,
    ``concurrency: int``, how many cases (or lockstep batches) the suite may
    run at once on the implementation (default 1: one after the other), and
    ``case_timeout: float | None``, the seconds a case may take by default
    (``None``: no limit; ``--timeout`` overrides it). Any engine (lockstep ones too)
    may have a ``close()``: the driver calls it once when done with the engine
    (:func:`conformance.driver.release`), so what it holds (a running query) ends there.
    """

    def handshake(self) -> Handshake: ...

    def reduce_engine(self) -> ReduceEngine | None: ...

    def fixpoint_engine(self) -> FixpointEngine | None: ...

    def zset_engine(self) -> ZSetEngine | None: ...

    def stream_engine(self) -> StreamEngine | None: ...


@dataclass(frozen=True)
class Mutant:
    """A deliberately wrong implementation, for the suite's kill score (``--mutants``).

    Implementations offer mutants through the ``incspec.mutants`` entry-point group
    (a zero-argument function returning a list of them). The suite must *kill* every
    one: some case of its area fails or errors, or, for a cost mutant, the cost
    column fails.
    """

    name: str
    area: str
    fault: str  # the one semantic fault, in words
    make: Callable[[], Implementation]
    cost_only: bool = False  # killed by the cost column (a complexity fault, not a wrong value)
