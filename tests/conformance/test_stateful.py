"""Stateful differential testing: the reference agrees with the oracle; a mutant is caught,
shrunk, and written out as a regression case that then fails it and passes the reference."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import settings

from conformance import stateful
from conformance.adapters.in_process import InProcess
from conformance.execute import execute
from conformance.implementations import resolve
from conformance.loader import load_cases
from reference_impl.mutants.fixpoint_mutants import MUTANTS as FIXPOINT_MUTANTS
from reference_impl.mutants.reduce_mutants import MUTANTS as REDUCE_MUTANTS
from reference_impl.mutants.stream_mutants import MUTANTS as STREAM_MUTANTS
from reference_impl.mutants.zset_mutants import MUTANTS as ZSET_MUTANTS


@pytest.mark.parametrize("area", ["reduce", "fixpoint", "zset", "stream"])
def test_the_reference_agrees_with_the_oracle_on_random_traces(area: str, tmp_path: Path) -> None:
    """Examples per run: the active Hypothesis profile's (dev 50, ci 200, thorough 2000), 12 steps each."""
    found = stateful.explore(resolve("reference"), area, tmp_path,
                             settings(settings.default, stateful_step_count=stateful.DEFAULT_STEPS,
                                      phases=stateful.PHASES))
    assert found is None, str(found)


@pytest.mark.parametrize("mutant", [REDUCE_MUTANTS[1], REDUCE_MUTANTS[3], FIXPOINT_MUTANTS[1],
                                     ZSET_MUTANTS[0], STREAM_MUTANTS[0]], ids=lambda m: m.name)
def test_a_divergence_becomes_a_regression_case(mutant: object, tmp_path: Path) -> None:
    from reference_impl.mutants import Mutant

    assert isinstance(mutant, Mutant)
    found = stateful.explore(mutant.make(), mutant.area, tmp_path)
    assert found is not None, f"{mutant.name} was not caught"
    assert found.path.is_file() and found.path.parent.name == mutant.area
    cases = load_cases(tmp_path)  # valid against the schema, ID stamped
    assert [c.source for c in cases] == ["regression"]
    _, against_mutant = execute(InProcess(mutant.make()), cases)
    _, against_reference = execute(InProcess(resolve("reference")), cases)
    assert [o.status for o in against_mutant] == ["fail"]
    assert [o.status for o in against_reference] == ["pass"]
    assert len(cases[0].steps) <= 6  # shrunk: a handful of operations, not a dozen


def test_explore_command_writes_a_replayable_regression(tmp_path: Path) -> None:
    from conformance.conform import main

    assert main(["--impl", "mutant/reduce-decline-ignored", "--explore", str(tmp_path),
                 "--area", "reduce", "--examples", "20"]) == 1
    assert main(["--impl", "mutant/reduce-decline-ignored", "--cases", str(tmp_path), "--no-progress"]) == 1
    assert main(["--impl", "reference", "--cases", str(tmp_path), "--no-progress"]) == 0
    assert main(["--impl", "reference", "--explore", str(tmp_path / "none"), "--area", "fixpoint",
                 "--examples", "5"]) == 0


def test_explore_keeps_to_the_declared_features_and_respects_unsupported(tmp_path: Path) -> None:
    """An engine that declares no features and refuses ``count`` as ``unsupported`` agrees with
    the oracle: it is never given a declining or ill-formed reducer, and its refusal ends the run
    (as the runner skips such a case) instead of being a divergence."""
    from conformance.protocols import EngineError, Handshake
    from reference_impl.implementation import (
        ReferenceImplementation,
        ReferenceReduceEngine,
    )

    declared: list[str] = []

    class NoCount(ReferenceReduceEngine):
        def declare(self, reducer, params):  # type: ignore[no-untyped-def]
            declared.append(reducer)
            if reducer == "count":
                raise EngineError("unsupported")
            super().declare(reducer, params)

    class Plain(ReferenceImplementation):
        def handshake(self) -> Handshake:
            return Handshake("plain", "0", areas=("reduce",), features=())

        def reduce_engine(self) -> NoCount:
            return NoCount()

    assert [stateful.PLANS[i][0] for i in stateful.supported_plans("reduce", Plain())] == ["sum", "count"]
    assert stateful.explore(Plain(), "reduce", tmp_path) is None
    assert set(declared) == {"sum", "count"}
    assert not list(tmp_path.rglob("*.json"))


# --- exploring through the process protocol (--impl-cmd, --engine) -----------------------

FAKE = Path(__file__).parent / "fixtures" / "fake_impl.py"


def fake_cmd(behaviour: str) -> str:
    import sys

    return f"{sys.executable} {FAKE} {behaviour}"


def test_a_process_engine_is_explored_and_its_divergence_shrunk(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A fake engine over the process protocol whose ``count`` view is wrong after an ``apply``: the
    divergence is found, shrunk to a stamped case (declare, load, apply) that fails on it and passes
    on the reference."""
    from conformance.adapters.subprocess_impl import SubprocessImplementation
    from conformance.conform import main

    assert main(["--impl-cmd", fake_cmd("count-wrong-after-apply"), "--explore", str(tmp_path),
                 "--area", "reduce", "--examples", "40"]) == 1
    out = capsys.readouterr().out
    assert "1 distinct divergence(s)" in out and "reduce / count / apply: view other values" in out
    cases = load_cases(tmp_path)  # valid against the schema, ID stamped
    assert [(c.source, c.steps[0].args["reducer"]) for c in cases] == [("regression", "count")]
    assert [s.op for s in cases[0].steps] == ["declare", "load", "apply"]  # shrunk: nothing to drop
    assert str(tmp_path / "reduce" / f"{cases[0].id.split('.', 1)[1]}.json") in out
    fake = SubprocessImplementation(fake_cmd("count-wrong-after-apply"))
    try:
        _, against_fake = execute(fake, cases)
    finally:
        fake.close()
    _, against_reference = execute(InProcess(resolve("reference")), cases)
    assert [o.status for o in against_fake] == ["fail"]
    assert [o.status for o in against_reference] == ["pass"]


def test_divergences_with_one_first_difference_are_reported_once(tmp_path: Path) -> None:
    """Many examples diverge; those with the same first differing observation (area, plan, step
    kind, shape) make one divergence; two faults make two."""
    from conformance.adapters.subprocess_impl import SubprocessImplementation

    for behaviour, signatures in [
        ("count-wrong-after-apply", ["reduce / count / apply: view other values"]),
        ("count-and-sum-wrong", ["reduce / count / apply: view other values",
                                 "reduce / sum / load: view other values"]),
    ]:
        fake = SubprocessImplementation(fake_cmd(behaviour))
        try:
            found = stateful.explore_all(stateful.backend_runner(fake), fake, "reduce",
                                         tmp_path / behaviour, deadline=float("inf"), examples=60)
        finally:
            fake.close()
        assert found.examples >= 60 and found.diverged > len(signatures)
        assert sorted(d.signature for d in found.divergences) == signatures
        assert len(load_cases(tmp_path / behaviour)) == len(signatures)


def test_a_known_cause_is_recognised(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A divergence with the signature of a case the expectations file lists is named by its cause."""
    import json

    from conformance.conform import main

    command = fake_cmd("count-wrong-after-apply")
    assert main(["--impl-cmd", command, "--explore", str(tmp_path / "first"), "--area", "reduce",
                 "--examples", "40"]) == 1
    (case,) = load_cases(tmp_path / "first")
    expectations = tmp_path / "expectations.json"
    expectations.write_text(json.dumps({"implementation": "fake", "known_failures": [
        {"id": case.id, "reason": "count-off (fake 0): one too many after an apply"}]}), "utf-8")
    capsys.readouterr()
    assert main(["--impl-cmd", command, "--explore", str(tmp_path / "again"), "--area", "reduce",
                 "--examples", "40", "--cases", str(tmp_path / "first"), "--expectations", str(expectations)]) == 1
    assert "[known cause: count-off (fake 0)]" in capsys.readouterr().out


@pytest.mark.timeout(600)  # with no example limit, a budget that ends nothing runs forever
def test_the_budget_ends_the_exploration(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--budget`` bounds the run (no example limit): no new example starts once it is spent.
    The examples under way when it is spent finish, and the fake process closes: 2-3 s on a
    quiet machine, so 60 s bound the end on a busy one, where an unbounded run never ends."""
    import time

    from conformance.conform import main

    start = time.monotonic()
    assert main(["--impl-cmd", fake_cmd("correct"), "--explore", str(tmp_path), "--area", "reduce",
                 "--budget", "3"]) == 0
    assert time.monotonic() - start < 3 + 60
    out = capsys.readouterr().out
    assert "agrees with the oracle (the budget ended the exploration)" in out
    assert int(out.split(" examples")[0].split()[-1]) > 0
