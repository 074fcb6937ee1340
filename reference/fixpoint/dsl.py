"""§5 "Level 2: DSL with Automatic Derivation" (future work in the paper, built
here; FIX-DEF-5.2, FIX-DEC-DSL). The user writes F as an expression; the system
derives the incremental operations from its structure, as automatic
differentiation derives a gradient from an expression tree (FIX-REM-5.1):

* ``base``     = the S-free part of F: F(∅);
* ``stepFwd``  = the "derivative" of F at one element x: every S-dependent
  path of the expression evaluated on {x} (chain rule through ``join``,
  ``filter``, ``map``; sum rule through ``union``);
* semi-naive deltas: ``stepFromDelta(Δ) = ⋃_{x∈Δ} stepFwd(x)``;
* ``stepInv``  = the index {x ∈ current | y ∈ stepFwd(x)} built from stepFwd
  and maintained incrementally (§3.1.2 note);
* the *delta of the step relation* caused by an edit of the data: while
  computing stepFwd(x) the system records which (relation, key) pairs x probed
  (a "tape"); an edit of relation R at key k can only change stepFwd(x) for
  the live x that probed (R, k), and only those are re-derived and diffed.
  This makes ``addedToStep``/``removedFromStep`` exact by construction (no
  user obligation, as with the managed API);
* contraction and expansion are the Level 1 algorithms
  (:class:`reference.fixpoint.level1.FullFixpoint`).

Grammar (FIX-DEF-5.2): ``const(B)`` (a named unary relation), ``S`` (the
fixpoint variable), ``union(E1, E2)``, ``join(R, E, key, π)`` (for s ∈ E and
(k, w) ∈ R with key(s) = k, the element π(s, (k, w))), ``filter(P, E)``,
``map(f, E)``, and ``lfp(S => E)``. Relations in ``join`` are named data, never
S, so F is linear in S: step is element-wise and additive by construction
(FIX-CLAIM-DSL-DERIVED checks it). The base is re-evaluated on each edit
(O(|base| + its joins)); everything else costs in proportion to the change.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from reference.fixpoint.general_pattern import Operator
from reference.fixpoint.level1 import FullFixpoint, StepDelta
from reference.fixpoint.managed import Update

Value = Any
Database = Mapping[str, frozenset[Value]]
Probe = tuple[str, Value]  # (relation, key) looked up by a join


@dataclass(frozen=True)
class Fn:
    """A named function (names make programs printable and comparable)."""

    name: str
    fn: Callable[..., Value] = field(compare=False)

    def __call__(self, *args: Value) -> Value:
        return self.fn(*args)

    def __repr__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Const:
    """``const(B)``: the named unary relation B."""

    relation: str


@dataclass(frozen=True)
class Var:
    """S, the variable bound by ``lfp``."""


@dataclass(frozen=True)
class Union_:
    """``union(E1, E2)``."""

    left: Expr
    right: Expr


@dataclass(frozen=True)
class Join:
    """``join(R, E, key, π)``: {π(s, r) | s ∈ E, r = (k, w) ∈ R, key(s) = k}."""

    relation: str
    expr: Expr
    key: Fn
    proj: Fn


@dataclass(frozen=True)
class Filter:
    """``filter(P, E)``."""

    pred: Fn
    expr: Expr


@dataclass(frozen=True)
class Map:
    """``map(f, E)``."""

    fn: Fn
    expr: Expr


@dataclass(frozen=True)
class Minus:
    """``minus(E, R)``: {v ∈ E | v ∉ R}, negation of a named relation (FIX-DEF-STRAT).
    R must not depend on S: it is data or a lower stratum's output, so F stays
    monotone in S."""

    expr: Expr
    relation: str


Expr = Const | Var | Union_ | Join | Filter | Map | Minus


@dataclass(frozen=True)
class Lfp:
    """``lfp(S => body)``."""

    body: Expr


S = Var()


def const(relation: str) -> Const:
    return Const(relation)


def union(left: Expr, right: Expr) -> Union_:
    return Union_(left, right)


def join(relation: str, expr: Expr, key: Fn, proj: Fn) -> Join:
    return Join(relation, expr, key, proj)


def filter_(pred: Fn, expr: Expr) -> Filter:
    return Filter(pred, expr)


def map_(fn: Fn, expr: Expr) -> Map:
    return Map(fn, expr)


def minus(expr: Expr, relation: str) -> Minus:
    return Minus(expr, relation)


@dataclass(frozen=True)
class Uses:
    """The named relations an expression reads: by ``const``, by ``join``, by ``minus``."""

    unary: frozenset[str] = frozenset()
    binary: frozenset[str] = frozenset()
    negated: frozenset[str] = frozenset()

    def __or__(self, other: Uses) -> Uses:
        return Uses(self.unary | other.unary, self.binary | other.binary, self.negated | other.negated)

    @property
    def all(self) -> frozenset[str]:
        return self.unary | self.binary | self.negated


def relations(e: Expr) -> Uses:
    """The named relations ``e`` reads, by kind of use."""
    if isinstance(e, Const):
        return Uses(unary=frozenset({e.relation}))
    if isinstance(e, Var):
        return Uses()
    if isinstance(e, Union_):
        return relations(e.left) | relations(e.right)
    if isinstance(e, Join):
        return relations(e.expr) | Uses(binary=frozenset({e.relation}))
    if isinstance(e, Minus):
        return relations(e.expr) | Uses(negated=frozenset({e.relation}))
    return relations(e.expr)


# --- the denotation: evaluate an expression on a set --------------------------


def evaluate(e: Expr, db: Database, S_value: frozenset[Value]) -> frozenset[Value]:
    """⟦e⟧(db, S): the set an expression denotes (nested loops; the spec of the
    derived operations, never used by them)."""
    if isinstance(e, Const):
        return db.get(e.relation, frozenset())
    if isinstance(e, Var):
        return S_value
    if isinstance(e, Union_):
        return evaluate(e.left, db, S_value) | evaluate(e.right, db, S_value)
    if isinstance(e, Join):
        inner = evaluate(e.expr, db, S_value)
        rel = db.get(e.relation, frozenset())
        return frozenset(e.proj(s, r) for s in inner for r in rel if e.key(s) == r[0])
    if isinstance(e, Filter):
        return frozenset(v for v in evaluate(e.expr, db, S_value) if e.pred(v))
    if isinstance(e, Minus):
        return evaluate(e.expr, db, S_value) - db.get(e.relation, frozenset())
    return frozenset(e.fn(v) for v in evaluate(e.expr, db, S_value))


def recompute(program: Lfp, db: Database) -> frozenset[Value]:
    """lfp(S => body) by Kleene iteration of ⟦body⟧: the full recomputation that
    incremental maintenance must equal (FIX-CLAIM-DSL-INCREMENTAL)."""
    S_value: frozenset[Value] = frozenset()
    while True:
        nxt = evaluate(program.body, db, S_value)
        if nxt == S_value:
            return S_value
        S_value = nxt


# --- derived operations --------------------------------------------------------

#: Lookup tables: a joined relation R under its name, keyed by first component;
#: a negated relation R under ``negated_table(R)``, keyed by the element itself.
Index = Mapping[str, Mapping[Value, tuple[Value, ...]]]


def negated_table(relation: str) -> str:
    return "¬" + relation


def build_index(db: Database, uses: Uses, only: Iterable[str] | None = None
                ) -> dict[str, dict[Value, tuple[Value, ...]]]:
    """The lookup tables of the relations in ``uses`` (or only those named in ``only``)."""
    names = uses.all if only is None else uses.all & frozenset(only)
    index: dict[str, dict[Value, tuple[Value, ...]]] = {}
    for name in names:
        if name in uses.binary:
            table: dict[Value, list[Value]] = {}
            for r in db.get(name, frozenset()):
                table.setdefault(r[0], []).append(r)
            index[name] = {k: tuple(rs) for k, rs in table.items()}
        if name in uses.negated:
            index[negated_table(name)] = {v: (v,) for v in db.get(name, frozenset())}
    return index


def derive_base(e: Expr, db: Database, index: Index) -> frozenset[Value]:
    """base(e): the S-free part. base(S) = ∅, base(const B) = B, and each other
    primitive applied to the base of its argument(s)."""
    if isinstance(e, Const):
        return db.get(e.relation, frozenset())
    if isinstance(e, Var):
        return frozenset()
    if isinstance(e, Union_):
        return derive_base(e.left, db, index) | derive_base(e.right, db, index)
    if isinstance(e, Join):
        return _join(e, derive_base(e.expr, db, index), index, None)
    if isinstance(e, Filter):
        return frozenset(v for v in derive_base(e.expr, db, index) if e.pred(v))
    if isinstance(e, Minus):
        return _minus(e, derive_base(e.expr, db, index), index, None)
    return frozenset(e.fn(v) for v in derive_base(e.expr, db, index))


def _join(e: Join, inner: Iterable[Value], index: Index, tape: set[Probe] | None) -> frozenset[Value]:
    table = index.get(e.relation, {})
    out: set[Value] = set()
    for s in inner:
        k = e.key(s)
        if tape is not None:
            tape.add((e.relation, k))
        out.update(e.proj(s, r) for r in table.get(k, ()))
    return frozenset(out)


def _minus(e: Minus, inner: Iterable[Value], index: Index, tape: set[Probe] | None) -> frozenset[Value]:
    name = negated_table(e.relation)
    table = index.get(name, {})
    if tape is not None:
        tape.update((name, v) for v in inner)
    return frozenset(v for v in inner if v not in table)


def derive_step(e: Expr, index: Index, x: Value, tape: set[Probe] | None = None) -> frozenset[Value]:
    """stepFwd(x), the derivative of e at x: d(S) = {x}, d(const) = ∅,
    d(union) = d(E1) ∪ d(E2), d(join(R, E)) = join(R, d(E)), d(filter(P, E)) =
    filter(P, d(E)), d(map(f, E)) = map(f, d(E)), d(minus(E, R)) = minus(d(E), R).
    Records the probed (table, key) pairs in ``tape``."""
    if isinstance(e, Var):
        return frozenset({x})
    if isinstance(e, Const):
        return frozenset()
    if isinstance(e, Union_):
        return derive_step(e.left, index, x, tape) | derive_step(e.right, index, x, tape)
    if isinstance(e, Join):
        return _join(e, derive_step(e.expr, index, x, tape), index, tape)
    if isinstance(e, Filter):
        return frozenset(v for v in derive_step(e.expr, index, x, tape) if e.pred(v))
    if isinstance(e, Minus):
        return _minus(e, derive_step(e.expr, index, x, tape), index, tape)
    return frozenset(e.fn(v) for v in derive_step(e.expr, index, x, tape))


def step_from_delta(program: Lfp, index: Index, delta: Iterable[Value]) -> frozenset[Value]:
    """Example 2's derived ``stepFromDelta(Δ) = ⋃_{x∈Δ} stepFwd(x)`` (semi-naive)."""
    return frozenset(y for x in delta for y in derive_step(program.body, index, x))


def derived_operator(program: Lfp, db: Database) -> Operator:
    """The decomposed operator the system derives: (base, stepFwd)."""
    index = build_index(db, relations(program.body))
    return Operator(derive_base(program.body, db, index),
                    lambda x: derive_step(program.body, index, x))


# --- incremental maintenance -----------------------------------------------------


@dataclass(frozen=True)
class Edit:
    """Tuples added to and removed from named relations (removals first)."""

    added: Mapping[str, frozenset[Value]] = field(default_factory=dict)
    removed: Mapping[str, frozenset[Value]] = field(default_factory=dict)


def apply_edit(db: Database, edit: Edit) -> dict[str, frozenset[Value]]:
    out = dict(db)
    for name in set(edit.added) | set(edit.removed):
        out[name] = (db.get(name, frozenset()) - edit.removed.get(name, frozenset())) | \
            edit.added.get(name, frozenset())
    return out


@dataclass(frozen=True)
class DslFixpoint:
    """lfp(S => body) over a database, maintained incrementally by the derived
    operations (the Level 1 full API underneath, with the derived stepInv)."""

    program: Lfp
    db: Database
    index: Index
    engine: FullFixpoint
    probes: Mapping[Probe, frozenset[Value]]  # (relation, key) -> live x that probed it

    @property
    def current(self) -> frozenset[Value]:
        return self.engine.current

    @staticmethod
    def make(program: Lfp, db: Database) -> tuple[DslFixpoint, Update]:
        index = MappingProxyType(build_index(db, relations(program.body)))
        body = program.body
        engine, update = FullFixpoint.make(derive_base(body, db, index),
                                           lambda x: derive_step(body, index, x))
        probes = _probe_index({}, body, index, added=engine.current, removed=())
        return DslFixpoint(program, MappingProxyType(dict(db)), index, engine, probes), update

    def step_delta(self, edit: Edit
                   ) -> tuple[dict[str, frozenset[Value]], Index, StepDelta, frozenset[Value]]:
        """The derived consequences of a data edit: the new database, the new join
        index, the exact StepDelta (base changes, and the step pairs (x, y)
        that appear or disappear for *live* x; pairs out of dead elements cannot
        seed expansion or withdraw support, so the Level 1 update ignores them),
        and the live elements whose tape may have changed (to be re-taped)."""
        body = self.program.body
        new_db = apply_edit(self.db, edit)
        uses = relations(body)
        changed = (set(edit.added) | set(edit.removed)) & (uses.binary | uses.negated)
        new_index = MappingProxyType({**self.index, **build_index(new_db, uses, changed)})
        # live x whose stepFwd may change: those that probed an edited (table, key)
        affected: set[Value] = set()
        for name in changed:
            for r in edit.added.get(name, frozenset()) | edit.removed.get(name, frozenset()):
                if name in uses.binary:
                    affected |= self.probes.get((name, r[0]), frozenset())
                if name in uses.negated:
                    affected |= self.probes.get((negated_table(name), r), frozenset())
        added_pairs: list[tuple[Value, Value]] = []
        removed_pairs: list[tuple[Value, Value]] = []
        for x in affected:
            before = derive_step(body, self.index, x)
            after = derive_step(body, new_index, x)
            added_pairs += [(x, y) for y in after - before]
            removed_pairs += [(x, y) for y in before - after]
        old_base = self.engine.config.base
        new_base = derive_base(body, new_db, new_index)
        delta = StepDelta(tuple(new_base - old_base), tuple(old_base - new_base),
                          tuple(added_pairs), tuple(removed_pairs))
        return new_db, new_index, delta, frozenset(affected)

    def apply(self, edit: Edit) -> tuple[DslFixpoint, Update]:
        """Derive the exact StepDelta of the edit, then run the Level 1 update."""
        body = self.program.body
        new_db, new_index, delta, affected = self.step_delta(edit)
        engine, update = self.engine.apply_delta(lambda x: derive_step(body, new_index, x), delta)
        still = affected & engine.current
        probes = _probe_index(self.probes, body, new_index,
                              added=update.added | still, removed=update.removed | still)
        return DslFixpoint(self.program, MappingProxyType(new_db), new_index, engine, probes), update


def _probe_index(probes: Mapping[Probe, frozenset[Value]], body: Expr, index: Index,
                 added: Iterable[Value], removed: Iterable[Value]) -> Mapping[Probe, frozenset[Value]]:
    """The probe index with ``removed`` elements dropped and ``added`` ones re-taped."""
    out: dict[Probe, set[Value]] = {}
    gone = set(removed)
    for p, xs in probes.items():
        keep = set(xs) - gone
        if keep:
            out[p] = keep
    for x in added:
        tape: set[Probe] = set()
        derive_step(body, index, x, tape)
        for p in tape:
            out.setdefault(p, set()).add(x)
    return MappingProxyType({p: frozenset(xs) for p, xs in out.items()})


def maintained_equals_recomputed(program: Lfp, db: Database, edits: Iterable[Edit]) -> bool:
    """Convenience: run edits incrementally and compare with :func:`recompute` after each."""
    state, _ = DslFixpoint.make(program, db)
    if state.current != recompute(program, db):
        return False
    for edit in edits:
        state, _ = state.apply(edit)
        if state.current != recompute(program, state.db):
            return False
    return True

