"""Oracle for the ``reduce`` area: expected observations from :mod:`reference.reduce`.

Operations: ``declare`` (a named reducer of :mod:`conformance.reducers`), ``load``
(the initial collection) and ``apply`` (a delta Δ = (Δ⁺, Δ⁻)). Observations:
``view`` (SKIP-DEF-5 restricted to keys with a non-empty multiset, SKIP-DEC-VIEW)
and ``changes`` (keys whose view entry changed: the new accumulator, or null
when the key left the view).

Two semantics are computed:

- :func:`denotational`: after every operation the view is ``reduce_R(C)``
  recomputed from scratch (SKIP-DEF-5); this is what every case expects of a
  well-formed or declining reducer (SKIP-THM-2, 1=>2).
- :func:`operational`: Skip's incremental update ``update_R`` (SKIP-DEF-10),
  removals first, a declining ``remove`` recomputing the key. For an
  ill-formed reducer it differs from the recompute (SKIP-THM-2, 2=>1), and a
  case accepts it as an alternative (an engine that trusts its reducer).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from conformance import reducers, wire
from conformance.cases_model import thaw
from reference.algebra.multiset import Multiset
from reference.reduce import (
    Collection,
    Declined,
    Delta,
    InvalidDelta,
    Reducer,
    apply_delta,
    fold,
    reduce,
    update,
    values_at,
)
from reference.skip.view import view_changes

Observation = dict[str, Any]
View = dict[Any, Any]


def collection_of(raw: Any) -> dict[Any, Multiset]:
    """A wire collection ``[[key, [values...]], ...]`` as C : K -> M(V) (non-empty keys only)."""
    return {k: Multiset.from_iterable(vs) for k, vs in wire.keyed_values(raw).items() if vs}


def delta_of(args: Mapping[str, Any]) -> Delta:
    """A wire delta (``plus``, ``minus``) as SKIP-DEF-8's pair (Δ⁺, Δ⁻)."""
    return Delta(plus=collection_of(args.get("plus", ())), minus=collection_of(args.get("minus", ())))


def observation(old: View, new: View) -> Observation:
    return {"view": wire.pairs(new), "changes": wire.pairs(view_changes(old, new))}


def _error(error_class: str) -> Observation:
    return {"error": error_class}


# One semantics = how the accumulators are maintained across a valid delta. The view
# is the accumulators of the keys with a non-empty multiset (SKIP-DEC-VIEW).
Maintain = Callable[[Reducer[Any, Any], Collection, View, Delta, Collection], View]


def _recompute(R: Reducer[Any, Any], C: Collection, acc: View, delta: Delta, C2: Collection) -> View:
    return reduce(R, C2)


def update_with_decline(R: Reducer[Any, Any], a_k: Any, delta: Delta, k: Any, C2: Collection) -> Any:
    """SKIP-DEF-10 for key k; a declining ``remove`` recomputes k from ι over C'(k) (SKIP-DEC-PARTIAL)."""
    try:
        return update(R, a_k, delta, k)
    except Declined:
        return fold(R.add, R.initial, values_at(C2, k))


def _incremental(keep_emptied: bool) -> Maintain:
    """SKIP-DEF-10 on every key of the delta. A key whose multiset became empty either
    drops its accumulator (it restarts from ι when values return) or, with
    ``keep_emptied``, keeps it out of sight (it resumes from that accumulator): the two
    readings of SKIP-DEC-EMPTIED-KEY, which agree for well-formed reducers."""

    def maintain(R: Reducer[Any, Any], C: Collection, acc: View, delta: Delta, C2: Collection) -> View:
        new = dict(acc)
        for k in delta.keys():
            if k in C2 or keep_emptied:
                new[k] = update_with_decline(R, acc.get(k, R.initial), delta, k, C2)
            else:
                new.pop(k, None)
        return new

    return maintain


def _trace(steps: Sequence[Mapping[str, Any]], maintain: Maintain) -> list[Observation]:
    R: Reducer[Any, Any] | None = None
    C: Collection = {}
    acc: View = {}  # the accumulators (a superset of the view's keys when emptied keys are kept)
    view: View = {}
    out: list[Observation] = []
    for step in steps:
        op = step["op"]
        if op == "declare":
            try:
                R = reducers.build(step["reducer"], thaw(step.get("params", {})))
            except (KeyError, ValueError, TypeError):
                out.append(_error("malformed-input"))
                continue
            out.append({})
        elif R is None:
            out.append(_error("malformed-input"))
        elif op == "load":
            C = collection_of(step["collection"])
            acc = reduce(R, C)
            out.append(observation(view, acc))
            view = acc
        elif op == "apply":
            delta = delta_of(step)
            try:
                C2 = apply_delta(C, delta)
            except InvalidDelta:
                out.append(_error("invalid-delta"))
                continue
            acc = maintain(R, C, acc, delta, C2)
            new = {k: a for k, a in acc.items() if k in C2}
            out.append(observation(view, new))
            C, view = C2, new
        else:
            out.append(_error("malformed-input"))
    return out


def denotational(steps: Sequence[Mapping[str, Any]]) -> list[Observation]:
    """Expected observations: the view recomputed by SKIP-DEF-5 after each operation."""
    return _trace(steps, _recompute)


def operational(steps: Sequence[Mapping[str, Any]], keep_emptied: bool = False) -> list[Observation]:
    """Observations of Skip's incremental update (SKIP-DEF-10, removals first); an
    emptied key restarts from ι, or with ``keep_emptied`` resumes from its accumulator."""
    return _trace(steps, _incremental(keep_emptied))


def expectations(steps: Sequence[Mapping[str, Any]]) -> tuple[list[Observation], list[list[Observation]]]:
    """The expected observations of a trace and its acceptable alternatives.

    For a reducer whose incremental maintenance equals the recompute (well-formed,
    possibly declining) there is one answer, :func:`denotational`. For an ill-formed
    reducer an engine may also follow Definition 10 (:func:`operational`, either reading
    of an emptied key, SKIP-DEC-EMPTIED-KEY) or refuse the reducer when it is declared
    (``ill-formed-reducer``).
    """
    expected = denotational(steps)
    declared = steps[0].get("reducer") if steps and steps[0].get("op") == "declare" else None
    spec = reducers.REDUCERS.get(declared) if isinstance(declared, str) else None
    if spec is None or spec.well_formed:
        return expected, []
    alternatives: list[list[Observation]] = []
    for keep in (False, True):
        answer = operational(steps, keep_emptied=keep)
        if answer != expected and answer not in alternatives:
            alternatives.append(answer)
    return expected, [*alternatives, [_error("ill-formed-reducer")]]


def delta_size(step: Mapping[str, Any]) -> int:
    """|Δ⁻| + |Δ⁺|, counting multiplicity: the reducer calls SKIP-THM-3 allows for a total reducer."""
    d = delta_of(step)
    return sum(len(m) for m in d.plus.values()) + sum(len(m) for m in d.minus.values())


def cost_bounds(step: Mapping[str, Any]) -> dict[str, Any]:
    """Work bounds of one step of a total, well-formed reducer (cost conformance)."""
    if step["op"] == "load":
        size = sum(len(vs) for vs in wire.keyed_values(step["collection"]).values())
        return {"reducer_calls": {"at_most": size}}
    if step["op"] == "apply":
        keys = len(delta_of(step).keys())
        return {"reducer_calls": {"at_most": delta_size(step)}, "keys_touched": {"at_most": keys}}
    return {}
