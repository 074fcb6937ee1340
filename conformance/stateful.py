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
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from pathlib import Path
from typing import Any, Protocol, cast

from hypothesis import HealthCheck, Phase, Verbosity, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule, run_state_machine_as_test

from conformance import driver, reducers
from conformance.adapters import Backend
from conformance.cases_model import Case, Step, case_file_text, new_case, thaw
from conformance.compare import SEMANTIC_FIELDS, closest_difference, judge_semantics, semantic
from conformance.generators import stream as stream_generator
from conformance.generators import zset as zset_generator
from conformance.protocols import CaseResult, EngineError, Handshake, Implementation
from conformance.schema import SchemaError, validate_case

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


class Described(Protocol):
    """What exploration needs of the implementation itself: its handshake (names, features)."""

    def handshake(self) -> Handshake: ...


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
    impl: Described
    regressions: Path
    oracle: Oracle
    #: The plans (indices into the area's list) this machine may draw from.
    plans: tuple[int, ...] = (0,)

    @classmethod
    def plan_features(cls) -> list[tuple[str, ...]]:
        """Per plan of the area, the features a case using it needs."""
        return [()]

    #: Whole-case mode (:func:`explore_all`): the steps are only recorded while the machine runs,
    #: and at its teardown the whole case is run by ``session`` (any backend) and judged.
    session: _Session | None = None

    def __init__(self) -> None:
        super().__init__()
        if self.session is not None:
            self.session.begin()
        self.engine = None if self.session is not None else driver.engine_for(cast(Implementation, self.impl), self.area)
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

    def teardown(self) -> None:
        if self.session is not None and self.steps:
            self.session.judge(self.setup, self.steps, self.metadata())

    def do(self, step: dict[str, Any]) -> None:
        if self.declined:
            return
        if self.session is not None:  # whole-case mode: the engine sees the case at teardown
            self.steps.append(step)
            self.last_case = self.case()
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


def supported_plans(area: str, impl: Described) -> tuple[int, ...]:
    """The plans of ``area`` whose features ``impl`` declares in its handshake."""
    declared = set(impl.handshake().features)
    return tuple(i for i, needs in enumerate(MACHINES[area].plan_features()) if declared >= set(needs))


def machine(area: str, impl: Described, regressions: Path,
            plans: Sequence[int] | None = None, session: _Session | None = None) -> type[_Differential]:
    """The state machine class of ``area`` bound to ``impl``, writing regressions under
    ``regressions``, drawing from ``plans`` (default: every plan ``impl`` supports)."""
    base = MACHINES[area]
    return type(f"{base.__name__}For{_slug(impl.handshake().name).title().replace('-', '')}", (base,), {
        "impl": impl, "regressions": regressions, "oracle": staticmethod(_oracle(area)),
        "plans": tuple(supported_plans(area, impl) if plans is None else plans), "session": session,
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



# --- exploring any backend: whole cases, several divergences, a time budget ---------------
#
# :func:`explore` above compares step by step on a live in-process engine and stops at the
# first divergence. :func:`explore_all` drives any implementation the suite runs, through a
# *case runner* (a function running one whole case: in process, or over the JSON-lines process
# protocol): the machines record their random operations, and at each run's end the case of
# those operations, with the oracle's expectations, is run and judged. Exploring goes on after a
# divergence; divergences are told apart by their *signature* (the area, the plan, the kind of
# step where the observations first differ and the shape of that difference), the first case of
# each signature is kept and, once the budget of new examples is spent, shrunk (whole steps, then
# list entries inside steps) to a schema-valid stamped case that still has that signature.

#: Runs one whole case on the implementation under test (a fresh engine per case).
CaseRunner = Callable[[Case], CaseResult]
#: The most replays the shrinking of one divergence may take (a slow engine's replay takes seconds).
SHRINK_REPLAYS = 150


def backend_runner(backend: Backend) -> CaseRunner:
    """The case runner of a backend (a subprocess over the JSON-lines protocol, or in process)."""
    def run(case: Case) -> CaseResult:
        return next(iter(backend.run([case])))

    return run


class BudgetSpent(Exception):
    """The time budget of the exploration is spent: no new example starts."""


@dataclass
class Found:
    """One distinct divergence: its signature, the first difference, the (shrunk) case file,
    and the known failure cause it matches, if any."""

    signature: str
    message: str
    path: Path
    known: str = ""
    steps: int = 0


@dataclass
class AreaExploration:
    """What exploring one area found."""

    area: str
    examples: int = 0
    diverged: int = 0  # examples whose case diverged (each counted in one of ``divergences``)
    budget_ended: bool = False
    divergences: list[Found] = dataclass_field(default_factory=list)
    plans: list[str] = dataclass_field(default_factory=list)


def plan_name(area: str, setup: Mapping[str, Any], steps: Sequence[Mapping[str, Any]]) -> str:
    """The plan a case of ``area`` uses: its reducer, program, processor (fixpoint: ``graph``)."""
    if area == "reduce":
        return str(steps[0].get("reducer", "?")) if steps else "?"
    if area == "zset":
        program = json.dumps(setup.get("program"), sort_keys=True)
        return next((name for name, p, _, _ in zset_generator.PROGRAMS
                     if json.dumps(p, sort_keys=True) == program), "program")
    if area == "stream":
        return str(setup.get("processor", "?"))
    return "graph"


def _field_shape(want: Any, got: Any) -> str:
    """How a field differs, its first kind of difference: entries missing, else extra, else other values."""
    if isinstance(want, Mapping) and isinstance(got, Mapping):
        kinds = [k for k, bad in (("missing", set(want) - set(got)), ("extra", set(got) - set(want)),
                                  ("other values", {k for k in set(want) & set(got) if want[k] != got[k]})) if bad]
        return kinds[0] if kinds else "differs"
    if isinstance(want, (set, frozenset)) and isinstance(got, (set, frozenset)):
        return "missing" if want - got else "extra" if got - want else "differs"
    return "differs"


def difference_shape(area: str, expected: Mapping[str, Any], observed: Mapping[str, Any] | None,
                     setup: Mapping[str, Any]) -> str:
    """The shape of a first difference, without its data: an error class against a value, or the
    area's first field that differs (the view before the changes, the live set before what was added
    and removed) and its first kind of difference (entries missing, else extra, else other values).
    Coarse on purpose: one fault shows in several fields at once, in proportions the data decides."""
    if observed is None:
        return "no observation"
    if "error" in expected or "error" in observed:
        return f"error {expected.get('error', 'none')} vs {observed.get('error', 'none')}"
    want, got = semantic(area, expected, (), setup), semantic(area, observed, (), setup)
    differing = [name for name in SEMANTIC_FIELDS[area] if want.get(name) != got.get(name)]
    return f"{differing[0]} {_field_shape(want.get(differing[0]), got.get(differing[0]))}" if differing else "differs"


def _message_head(message: str) -> str:
    """A crash message's first line, without the stack trace an adapter may append after ``" | "``."""
    return (message.strip().splitlines() or [""])[0].split(" | ")[0].strip()


def _message_shape(message: str) -> str:
    """A message without its data (numbers, quoted strings, collections), to tell crashes apart."""
    return re.sub(r"-?\b\d+\b|\{.*\}|\[.*\]|'[^']*'|\"[^\"]*\"", "…", _message_head(message))[:120]


def oracle_case(area: str, slug: str, description: str, setup: Mapping[str, Any],
                steps: Sequence[Mapping[str, Any]], metadata: Mapping[str, Any]) -> Case:
    """The stamped case of ``steps`` with the oracle's expectations, valid against the schema."""
    expected, alternatives = _oracle(area)(setup, steps)
    case = new_case(area, slug, description, setup,
                    [{**s, "expect": e} for s, e in zip(steps, expected, strict=True)],
                    source="regression", alternatives=alternatives, **metadata)
    validate_case(case.to_json())
    return case


def verdict(runner: CaseRunner, case: Case) -> tuple[str, str] | None:
    """Run ``case``; ``None`` when the implementation meets it, else (signature, message). An
    ``unsupported`` answer ends the comparison at that step (the runner would skip the case); a
    skipped case meets it."""
    result = runner(case)
    plan = plan_name(case.area, case.to_json()["setup"], _raw_steps(case))
    if result.status == "skipped":
        return None
    if result.status == "errored":
        return f"{case.area} / {plan}: errored: {_message_shape(result.message)}", _message_head(result.message)
    observed = list(result.observations)
    cut = next((i for i, o in enumerate(observed) if isinstance(o, Mapping) and o.get("error") == "unsupported"), None)
    if cut is not None:
        if cut == 0:
            return None
        raw = case.to_json()
        raw["steps"] = raw["steps"][:cut]
        raw["alternatives"] = [a[:cut] for a in raw.get("alternatives", []) if len(a) >= cut]
        case, observed = Case.from_json(raw), observed[:cut]
    found = closest_difference(case, observed)
    if found is None:
        return None
    d = found.difference
    if d is None:
        return f"{case.area} / {plan}: {_message_shape(found.message)}", found.message
    op = case.steps[d.step].op if d.step < len(case.steps) else "?"
    shape = difference_shape(case.area, d.expected or {}, d.observed, thaw(case.setup))
    return f"{case.area} / {plan} / {op}: {shape}", found.message


def _raw_steps(case: Case) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = case.to_json()["steps"]
    return steps


class _Session:
    """One area's exploration: counts the examples, keeps the first case of each signature."""

    def __init__(self, area: str, runner: CaseRunner, regressions: Path, name: str, deadline: float) -> None:
        self.area, self.runner, self.regressions, self.name = area, runner, regressions, name
        self.deadline = deadline
        self.result = AreaExploration(area)
        self.raw: dict[str, tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]] = {}

    def begin(self) -> None:
        if time.monotonic() >= self.deadline:
            self.result.budget_ended = True
            raise BudgetSpent

    def judge(self, setup: Mapping[str, Any], steps: Sequence[Mapping[str, Any]],
              metadata: Mapping[str, Any]) -> None:
        self.result.examples += 1
        slug = f"explored-{_slug(self.name)}"
        try:
            case = oracle_case(self.area, slug, "candidate", setup, steps, metadata)
        except (SchemaError, ValueError, KeyError, TypeError):
            return
        found = verdict(self.runner, case)
        if found is None:
            return
        self.result.diverged += 1
        if found[0] in self.raw:
            return
        signature, message = found
        self.raw[signature] = (dict(setup), [dict(s) for s in steps], dict(metadata))
        self.result.divergences.append(Found(signature, message, Path(), steps=len(steps)))


def _lists(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], int]]:
    """Every (path, length) of a list inside ``value``, outermost first."""
    if isinstance(value, list):
        yield path, len(value)
        for i, item in enumerate(value):
            yield from _lists(item, (*path, i))
    elif isinstance(value, dict):
        for key, item in value.items():
            if key != "op":
                yield from _lists(item, (*path, key))


def _without(value: Any, path: tuple[Any, ...], index: int) -> Any:
    """A copy of ``value`` with the ``index``-th entry of the list at ``path`` removed."""
    if not path:
        return value[:index] + value[index + 1:]
    copy = list(value) if isinstance(value, list) else dict(value)
    copy[path[0]] = _without(value[path[0]], path[1:], index)
    return copy


def shrink(runner: CaseRunner, area: str, signature: str, setup: Mapping[str, Any],
           steps: list[dict[str, Any]], metadata: Mapping[str, Any], slug: str, description: str,
           replays: int = SHRINK_REPLAYS, seconds: float = math.inf) -> Case:
    """Delta debugging of a divergence, keeping its signature: drop whole steps, then entries of
    the lists inside each step (values, keys, edges, rows, batches), while a replay on a fresh
    engine still diverges the same way (at most ``replays`` replays, ``seconds`` seconds). The
    smallest case found."""
    left = [replays]
    until = time.monotonic() + seconds

    def keeps(candidate: list[dict[str, Any]]) -> bool:
        if left[0] <= 0 or not candidate or time.monotonic() >= until:
            return False
        try:
            case = oracle_case(area, slug, description, setup, candidate, metadata)
        except Exception:  # noqa: BLE001 - a candidate without meaning (the oracle or schema refuse it)
            return False
        left[0] -= 1
        found = verdict(runner, case)
        return found is not None and found[0] == signature

    changed = True
    while changed and left[0] > 0:
        changed = False
        i = len(steps) - 1
        while i >= 0:
            if i < len(steps) and keeps(steps[:i] + steps[i + 1:]):
                steps, changed = steps[:i] + steps[i + 1:], True
            i -= 1
        for n in range(len(steps)):
            for path, length in list(_lists(steps[n])):
                for index in range(length - 1, -1, -1):
                    try:
                        candidate = steps[:n] + [_without(steps[n], path, index)] + steps[n + 1:]
                    except (IndexError, KeyError, TypeError):
                        break  # the list moved: an earlier removal changed this step
                    if keeps(candidate):
                        steps, changed = candidate, True
    return oracle_case(area, slug, description, setup, steps, metadata)


def known_signatures(runner: CaseRunner, cases: Sequence[Case],
                     known: Mapping[str, str]) -> dict[str, str]:
    """The signature of each known failure's case on the implementation -> its cause (the reason's
    words before the first colon), so that a divergence with that signature is recognised."""
    causes: dict[str, str] = {}
    for case in cases:
        if case.id in known:
            found = verdict(runner, case)
            if found is not None:
                causes.setdefault(found[0], known[case.id].split(":")[0].strip())
    return causes


def known_cause(signature: str, known: Mapping[str, str]) -> str:
    """The known cause of a divergence: that of a known failure with its signature, else, marked as a
    guess, that of one of the same area and plan (another first difference)."""
    if signature in known:
        return known[signature]
    plan = " / ".join(signature.split(" / ")[:2]).split(":")[0]
    guesses = sorted({cause for sig, cause in known.items() if " / ".join(sig.split(" / ")[:2]).split(":")[0] == plan})
    return f"perhaps {' or '.join(guesses)} (a known failure of the same plan, another first difference)" if guesses else ""


def explore_all(runner: CaseRunner, described: Described, area: str, regressions: Path, *,
                deadline: float, examples: int | None = None, steps: int = DEFAULT_STEPS,
                known: Mapping[str, str] | None = None, shrink_seconds: float = 120.0) -> AreaExploration:
    """Explore ``area`` on any implementation (``runner`` runs a whole case, ``described`` says its
    name and features), plan by plan, each plan an equal share of the time left before ``deadline``
    (and of ``examples``, if given); every distinct divergence shrunk and written under
    ``regressions/<area>/`` (each shrinking at most ``shrink_seconds``); ``known`` maps signatures to
    known causes (:func:`known_signatures`)."""
    name = described.handshake().name
    session = _Session(area, runner, regressions, name, deadline)
    plans = supported_plans(area, described)
    for n, plan in enumerate(plans):
        share = (deadline - time.monotonic()) / (len(plans) - n)
        session.deadline = min(deadline, time.monotonic() + share)
        count = 10**6 if examples is None else max(MIN_EXAMPLES_PER_PLAN, math.ceil(examples / max(len(plans), 1)))
        config = settings(max_examples=count, stateful_step_count=steps, deadline=None, database=None,
                          phases=(Phase.generate,), suppress_health_check=list(HealthCheck), print_blob=False,
                          verbosity=Verbosity.quiet)
        bound = machine(area, described, regressions, (plan,), session)
        session.result.plans.append(plan_name(area, *_plan_setup(area, plan)))
        try:
            run_state_machine_as_test(bound, settings=config)
        except Exception:
            if not session.result.budget_ended:  # BudgetSpent, however Hypothesis reports it
                raise
    result = session.result
    result.budget_ended = result.budget_ended or time.monotonic() >= deadline
    for found in result.divergences:
        setup, raw_steps, metadata = session.raw[found.signature]
        slug = f"explored-{_slug(name)}-{_slug(plan_name(area, setup, raw_steps))}"
        description = (f"Found by exploring {name!r} (random operation sequences, shrunk); expectations "
                       f"from the reference oracle. First difference: {found.signature}.")
        case = shrink(runner, area, found.signature, setup, raw_steps, metadata, slug, description,
                      seconds=shrink_seconds)
        again = verdict(runner, case)
        found.message = again[1] if again else found.message
        found.steps = len(case.steps)
        found.path = regressions / area / f"{case.id.split('.', 1)[1]}.json"
        found.path.parent.mkdir(parents=True, exist_ok=True)
        found.path.write_text(case_file_text(case.to_json()), "utf-8")
        found.known = known_cause(found.signature, known or {})
    return result


def _plan_setup(area: str, plan: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    if area == "reduce":
        return {}, [{"reducer": PLANS[plan][0]}]
    if area == "zset":
        return {"program": zset_generator.PROGRAMS[plan][1]}, []
    if area == "stream":
        return {"processor": stream_generator.PLANS[plan][0]}, []
    return {}, []
