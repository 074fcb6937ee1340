"""Would a runtime ever meet this instance? Reachability and validity notes.

A runtime applies ⊕ and ⊖ only to accumulators it built from ι with ⊕
(fold_⊕(ι, M), SKIP-DEF-5), and removes only values the collection holds
(Δ⁻(k) ⊆ C(k), SKIP-DEF-8). A law instance outside that (an unreachable
accumulator, or removing values the accumulator does not hold) can fail (or
raise) without any runtime going wrong; the report says so on every line whose
instance is such, and a raise there is better turned into a decline (``None``).

Reachability is decided when the value domain is finite and the closure of ι
under ⊕ is small (:func:`check_reducer.exhaustive.reachable`); otherwise the
note says what was searched (multisets up to a size over the value sample).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from check_reducer.exhaustive import Closure, reachable
from check_reducer.laws import Law, bag
from check_reducer.purity import freeze
from check_reducer.search import Problem, call_limited
from reference.reduce import fold

#: per law, the values of an instance that its own ⊖ calls remove from the accumulator ``a``
#: itself (``pure`` calls remove(a, v) too: it counts when that call is the one shown)
REMOVED_FROM_A = {"def2-remove": ("v1", "v2"), "def7-skipdoc": ("v",), "pure": ("v",)}


@dataclass(frozen=True)
class Standing:
    """Where an instance stands: ``reachable`` / ``valid`` are True, False or None (not
    determined); ``text`` says it for people."""

    reachable: bool | None
    valid: bool | None
    text: str

    @property
    def met(self) -> bool | None:
        """Whether a runtime meets the instance: True (shown), False (decided not), or None."""
        if self.reachable is False or self.valid is False:
            return False
        return True if self.reachable and self.valid else None


def _closure(problem: Problem) -> tuple[Closure | None, bool]:
    """The closure of ι under ⊕ over V (decided: True) or, failing that, the accumulators
    reachable with <= bag values of the sample (False)."""
    if problem.values.is_finite:
        full = reachable(problem, problem.values.sample())
        if full is not None:
            return full, True
    return reachable(problem, problem.values.sample(), problem.bounds.bag), False


class _OutOfTime(Exception):
    pass


def _holding(problem: Problem, a: Any, removed: Sequence[Any]) -> tuple[Any, ...] | None:
    """A multiset M ⊇ ``removed`` with fold_⊕(ι, M) = a, over the value sample and with at
    most ``bag`` values besides ``removed``; None when there is none within that bound.
    Each call of add is under the per-call time limit."""
    target = freeze(a)
    add = call_limited(problem, problem.R.add)
    for size in range(problem.bounds.bag + 1):
        for rest in itertools.combinations_with_replacement(problem.values.sample(), size):
            if problem.out_of_time():
                raise _OutOfTime
            M = (*removed, *rest)
            if freeze(fold(add, problem.R.initial, bag(M))) == target:
                return M
    return None


def standing(problem: Problem, law: Law, args: Mapping[str, Any],
             removing: bool = True) -> Standing:
    """Where the instance ``args`` of ``law`` stands; ``removing``: the call shown removes
    from ``a`` (for ``pure``, whose add calls remove nothing)."""
    if "a" not in args:
        return Standing(True, True, "This instance is one a runtime meets (a reachable "
                        "accumulator, a valid delta: the law builds them so).")
    a = args["a"]
    undetermined = Standing(None, None, f"a = {a!r}: whether it is reachable was not determined "
                            "(add raised or hung while folding, or the time was up).")
    try:
        # each call of add is under the per-call time limit (reachable, _holding)
        closure, decided = _closure(problem)
        if closure is None:
            return undetermined
        path = closure.path_to(a)
        if path is None:
            where = ("is NOT reachable: the closure of ι under ⊕ over the finite V "
                     f"({len(closure)} accumulators) does not hold it" if decided else
                     f"is not among the {len(closure)} accumulators reachable with <= "
                     f"{problem.bounds.bag} values of the value sample (reachability in "
                     "general is not decided)")
            return Standing(False if decided else None, None,
                            f"a = {a!r} {where}; a runtime builds every accumulator from ι "
                            "with ⊕, so it never meets this instance.")
        shown = "{|" + ", ".join(repr(v) for v in path) + "|}"
        reached = (f"a = {a!r} is reachable (fold_⊕(ι, {shown}))" if path else
                   f"a = {a!r} is initial (reachable: the empty collection)")
        removed = [args[name] for name in REMOVED_FROM_A.get(law.key, ())
                   if removing or law.key != "pure"]
        if not removed:
            return Standing(True, True, reached + ".")
        holding = _holding(problem, a, removed)
        values = "{|" + ", ".join(repr(v) for v in removed) + "|}"
        if holding is None:
            return Standing(True, None,
                            f"{reached}, but removing {values} from it is not a valid delta "
                            f"within the search: no C(k) ⊇ {values} with <= "
                            f"{problem.bounds.bag} more values of the sample folds to a "
                            "(a valid delta removes only values the collection holds, "
                            "SKIP-DEF-8).")
        shown_M = "{|" + ", ".join(repr(v) for v in holding) + "|}"
        return Standing(True, True, f"{reached}, and a runtime meets this instance: "
                        f"C(k) = {shown_M}, Δ⁻(k) ⊇ {values}.")
    except Exception:  # add raised or hung while folding (its own line reports it), or time
        return undetermined
