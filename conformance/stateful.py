"""Differential, stateful testing: Hypothesis drives an implementation and the oracle side by side.

A :class:`~hypothesis.stateful.RuleBasedStateMachine` per area feeds random
operations to a live engine of the implementation under test; after every
operation the oracle recomputes the expected observations from scratch over
the operations so far, and the two are compared with the suite's own judge.
On a mismatch the operations so far, with the *oracle's* expectations, are
written out as a regression case file before the failure is raised. Hypothesis
shrinks the failure and replays the minimal example last, so the file left
behind is the shrunk case: commit it under ``conformance/cases/<area>/`` and
it runs with every other case.

Runs are kept short (a handful of steps, small key and node sets) so that
shrinking takes seconds. Each area's *plans* (the reducers, programs or processors a
run may use) are explored one by one, each with its share of the example budget, so
that a fault in one plan is not missed by the luck of the draw; only plans whose
features the implementation declares are used, and an operation it answers with the
error class ``unsupported`` ends the comparison of that run (as the runner skips such
a case), never a divergence.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from hypothesis import Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule, run_state_machine_as_test

from conformance import driver, reducers
from conformance.cases_model import Case, Step, case_file_text, new_case
from conformance.compare import judge_semantics
from conformance.generators import stream as stream_generator
from conformance.generators import zset as zset_generator
from conformance.protocols import EngineError, Implementation

#: No "explain" phase: it replays every step variant and takes minutes on a stateful run.
PHASES = (Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink)
KEYS = ("a", "b", "c")
VALUES = st.integers(min_value=0, max_value=5)
NODES = ("r", "s", "a", "b", "c", "d")
DEFAULT_STEPS = 12
#: The fewest examples any one plan gets, however small the budget.
MIN_EXAMPLES_PER_PLAN = 10
#: The reducers the machine declares (name, params): well-formed, declining and one ill-formed.
PLANS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("sum", {}), ("count", {}), ("min", {}), ("max", {}), ("saturating_sum", {"cap": 8}), ("sum_bad_remove", {}))

#: (setup, steps) -> (expected observations, alternative expectation sequences)
Oracle = Callable[[Mapping[str, Any], Sequence[Mapping[str, Any]]],
                  tuple[list[dict[str, Any]], list[list[dict[str, Any]]]]]


class Divergence(AssertionError):
    """The implementation under test disagreed with the oracle; ``path`` is the regression case."""

    def __init__(self, message: str, path: Path) -> None:
        super().__init__(f"{message}\nregression case written to {path}")
        self.path = path


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "impl"


def _observe(area: str, engine: Any, step: Mapping[str, Any], setup: Mapping[str, Any],
             built: list[bool]) -> dict[str, Any]:
    holder = Case.from_json({"id": "", "area": area, "setup": setup, "steps": []})
    if not built:
        try:
            driver.prepare(engine, holder)
        except EngineError as refusal:
            return {"error": refusal.error_class}
        built.append(True)
    return driver.observe(engine, holder, Step.from_json({**step, "expect": {}}))


class _Differential(RuleBasedStateMachine):
    """Shared machinery: run a step on both sides, judge, write a regression on divergence."""

    area = ""
    impl: Implementation
    regressions: Path
    oracle: Oracle
    #: The plans (indices into the area's list) this machine may draw from.
    plans: tuple[int, ...] = (0,)

    @classmethod
    def plan_features(cls) -> list[tuple[str, ...]]:
        """Per plan of the area, the features a case using it needs."""
        return [()]

    def __init__(self) -> None:
        super().__init__()
        self.engine = driver.engine_for(self.impl, self.area)
        self.steps: list[dict[str, Any]] = []
        self.observed: list[dict[str, Any]] = []
        self.setup: dict[str, Any] = {}
        self.built: list[bool] = []
        self.declined = False
        self.last_case: Case | None = None  # the case of the steps so far, with the oracle's expectations

    def case(self) -> Case:
        expected, alternatives = type(self).oracle(self.setup, self.steps)
        steps = [{**s, "expect": e} for s, e in zip(self.steps, expected, strict=True)]
        name = self.impl.handshake().name
        return new_case(self.area, f"regression-{_slug(name)}",
                        f"Found by stateful differential testing against {name!r}; "
                        "expectations from the reference oracle.", self.setup, steps, source="regression",
                        alternatives=alternatives, **self.metadata())

    def metadata(self) -> dict[str, Any]:
        return {}

    def do(self, step: dict[str, Any]) -> None:
        if self.declined:
            return
        observed = _observe(self.area, self.engine, step, self.setup, self.built)
        if observed.get("error") == "unsupported":
            self.declined = True  # the implementation declines this run: nothing more to compare
            return
        self.steps.append(step)
        self.observed.append(observed)
        case = self.last_case = self.case()
        difference = judge_semantics(case, self.observed)
        if difference:
            path = self.regressions / self.area / f"{case.slug}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(case_file_text(case.to_json()), "utf-8")
            raise Divergence(difference, path)


# --- reduce ------------------------------------------------------------------------


def collections() -> st.SearchStrategy[list[list[Any]]]:
    """A wire collection over a few keys and small integer values (duplicates likely)."""
    return st.lists(st.tuples(st.sampled_from(KEYS), st.lists(VALUES, min_size=1, max_size=4)),
                    max_size=3).map(lambda kvs: [[k, vs] for k, vs in kvs])


class ReduceMachine(_Differential):
    area = "reduce"
    def __init__(self) -> None:
        super().__init__()
        self.C: dict[str, list[int]] = {}

    @classmethod
    def plan_features(cls) -> list[tuple[str, ...]]:
        return [reducers.REDUCERS[name].features for name, _ in PLANS]

    def metadata(self) -> dict[str, Any]:
        spec = reducers.REDUCERS[self.steps[0]["reducer"]]
        return {"features": spec.features, "level": "must" if spec.well_formed else "should"}

    @initialize(data=st.data(), collection=collections())
    def start(self, data: st.DataObject, collection: list[list[Any]]) -> None:
        name, params = PLANS[data.draw(st.sampled_from(self.plans), label="reducer")]
        self.do({"op": "declare", "reducer": name, "params": params})
        self.C = {}
        for k, vs in collection:
            self.C.setdefault(k, []).extend(vs)
        self.do({"op": "load", "collection": collection})

    @rule(data=st.data())
    def apply(self, data: st.DataObject) -> None:
        plus: list[list[Any]] = []
        minus: list[list[Any]] = []
        for k in data.draw(st.lists(st.sampled_from(KEYS), unique=True, max_size=3), label="keys"):
            held = self.C.get(k, [])
            if held:
                out = data.draw(st.lists(st.sampled_from(range(len(held))), unique=True,
                                         max_size=len(held)), label=f"remove from {k}")
                if out:
                    minus.append([k, [held[i] for i in out]])
            add = data.draw(st.lists(VALUES, max_size=2), label=f"add to {k}")
            if add:
                plus.append([k, add])
        if data.draw(st.booleans(), label="invalid") and data.draw(st.booleans()):
            minus.append([data.draw(st.sampled_from(KEYS)), [9]])  # 9 is never held
        step = {"op": "apply", "plus": plus, "minus": minus}
        before = {k: list(vs) for k, vs in self.C.items()}
        self.do(step)
        if self.declined or (self.last_case is not None and "error" in self.last_case.steps[-1].expect):
            self.C = before
            return
        for k, vs in minus:
            for v in vs:
                self.C[k].remove(v)
        for k, vs in plus:
            self.C.setdefault(k, []).extend(vs)


# --- fixpoint -----------------------------------------------------------------------

EDGES = st.tuples(st.sampled_from(NODES), st.sampled_from(NODES)).map(list)


class FixpointMachine(_Differential):
    area = "fixpoint"

    def __init__(self) -> None:
        super().__init__()
        self.edges: set[tuple[str, str]] = set()

    @initialize(roots=st.lists(st.sampled_from(NODES), max_size=2, unique=True),
                edges=st.lists(EDGES, max_size=8))
    def start(self, roots: list[str], edges: list[list[str]]) -> None:
        self.edges = {(u, v) for u, v in edges}
        self.do({"op": "make", "roots": roots, "edges": edges})

    @rule(data=st.data())
    def change(self, data: st.DataObject) -> None:
        step: dict[str, Any] = {"op": "apply"}
        if self.edges:
            gone = data.draw(st.lists(st.sampled_from(sorted(self.edges)), unique=True, max_size=2))
            if gone:
                step["remove_edges"] = [list(e) for e in gone]
        new = data.draw(st.lists(EDGES, max_size=2))
        if new:
            step["add_edges"] = new
        for field in ("add_roots", "remove_roots"):
            roots = data.draw(st.lists(st.sampled_from(NODES), max_size=1), label=field)
            if roots:
                step[field] = roots
        self.edges -= {tuple(e) for e in step.get("remove_edges", ())}
        self.edges |= {(u, v) for u, v in new}
        self.do(step)


# --- zset -------------------------------------------------------------------------------


class ZSetMachine(_Differential):
    """A program of every operator kind (the generator's), fed random versions."""

    area = "zset"

    @classmethod
    def plan_features(cls) -> list[tuple[str, ...]]:
        return [("iterate",) if "iterate" in json.dumps(program) else ()
                for _, program, _, _ in zset_generator.PROGRAMS]

    @initialize(data=st.data())
    def start(self, data: st.DataObject) -> None:
        _, program, _, rows = zset_generator.PROGRAMS[data.draw(st.sampled_from(self.plans), label="program")]
        self.setup = {"program": program}
        self.rows = rows

    @rule(seed=st.integers(0, 2**16))
    def version(self, seed: int) -> None:
        rng = random.Random(seed)
        self.do({"op": "step", "inputs": {name: r for name, gen in self.rows.items() if (r := gen(rng))}})


# --- stream -----------------------------------------------------------------------------


class StreamMachine(_Differential):
    """One input of a named processor, run under random cuts into batches (empty ones included)."""

    area = "stream"

    @classmethod
    def plan_features(cls) -> list[tuple[str, ...]]:
        return [() for _ in stream_generator.PLANS]

    @initialize(data=st.data(), seed=st.integers(0, 2**16))
    def start(self, data: st.DataObject, seed: int) -> None:
        processor, params, items_of = stream_generator.PLANS[data.draw(st.sampled_from(self.plans), label="processor")]
        self.setup = {"processor": processor, "params": params}
        self.items = items_of(random.Random(seed))

    @rule(data=st.data())
    def run(self, data: st.DataObject) -> None:
        cut_after = data.draw(st.lists(st.integers(0, len(self.items)), max_size=len(self.items) + 2))
        batches, start = [], 0
        for end in sorted(cut_after):
            batches.append(self.items[start:end])
            start = end
        batches.append(self.items[start:])
        self.do({"op": "run", "batches": batches})


# --- entry points ---------------------------------------------------------------------


def _oracle(area: str) -> Oracle:
    if area == "reduce":
        from conformance.oracle import reduce as reduce_oracle

        return lambda setup, steps: reduce_oracle.expectations(steps)
    if area == "fixpoint":
        from conformance.oracle import fixpoint as fixpoint_oracle

        return lambda setup, steps: (fixpoint_oracle.denotational(steps), [])
    if area == "zset":
        from conformance.oracle import zset as zset_oracle

        return lambda setup, steps: (zset_oracle.denotational(setup, steps), [])
    from conformance.oracle import stream as stream_oracle

    return lambda setup, steps: (stream_oracle.denotational(setup, steps), [])


MACHINES: dict[str, type[_Differential]] = {
    "reduce": ReduceMachine, "fixpoint": FixpointMachine, "zset": ZSetMachine, "stream": StreamMachine,
}


def supported_plans(area: str, impl: Implementation) -> tuple[int, ...]:
    """The plans of ``area`` whose features ``impl`` declares in its handshake."""
    declared = set(impl.handshake().features)
    return tuple(i for i, needs in enumerate(MACHINES[area].plan_features()) if declared >= set(needs))


def machine(area: str, impl: Implementation, regressions: Path,
            plans: Sequence[int] | None = None) -> type[_Differential]:
    """The state machine class of ``area`` bound to ``impl``, writing regressions under
    ``regressions``, drawing from ``plans`` (default: every plan ``impl`` supports)."""
    base = MACHINES[area]
    return type(f"{base.__name__}For{_slug(impl.handshake().name).title().replace('-', '')}", (base,), {
        "impl": impl, "regressions": regressions, "oracle": staticmethod(_oracle(area)),
        "plans": tuple(supported_plans(area, impl) if plans is None else plans),
    })


def explore(impl: Implementation, area: str, regressions: Path,
            config: settings | None = None) -> Divergence | None:
    """Run the area's machine against ``impl``, plan by plan; the (shrunk) divergence found, or
    ``None``. Each supported plan gets an equal share of ``config.max_examples`` (at least
    :data:`MIN_EXAMPLES_PER_PLAN`), so every reducer, program and processor is exercised."""
    config = config or settings(max_examples=50, stateful_step_count=DEFAULT_STEPS, deadline=None,
                                phases=PHASES)
    plans = supported_plans(area, impl)
    share = max(MIN_EXAMPLES_PER_PLAN, math.ceil(config.max_examples / max(len(plans), 1)))
    for plan in plans:
        try:
            run_state_machine_as_test(machine(area, impl, regressions, (plan,)),
                                      settings=settings(config, max_examples=share))
        except Divergence as found:
            return minimize(impl, area, found)
    return None


def _diverges(impl: Implementation, area: str, setup: Mapping[str, Any],
              steps: Sequence[Mapping[str, Any]]) -> str | None:
    """Replay ``steps`` on a fresh engine; the first difference from the oracle, if any."""
    expected, alternatives = _oracle(area)(setup, steps)
    case = new_case(area, "candidate", "candidate", setup,
                    [{**s, "expect": e} for s, e in zip(steps, expected, strict=True)],
                    alternatives=alternatives)
    result = driver.run_case(impl, case)
    return judge_semantics(case, result.observations) if result.status == "result" else result.message


def minimize(impl: Implementation, area: str, found: Divergence) -> Divergence:
    """Delta debugging after Hypothesis: drop every step whose removal keeps a divergence
    (replayed on a fresh engine), then rewrite the regression case. Hypothesis shrinks the
    draws; this removes whole operations it keeps (empty batches of no consequence)."""
    raw = json.loads(found.path.read_text(encoding="utf-8"))
    steps = [{k: v for k, v in s.items() if k != "expect"} for s in raw["steps"]]
    setup = raw["setup"]
    difference = str(found)
    i = len(steps) - 1
    while i >= 1:
        candidate = steps[:i] + steps[i + 1:]
        diff = _diverges(impl, area, setup, candidate)
        if diff:
            steps, difference = candidate, diff
        i -= 1
    expected, alternatives = _oracle(area)(setup, steps)
    case = new_case(area, raw["id"].split(".")[1], raw["description"], setup,
                    [{**s, "expect": e} for s, e in zip(steps, expected, strict=True)],
                    source="regression", alternatives=alternatives,
                    features=raw["features"], level=raw["level"])
    found.path.write_text(case_file_text(case.to_json()), "utf-8")
    return Divergence(difference.split("\nregression case")[0], found.path)

