"""The properties a reducer is checked against, one per verdict line.

Each law is stated on one *instance* (the variables of its ∀). Whether it
holds there is decided by the reference's own check of that law
(:mod:`reference.reduce`: ``check_pairwise_commutative``, ``inverse_law_fails``,
``check_skipdoc_well_formed``, ``incorrect_update``) run on the single
instance, so the checker and the spec cannot drift apart. The law's *sides* (the
values it says are equal, computed with ``fold_seq``, ``fold``, ``reduce``,
``apply_delta``, ``update``) are what the report shows and what the weaker
tolerance mode compares; in exact mode the engines insist that the sides agree
with the reference's check (``tests/check_reducer`` checks it too).

Declining removes (Skip's ``null``, SKIP-DEC-PARTIAL; the reference's
``strict_remove`` is the reading of ⊖ used here): an instance on which
``remove`` declines is *vacuous*, since the runtime recomputes that key from
``initial`` and ``add``; only answers that ``remove`` does give are checked. For
⊖'s commutativity an instance on which either order declines is vacuous
(SKIP-DEC-PARTIAL-COMMUTES), and Skip's contract excuses each of its two
equations by its own ``remove``.

One more line, ``pure``, is not a law of the paper's but its premise: ⊕ and ⊖
are functions A × V → A (SKIP-DEF-6), so a call must leave its arguments as they
were (:mod:`check_reducer.purity`). Every other line is judged under value semantics.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from check_reducer.purity import Guard, guard_of
from reference.algebra.multiset import Multiset
from reference.reduce import (
    Declined,
    Delta,
    Reducer,
    apply_delta,
    check_pairwise_commutative,
    check_skipdoc_well_formed,
    fold,
    fold_seq,
    incorrect_update,
    inverse_law_fails,
    reduce,
    strict_remove,
    update,
)

#: what a law's variable ranges over: an accumulator, a value, or a finite multiset of values
Kind = Literal["acc", "value", "bag"]

#: the one key of the single-key collections the laws build (keys are independent in
#: SKIP-DEF-5/10, so one key loses no generality)
KEY = "k"


@dataclass(frozen=True)
class Sides:
    """The values a law says are equal, by name (e.g. recompute and incremental)."""

    values: tuple[tuple[str, Any], ...]

    def as_dict(self) -> dict[str, Any]:
        return dict(self.values)


#: Outcome of one instance: the sides, or DECLINED when ``remove`` declined (vacuous)
DECLINED: Literal["declined"] = "declined"
Outcome = Sides | Literal["declined"]


def bag(values: Sequence[Any]) -> Multiset:
    return Multiset.from_iterable(values)


SidesOf = Callable[[Reducer[Any, Any], Mapping[str, Any]], Sides]


@dataclass(frozen=True)
class Law:
    """One verdict line: a property of a reducer cited by its spec ID."""

    key: str  # stable machine name of the line ("def2-add", ...)
    spec_id: str
    title: str
    statement: str  # the quantified statement, as the spec has it
    params: tuple[tuple[str, Kind], ...]
    sides: SidesOf
    #: the reference's check of one instance; exact mode decides by it (None: no such check)
    reference_holds: Callable[[Reducer[Any, Any], Mapping[str, Any]], bool] | None
    tolerant: bool = True  # the tolerance mode applies (not to whether an argument changed)

    def evaluate(self, R: Reducer[Any, Any], args: Mapping[str, Any]) -> Outcome:
        """The sides of the law on ``args``, or DECLINED. The user's exceptions propagate."""
        try:
            return self.sides(R, args)
        except Declined:
            return DECLINED


# --- the sides of each law, written as the spec states it -----------------------------


def _commutes(star_of: Callable[[Reducer[Any, Any]], Callable[[Any, Any], Any]], op: str) -> SidesOf:
    """SKIP-DEF-2 for the operation ``star_of(R)``, written ``op``. For ⊖ read as
    ``strict_remove`` an order that declines raises Declined: the instance is vacuous
    (SKIP-DEC-PARTIAL-COMMUTES)."""
    def sides(R: Reducer[Any, Any], x: Mapping[str, Any]) -> Sides:
        star = star_of(R)
        left = fold_seq(star, x["a"], [x["v1"], x["v2"]])
        right = fold_seq(star, x["a"], [x["v2"], x["v1"]])
        return Sides(((f"(a {op} v1) {op} v2", left), (f"(a {op} v2) {op} v1", right)))
    return sides


def _pure(R: Reducer[Any, Any], x: Mapping[str, Any]) -> Sides:
    """add(accum, v) and remove(accum, v) leave accum and v unchanged (SKIP-DEF-6: functions)."""
    guard = guard_of(R) or Guard(R.add, R.remove)
    for function in ("add", "remove"):
        _, mutation = guard.probe(function, x["a"], x["v"])
        if mutation is not None:
            name = "accum" if mutation.argument == "acc" else "v"
            call = f"{function}(accum, v)"
            return Sides(((f"{name} before {call}", mutation.before),
                          (f"{name} after {call}", mutation.after)))
    return Sides((("accum", x["a"]), ("accum after add(accum, v) and remove(accum, v)", x["a"])))


def _inverse_reachable(R: Reducer[Any, Any], x: Mapping[str, Any]) -> Sides:
    a = fold(R.add, R.initial, bag(x["M"]))  # a reachable accumulator fold_⊕(ι, M)
    return Sides((("(fold(ι,M) ⊕ v) ⊖ v", strict_remove(R)(R.add(a, x["v"]), x["v"])),
                  ("fold(ι,M)", a)))


def _inverse_global(R: Reducer[Any, Any], x: Mapping[str, Any]) -> Sides:
    a, v = x["a"], x["v"]
    return Sides((("(a ⊕ v) ⊖ v", strict_remove(R)(R.add(a, v), v)), ("a", a)))


def _skip_contract(R: Reducer[Any, Any], x: Mapping[str, Any]) -> Sides:
    """Each equation is excused on its own when *its* remove returns null: accum =
    add(remove(accum, v), v) unless remove(accum, v) is null, and accum =
    remove(add(accum, v), v) unless that remove is null."""
    a, v = x["a"], x["v"]
    sides: list[tuple[str, Any]] = [("accum", a)]
    removed = R.remove(a, v)
    if removed is not None:
        sides.append(("add(remove(accum, v), v)", R.add(removed, v)))
    undone = R.remove(R.add(a, v), v)
    if undone is not None:
        sides.append(("remove(add(accum, v), v)", undone))
    if len(sides) == 1:
        raise Declined(v)
    return Sides(tuple(sides))


def collection_and_delta(x: Mapping[str, Any]) -> tuple[dict[Any, Multiset], Delta]:
    """The single-key instance of SKIP-DEF-11: C(k) = M0 ⊎ D, Δ⁻(k) = D, Δ⁺(k) = P."""
    kept, removed, added = bag(x["M0"]), bag(x["D"]), bag(x["P"])
    C = {KEY: kept | removed} if len(kept | removed) else {}
    return C, Delta(plus={KEY: added} if len(added) else {},
                    minus={KEY: removed} if len(removed) else {})


def _incremental(R: Reducer[Any, Any], x: Mapping[str, Any]) -> Sides:
    C, delta = collection_and_delta(x)
    recomputed = reduce(R, apply_delta(C, delta)).get(KEY, R.initial)
    incremental = update(R, reduce(R, C).get(KEY, R.initial), delta, KEY)
    return Sides((("reduce_R(C • Δ)(k)", recomputed),
                  ("update_R(reduce_R(C)(k), Δ, k)", incremental)))


# --- whether each law holds at an instance, by the reference's own checks -------------


HoldsAt = Callable[[Reducer[Any, Any], Mapping[str, Any]], bool]


def _ref_commutes(star_of: Callable[[Reducer[Any, Any]], Callable[[Any, Any], Any]]) -> HoldsAt:
    def holds(R: Reducer[Any, Any], x: Mapping[str, Any]) -> bool:
        try:
            return check_pairwise_commutative(star_of(R), [x["a"]], [x["v1"], x["v2"]]).holds
        except Declined:  # an order declined: vacuous (SKIP-DEC-PARTIAL-COMMUTES)
            return True
    return holds


def _ref_inverse_reachable(R: Reducer[Any, Any], x: Mapping[str, Any]) -> bool:
    return not inverse_law_fails(R, fold(R.add, R.initial, bag(x["M"])), x["v"])


def _ref_inverse_global(R: Reducer[Any, Any], x: Mapping[str, Any]) -> bool:
    return not inverse_law_fails(R, x["a"], x["v"])


def _ref_skip_contract(R: Reducer[Any, Any], x: Mapping[str, Any]) -> bool:
    return check_skipdoc_well_formed(R, [x["a"]], [x["v"]]).holds


def _ref_incremental(R: Reducer[Any, Any], x: Mapping[str, Any]) -> bool:
    C, delta = collection_and_delta(x)
    return incorrect_update(R, C, delta) is None


LAWS: tuple[Law, ...] = (
    Law("def2-add", "SKIP-DEF-2", "add ⊕ is pairwise commutative (Def. 2, required by Def. 6)",
        "∀a∈A, v1,v2∈V. (a ⊕ v1) ⊕ v2 = (a ⊕ v2) ⊕ v1",
        (("a", "acc"), ("v1", "value"), ("v2", "value")), _commutes(lambda R: R.add, "⊕"),
        _ref_commutes(lambda R: R.add)),
    Law("def2-remove", "SKIP-DEF-2", "remove ⊖ is pairwise commutative (Def. 2, required by Def. 6)",
        "∀a∈A, v1,v2∈V. (a ⊖ v1) ⊖ v2 = (a ⊖ v2) ⊖ v1 where both orders answer "
        "(a decline in either order is vacuous: SKIP-DEC-PARTIAL-COMMUTES)",
        (("a", "acc"), ("v1", "value"), ("v2", "value")), _commutes(strict_remove, "⊖"),
        _ref_commutes(strict_remove)),
    Law("def7", "SKIP-DEF-7", "well-formed: ⊖ inverts ⊕ on reachable accumulators",
        "∀M∈M(V), v∈V. (fold_⊕(ι, M) ⊕ v) ⊖ v = fold_⊕(ι, M)",
        (("M", "bag"), ("v", "value")), _inverse_reachable, _ref_inverse_reachable),
    Law("def7-global", "SKIP-DEF-7-GLOBAL", "global inverse law (earlier draft)",
        "∀a∈A, v∈V. (a ⊕ v) ⊖ v = a",
        (("a", "acc"), ("v", "value")), _inverse_global, _ref_inverse_global),
    Law("def7-skipdoc", "SKIP-DEF-7-SKIPDOC", "Skip runtime's documented reducer contract",
        "∀accum∈A, v∈V. accum = add(remove(accum, v), v) = remove(add(accum, v), v), "
        "unless remove returns null (each equation excused by its own remove's null)",
        (("a", "acc"), ("v", "value")), _skip_contract, _ref_skip_contract),
    Law("def11", "SKIP-DEF-11", "incremental correctness (update = recompute)",
        "∀C, valid Δ, k. reduce_R(C • Δ)(k) = update_R(reduce_R(C)(k), Δ, k)",
        (("M0", "bag"), ("D", "bag"), ("P", "bag")), _incremental, _ref_incremental),
    Law("pure", "SKIP-DEF-6", "add/remove leave their arguments unchanged (functions A × V → A)",
        "∀accum∈A, v∈V. add(accum, v) and remove(accum, v) do not change accum or v "
        "(an in-place update makes both sides of every law the same object)",
        (("a", "acc"), ("v", "value")), _pure, None, tolerant=False),
)

LAW_BY_KEY: dict[str, Law] = {law.key: law for law in LAWS}

#: per law, the values of an instance that its own ⊖ calls remove from the accumulator ``a``
#: itself (``pure`` calls remove(a, v) too: it counts when that call is the one shown)
REMOVED_FROM_A = {"def2-remove": ("v1", "v2"), "def7-skipdoc": ("v",), "pure": ("v",)}


# --- equality of sides ------------------------------------------------------------------


@dataclass(frozen=True)
class Equality:
    """Exact equality (the spec's ``=``), or the weaker closeness of the tolerance mode."""

    rel_tol: float = 0.0
    abs_tol: float = 0.0

    @property
    def exact(self) -> bool:
        return self.rel_tol == 0.0 and self.abs_tol == 0.0

    def describe(self) -> str:
        if self.exact:
            return "exact equality (==)"
        return (f"TOLERANCE MODE (weaker than the spec's =): floats compared with "
                f"math.isclose(rel_tol={self.rel_tol}, abs_tol={self.abs_tol})")

    def equal(self, x: Any, y: Any) -> bool:
        if self.exact:
            return bool(x == y)
        if isinstance(x, float) or isinstance(y, float):
            if isinstance(x, (int, float)) and isinstance(y, (int, float)):
                return math.isclose(x, y, rel_tol=self.rel_tol, abs_tol=self.abs_tol)
        if isinstance(x, tuple) and isinstance(y, tuple) and len(x) == len(y):
            return all(self.equal(p, q) for p, q in zip(x, y, strict=True))
        return bool(x == y)

    def holds(self, outcome: Outcome) -> bool:
        if outcome == DECLINED:
            return True
        assert isinstance(outcome, Sides)
        first = outcome.values[0][1]
        return all(self.equal(first, other) for _, other in outcome.values[1:])


def holds_at(law: Law, R: Reducer[Any, Any], args: Mapping[str, Any], equality: Equality) -> bool:
    """Whether ``law`` holds at ``args``: by the reference's check in exact mode, by
    comparing the sides up to the tolerance in the (weaker) tolerance mode."""
    if equality.exact and law.reference_holds is not None:
        return law.reference_holds(R, args)
    return (equality if law.tolerant else Equality()).holds(law.evaluate(R, args))
