"""Judge an implementation's observations against a case's expectations.

Only the semantic fields of an observation are compared (per area); work
counters are judged separately against the case's cost bounds (the cost
column), and fixpoint ranks, when reported, must be well founded for the
current graph (FIX-DEC-RANK-INVARIANT (I1)-(I3): ranks exactly on the live set, 0 for
roots, and every other live element has a live deriver of strictly lower rank).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from conformance import wire
from conformance.cases_model import Case, FrozenObject, canonical_json, thaw
from reference.streams.named import PROCESSORS

SEMANTIC_FIELDS = {
    "reduce": ("view", "changes"),
    "fixpoint": ("current", "added", "removed"),
    "zset": ("output",),
    "stream": ("output",),
}


#: Fields compared only when the expectation states them and the implementation reports them
#: (exact fixpoint ranks: an implementation that exposes ranks must get the paper's numbers).
OPTIONAL_FIELDS = {"fixpoint": ("ranks",)}


def _text(value: Any) -> str:
    """One spelling per JSON value (``*-DEC-JSON-VALUES``): ``1.0`` is written ``1``, ``true``
    stays ``true``, object keys sorted."""
    return canonical_json(thaw(wire.typed(value)))


def _bag(values: Any) -> Counter[str]:
    """A bag of JSON values, each by its canonical text."""
    return Counter(_text(v) for v in values)


def stream_output(monoid: str, value: Any) -> Any:
    """A stream output as compared (STREAM-DEC-OUTPUT-ORDER): a free monoid's output in
    order; a bag or set in any order (a set's elements each once); a sequence of sets
    in order of its strata, each set in any order."""
    if monoid in ("bag", "set") and isinstance(value, (list, tuple)):
        return _bag(value)
    if monoid == "sequence-of-sets" and isinstance(value, (list, tuple)) and all(
            isinstance(s, (list, tuple)) for s in value):
        return tuple(_bag(s) for s in value)
    return _text(value)


def _output_monoid(setup: Mapping[str, Any]) -> str:
    processor = setup.get("processor")
    if isinstance(processor, str) and processor in PROCESSORS:
        return PROCESSORS[processor].output_monoid
    return "sequence"


def _norm_field(area: str, name: str, value: Any, setup: Mapping[str, Any]) -> Any:
    if area == "reduce" or name == "ranks":
        return wire.unpairs(value)
    if area == "fixpoint":
        return wire.elements(value)
    if area == "zset":
        return wire.weighted(value)
    return stream_output(_output_monoid(setup), value)


def semantic(area: str, observation: Mapping[str, Any],
             optional: Sequence[str] = (), setup: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The comparable content of one observation (an error class, or the area's fields);
    ``setup`` is the case's (a stream output compares by its processor's output monoid)."""
    if "error" in observation:
        return {"error": observation["error"]}
    fields = (*SEMANTIC_FIELDS[area], *optional)
    return {f: _norm_field(area, f, observation[f], setup or {}) for f in fields if f in observation}


@dataclass(frozen=True)
class Difference:
    """Where an observation sequence first departs from one expected sequence."""

    step: int
    expected: Mapping[str, Any] | None  # None: nothing expected at ``step`` (the sequence ended in an error)
    observed: Mapping[str, Any] | None  # None: no observation at ``step``
    size: int = 1  # how many entries differ at ``step`` (to find the closest answer)

    def text(self) -> str:
        if self.observed is None:
            return f"step {self.step}: no observation (expected {_show(self.expected or {})})"
        return f"step {self.step}: expected {_show(self.expected or {})}, got {_show(self.observed)}"


def first_difference(area: str, expected: Sequence[Mapping[str, Any]],
                     observed: Sequence[Mapping[str, Any]], setup: Mapping[str, Any]) -> Difference | None:
    """``None`` when ``observed`` meets ``expected``; otherwise its first difference.

    An expected sequence shorter than the steps ends in an error after which the
    implementation may stop (observations after it are ignored).
    """
    for i, exp in enumerate(expected):
        if i >= len(observed):
            return Difference(i, exp, None)
        optional = [f for f in OPTIONAL_FIELDS.get(area, ()) if f in exp and f in observed[i]]
        want, got = semantic(area, exp, optional, setup), semantic(area, observed[i], optional, setup)
        if want != got:
            return Difference(i, exp, observed[i], _size(want, got))
    return None


def _size(want: Mapping[str, Any], got: Mapping[str, Any]) -> int:
    """How many entries of two comparable observations differ (a field counts as one entry
    unless it is a mapping or a set, whose entries count one each)."""
    size = 0
    for name in set(want) | set(got):
        a, b = want.get(name), got.get(name)
        if isinstance(a, Mapping) and isinstance(b, Mapping):
            size += sum(a.get(k, b) != b.get(k, a) for k in set(a) | set(b))
        elif isinstance(a, frozenset) and isinstance(b, frozenset):
            size += len(a ^ b)
        else:
            size += a != b
    return size


def _show(observation: Mapping[str, Any]) -> str:
    body = {k: v for k, v in thaw(observation).items() if k not in ("work", "ranks")}
    return canonical_json(body)


@dataclass(frozen=True)
class SemanticVerdict:
    """Why observations fail a case: the difference from the closest accepted answer
    (the one they follow longest, then the one differing in fewest entries at the step
    where they part; the main expectation on a tie), or another reason."""

    message: str
    difference: Difference | None = None
    answer: int = 0  # 0: the main expectation; n: the case's n-th alternative
    answers: int = 1


def closest_difference(case: Case, observed: Sequence[Mapping[str, Any]]) -> SemanticVerdict | None:
    """``None`` if the observations meet the main expectations or one alternative."""
    if len(observed) > len(case.steps):
        return SemanticVerdict(f"{len(observed)} observations for {len(case.steps)} steps")
    closest: tuple[int, Difference] | None = None
    answers = case.expectation_sequences()
    for n, expected in enumerate(answers):
        if len(expected) < len(case.steps) and not (expected and "error" in expected[-1]):
            continue  # a malformed alternative never matches (the schema lint reports it)
        difference = first_difference(case.area, expected, observed, thaw(case.setup))
        if difference is None:
            violation = invariant_violation(case, observed)
            return SemanticVerdict(violation) if violation else None
        if closest is None or (difference.step, -difference.size) > (closest[1].step, -closest[1].size):
            closest = (n, difference)
    if closest is None:
        return SemanticVerdict("no well-formed expectation")
    n, difference = closest
    which = f" (closest accepted answer: alternative {n} of {len(answers) - 1})" if n else ""
    return SemanticVerdict(difference.text() + which, difference, n, len(answers))


def judge_semantics(case: Case, observed: Sequence[Mapping[str, Any]]) -> str | None:
    """``None`` if the observations meet the main expectations or one alternative; else
    the first difference from the closest of them."""
    verdict = closest_difference(case, observed)
    return verdict.message if verdict else None


# --- invariants --------------------------------------------------------------


def _typed_set(raw: Any) -> set[Any]:
    return {wire.typed(x) for x in raw}


def _fixpoint_ranks(case: Case, observed: Sequence[Mapping[str, Any]]) -> str | None:
    roots: set[Any] = set()
    edges: set[tuple[Any, Any]] = set()
    for i, (step, obs) in enumerate(zip(case.steps, observed, strict=False)):
        if "error" in obs:
            continue
        args = step.args
        if step.op == "make":
            roots, edges = _typed_set(args.get("roots", ())), _typed_set(args.get("edges", ()))
        else:
            roots -= _typed_set(args.get("remove_roots", ()))
            edges -= _typed_set(args.get("remove_edges", ()))
            roots |= _typed_set(args.get("add_roots", ()))
            edges |= _typed_set(args.get("add_edges", ()))
        if "ranks" not in obs:
            continue
        ranks = wire.unpairs(obs["ranks"])
        current = wire.elements(obs.get("current", ()))
        dead = [x for x in ranks if x not in current]
        if dead:  # (I1) rank is defined exactly on current
            return f"step {i}: {thaw(dead[0])!r} has a rank but is not live"
        for x in current:
            if x not in ranks:
                return f"step {i}: live element {thaw(x)!r} has no rank"
            if x in roots:  # (I2) roots have rank 0
                if ranks[x] != 0:
                    return f"step {i}: root {thaw(x)!r} has rank {ranks[x]}, not 0"
                continue
            if not any(u in current and u in ranks and ranks[u] < ranks[x] for u, v in edges if v == x):
                return (f"step {i}: rank of {thaw(x)!r} ({ranks[x]}) is not well founded: "
                        "no live predecessor of strictly lower rank")
    return None


INVARIANTS: dict[str, Callable[[Case, Sequence[Mapping[str, Any]]], str | None]] = {
    "fixpoint": _fixpoint_ranks,
}


def invariant_violation(case: Case, observed: Sequence[Mapping[str, Any]]) -> str | None:
    check = INVARIANTS.get(case.area)
    return check(case, observed) if check else None


# --- cost ----------------------------------------------------------------------


@dataclass(frozen=True)
class CostVerdict:
    status: str  # "ok" | "fail" | "n/a" (no counters reported) | "" (the case has no cost checks)
    message: str = ""


def cost_checks(case: Case, observed: Sequence[Mapping[str, Any]]) -> Iterator[tuple[int, str, float, float]]:
    """Every cost check a result reports a counter for: (step, counter, measured, bound)."""
    for i, (step, obs) in enumerate(zip(case.steps, observed, strict=False)):
        work = obs.get("work") if isinstance(obs, Mapping) else None
        if not step.cost or not isinstance(work, Mapping):
            continue
        for counter, bound in step.cost.items():
            if counter in work:
                yield i, counter, work[counter], bound["at_most"] if isinstance(bound, FrozenObject | dict) else bound


def judge_cost(case: Case, observed: Sequence[Mapping[str, Any]]) -> CostVerdict:
    if not case.has_cost_checks():
        return CostVerdict("")
    reported = False
    for i, counter, measured, limit in cost_checks(case, observed):
        reported = True
        if measured > limit:
            return CostVerdict("fail", f"step {i}: {counter} = {measured} > {limit}")
    return CostVerdict("ok" if reported else "n/a")


def overruns(case: Case, observed: Sequence[Mapping[str, Any]]) -> dict[str, tuple[float, float]]:
    """Per counter above its bound, the (measured, bound) of its largest overrun factor over the steps
    (a bound of 0 exceeded is the largest)."""
    worst: dict[str, tuple[float, float]] = {}
    for _, counter, measured, limit in cost_checks(case, observed):
        if measured > limit and (counter not in worst or exceeds(measured, limit, *worst[counter])):
            worst[counter] = (measured, limit)
    return worst


def exceeds(measured: float, limit: float, other_measured: float, other_limit: float) -> bool:
    """Whether measured/limit is above other_measured/other_limit (both overruns; a bound may be 0)."""
    return Fraction(measured) * Fraction(other_limit) > Fraction(other_measured) * Fraction(limit)
