"""Would a runtime ever meet this instance? Reachability and validity notes.

A runtime applies ⊕ and ⊖ only to accumulators it built from ι with ⊕
(fold_⊕(ι, M), SKIP-DEF-5), and removes only values the collection holds
(Δ⁻(k) ⊆ C(k), SKIP-DEF-8). A law instance outside that (an unreachable
accumulator, or removing values the accumulator does not hold) can fail (or
raise) without any runtime going wrong; the report says so on every line whose
instance is such, and a raise there is better turned into a decline (``None``).

Reachability is decided when the value domain is finite and the closure of ι
under ⊕ is small (:func:`check_reducer.exhaustive.reachable`). Otherwise an
accumulator counts as reachable when a fold is shown to build it: one of the
closure over the value sample, one the search itself already folded (a
SKIP-DEF-7 or SKIP-DEF-11 counterexample's collection, :meth:`Reach.learn`), or
one over the values the instance mentions (its ``v``, the elements or keys of
``a``, ``a`` itself when it is a value). When none is found the note says what
was searched, and never that a runtime cannot meet the instance.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any

from check_reducer.exhaustive import Closure, reachable
from check_reducer.laws import REMOVED_FROM_A, Law, bag
from check_reducer.purity import freeze
from check_reducer.search import Problem, call_limited
from reference.reduce import fold

#: how many values an instance may add to the value sample for the folds that look for it
MAX_EXTRA_VALUES = 8

#: how many values of the sample the folds that look for an accumulator take (simplest first)
MAX_SAMPLE_VALUES = 12


@dataclass(frozen=True)
class Standing:
    """Where an instance stands: ``reachable`` / ``valid`` are True, False or None (not
    determined); ``text`` says it for people."""

    reachable: bool | None
    valid: bool | None
    text: str
    #: a collection C(k) = M that folds to a (and holds the values removed, when valid)
    M: tuple[Any, ...] | None = None

    @property
    def met(self) -> bool | None:
        """Whether a runtime meets the instance: True (shown), False (decided not), or None."""
        if self.reachable is False or self.valid is False:
            return False
        return True if self.reachable and self.valid else None


class _OutOfTime(Exception):
    pass


def _show_bag(values: Iterable[Any]) -> str:
    return "{|" + ", ".join(repr(v) for v in values) + "|}"


def _parts(x: Any) -> list[Any]:
    """The values an accumulator is made of: its elements, keys and values, fields."""
    if isinstance(x, dict):
        return [*x.keys(), *x.values()]
    if isinstance(x, (list, tuple, set, frozenset)):
        return list(x)
    if is_dataclass(x) and not isinstance(x, type):
        return [getattr(x, f.name) for f in fields(x)]
    return []


@dataclass
class Reach:
    """Reachability for one problem: the closure of ι under ⊕ (computed once), the folds the
    search already made (``learn``), and folds over the values an instance mentions."""

    problem: Problem
    known: dict[Any, tuple[Any, tuple[Any, ...]]] = field(default_factory=dict)
    _closure: tuple[Closure | None, bool] | None = None

    def closure(self) -> tuple[Closure | None, bool]:
        """The closure of ι under ⊕ over V (decided: True) or, failing that, the accumulators
        reachable with <= bag values of the sample (False)."""
        if self._closure is None:
            problem = self.problem
            full = reachable(problem, problem.values.sample()) if problem.values.is_finite else None
            self._closure = ((full, True) if full is not None else
                             (reachable(problem, problem.values.sample(), problem.bounds.bag), False))
        return self._closure

    def learn(self, M: Sequence[Any]) -> None:
        """Remember fold_⊕(ι, M): a fold the search made (a counterexample's collection)."""
        try:
            add = call_limited(self.problem, self.problem.R.add)
            a = fold(add, self.problem.R.initial, bag(M))
        except Exception:  # add raised or hung: its own line reports it
            return
        self.known.setdefault(freeze(a), (a, tuple(M)))

    def sample(self) -> tuple[Any, ...]:
        """The values of the sample the folds that look for an accumulator take."""
        return self.problem.values.sample()[:MAX_SAMPLE_VALUES]

    def sample_text(self) -> str:
        taken, whole = len(self.sample()), len(self.problem.values.sample())
        return "the value sample" if taken == whole else f"the first {taken} values of the sample"

    def extra_values(self, args: Mapping[str, Any]) -> tuple[Any, ...]:
        """Values of V the instance mentions beyond the sample: its values, the multisets'
        elements, ``a`` itself and what ``a`` is made of (keys, elements, fields)."""
        V = self.problem.values
        sample = {freeze(v) for v in self.sample()}
        candidates: list[Any] = []
        for name, x in args.items():
            if name == "a":
                candidates += [x, *_parts(x)]
            elif isinstance(x, tuple) and name in ("M", "M0", "D", "P"):
                candidates += list(x)
            else:
                candidates.append(x)
        extra: dict[Any, Any] = {}
        for x in candidates:
            try:
                hash(x)
            except TypeError:  # a multiset's elements are hashable
                continue
            if V.contains(x) is True and freeze(x) not in sample:
                extra.setdefault(freeze(x), x)
        return tuple(extra.values())[:MAX_EXTRA_VALUES]

    def holding(self, a: Any, removed: Sequence[Any],
                extra: Sequence[Any]) -> tuple[Any, ...] | None:
        """A multiset M ⊇ ``removed`` with fold_⊕(ι, M) = a, with at most ``bag`` more
        values from the sample and ``extra``; None when there is none within that bound.
        Each call of add is under the per-call time limit."""
        problem = self.problem
        target = freeze(a)
        known = self.known.get(target)  # a fold the search already made
        if known is not None and bag(removed).issubset(bag(known[1])):
            return known[1]
        add = call_limited(problem, problem.R.add)
        pool = (*self.sample(), *extra)
        for size in range(problem.bounds.bag + 1):
            for rest in itertools.combinations_with_replacement(pool, size):
                if problem.out_of_time():
                    raise _OutOfTime
                M = (*removed, *rest)
                if freeze(fold(add, problem.R.initial, bag(M))) == target:
                    return M
        return None

    def standing(self, law: Law, args: Mapping[str, Any], removing: bool = True,
                 built_from: Sequence[Any] | None = None) -> Standing:
        """Where the instance ``args`` of ``law`` stands; ``removing``: the call shown removes
        from ``a`` (for ``pure``, whose add calls remove nothing); ``built_from``: a multiset
        M with a = fold_⊕(ι, M), when the engine built the instance so."""
        if "a" not in args:
            return Standing(True, True, "This instance is one a runtime meets (a reachable "
                            "accumulator, a valid delta: the law builds them so).")
        a = args["a"]
        undetermined = Standing(None, None, f"a = {a!r}: whether it is reachable was not "
                                "determined (add raised or hung while folding, or the time "
                                "was up).")
        try:
            return self._standing(law, args, removing, built_from)
        except Exception:  # add raised or hung while folding (its own line reports it), or time
            return undetermined

    def _standing(self, law: Law, args: Mapping[str, Any], removing: bool,
                  built_from: Sequence[Any] | None) -> Standing:
        problem, a = self.problem, args["a"]
        removed = [args[name] for name in REMOVED_FROM_A.get(law.key, ())
                   if removing or law.key != "pure"]
        extra = self.extra_values(args)
        closure, decided = self.closure()
        path = tuple(built_from) if built_from is not None else None
        if path is None and closure is not None:
            path = closure.path_to(a)
        if path is None and not decided:
            path = self.holding(a, (), extra)
        if path is None:
            if decided and closure is not None:
                return Standing(False, None,
                                f"a = {a!r} is NOT reachable: the closure of ι under ⊕ over the "
                                f"finite V ({len(closure)} accumulators) does not hold it; a "
                                "runtime builds every accumulator from ι with ⊕, so it never "
                                "meets this instance.")
            pool = f"{self.sample_text()} and {_show_bag(extra)}" if extra else self.sample_text()
            return Standing(None, None,
                            f"a = {a!r} was not reached by any fold of <= {problem.bounds.bag} "
                            f"values of {pool}, nor by a fold the search made (reachability in "
                            "general is not decided): a runtime builds every accumulator from ι "
                            "with ⊕, so it meets this instance only if a larger fold builds a.")
        reached = (f"a = {a!r} is reachable (fold_⊕(ι, {_show_bag(path)}))" if path else
                   f"a = {a!r} is initial (reachable: the empty collection)")
        if not removed:
            return Standing(True, True, reached + ".", path)
        values = _show_bag(removed)
        holding = path if bag(removed).issubset(bag(path)) else self.holding(a, removed, extra)
        if holding is None:
            return Standing(True, None,
                            f"{reached}, but removing {values} from it is not a valid delta "
                            f"within the search: no C(k) ⊇ {values} with <= "
                            f"{problem.bounds.bag} more values of {self.sample_text()} or the "
                            "instance folds to a "
                            "(a valid delta removes only values the collection holds, "
                            "SKIP-DEF-8).", path)
        return Standing(True, True, f"{reached}, and a runtime meets this instance: "
                        f"C(k) = {_show_bag(holding)}, Δ⁻(k) ⊇ {values}.", tuple(holding))


def standing(problem: Problem, law: Law, args: Mapping[str, Any],
             removing: bool = True) -> Standing:
    """Where the instance ``args`` of ``law`` stands (a fresh :class:`Reach`)."""
    return Reach(problem).standing(law, args, removing)
