"""Oracle for the ``fixpoint`` area: the live set recomputed from scratch by
:func:`reference.fixpoint.general_pattern.live_set` (lfp of F_G, FIX-DEF-1).

Operations: ``make`` (roots and edges; the first operation, and only that one) and ``apply`` (a batch of root and edge
additions and removals, FIX-DEC-BATCH: removals first, then additions;
removing an absent root or edge and adding a present one are no-ops).
Observations: ``current`` = lfp(F'), ``added`` = lfp(F') \\ lfp(F),
``removed`` = lfp(F) \\ lfp(F').

Cost bounds come from the reference's own incremental algorithm
(:class:`reference.fixpoint.managed.ManagedFixpoint`, FIX-CLAIM-COMPLEXITY):
an engine may visit at most twice the elements and scan at most twice the
step pairs the reference does, plus a constant of 4 -- proportional to the
affected part, not to the graph.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from conformance import wire
from conformance.wire import typed
from reference.fixpoint.general_pattern import live_set
from reference.fixpoint.managed import Change, ManagedFixpoint

Observation = dict[str, Any]
COST_FACTOR, COST_SLACK = 2, 4


def _edges(raw: Any) -> list[tuple[Any, Any]]:
    return [(typed(u), typed(v)) for u, v in raw]


def _items(raw: Any) -> list[Any]:
    return [typed(x) for x in raw]


def next_graph(roots: frozenset[Any], edges: frozenset[tuple[Any, Any]],
               step: Mapping[str, Any]) -> tuple[frozenset[Any], frozenset[tuple[Any, Any]]]:
    """The configuration after one operation (FIX-DEC-BATCH for ``apply``)."""
    if step["op"] == "make":
        return frozenset(_items(step.get("roots", ()))), frozenset(_edges(step.get("edges", ())))
    roots = (roots - set(_items(step.get("remove_roots", ())))) | set(_items(step.get("add_roots", ())))
    edges = (edges - set(_edges(step.get("remove_edges", ())))) | set(_edges(step.get("add_edges", ())))
    return roots, edges


def observe(old: frozenset[Any], new: frozenset[Any]) -> Observation:
    return {"current": wire.sort_values(new), "added": wire.sort_values(new - old),
            "removed": wire.sort_values(old - new)}


def denotational(steps: Sequence[Mapping[str, Any]]) -> list[Observation]:
    """Expected observations: lfp recomputed after every operation."""
    roots: frozenset[Any] = frozenset()
    edges: frozenset[tuple[Any, Any]] = frozenset()
    current: frozenset[Any] = frozenset()
    out = []
    for i, step in enumerate(steps):
        if (step["op"] == "make") != (i == 0):
            raise ValueError("a fixpoint case makes its graph once, in its first operation")
        roots, edges = next_graph(roots, edges, step)
        new = live_set(roots, edges)
        out.append(observe(current, new))
        current = new
    return out


def _change(step: Mapping[str, Any]) -> Change:
    return Change(add_roots=tuple(_items(step.get("add_roots", ()))),
                  remove_roots=tuple(_items(step.get("remove_roots", ()))),
                  add_edges=tuple(_edges(step.get("add_edges", ()))),
                  remove_edges=tuple(_edges(step.get("remove_edges", ()))))


def cost_bounds(steps: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per step, bounds on ``elements_visited`` and ``edges_scanned`` (see the module docstring)."""
    fp: ManagedFixpoint | None = None
    out = []
    for step in steps:
        if step["op"] == "make" or fp is None:
            fp, update = ManagedFixpoint.make(_items(step.get("roots", ())), _edges(step.get("edges", ())))
        else:
            fp, update = fp.apply(_change(step))
        work = update.work.as_mapping()
        out.append({name: {"at_most": COST_FACTOR * work[name] + COST_SLACK}
                    for name in ("elements_visited", "edges_scanned")})
    return out
