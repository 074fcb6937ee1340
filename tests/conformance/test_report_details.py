"""What a failing case's report says: the closest accepted answer, result and cost
failures together, the failing step's observation and expectation in the JSON report,
the implementation's stderr log and its configuration."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from conformance import reports
from conformance.adapters.in_process import InProcess
from conformance.adapters.subprocess_impl import SubprocessImplementation
from conformance.cases_model import Case, thaw
from conformance.execute import execute, judge
from conformance.implementations import resolve
from conformance.loader import load_cases
from conformance.protocols import CaseResult

FIXTURES = Path(__file__).parent / "fixtures"
CASES = {c.id.split(".")[1]: c for c in load_cases()}


def answer(case: Case, n: int) -> list[dict[str, Any]]:
    """The case's n-th accepted answer (0: the main expectation) as observations."""
    return [dict(thaw(o)) for o in case.expectation_sequences()[n]]


def test_the_difference_is_shown_against_the_closest_accepted_answer() -> None:
    case = CASES["emptied-key-both-readings"]  # alternatives 1 and 2 part at the last step: k 5 or k 1
    observed = answer(case, 2)
    observed[-1] = {"view": [["k", 1]], "changes": [["k", 7]]}  # fails every answer there; alt 2 by one entry
    verdict = judge(case, CaseResult(case.id, "result", tuple(observed)))
    assert verdict.status == "fail"
    assert verdict.difference is not None and verdict.difference.step == len(observed) - 1
    assert "closest accepted answer: alternative 2 of 3" in verdict.message
    assert 'expected {"changes":[["k",1]],"view":[["k",1]]}' in verdict.message
    observed[1] = {"view": [], "changes": []}  # now every answer parts at step 1: the main one is shown
    verdict = judge(case, CaseResult(case.id, "result", tuple(observed)))
    assert verdict.message.startswith("step 1: expected") and "alternative" not in verdict.message


def test_a_case_failing_its_result_and_its_cost_says_both() -> None:
    case = CASES["sum-worked-example"]
    observed = answer(case, 0)
    costly = next(i for i, s in enumerate(case.steps) if s.cost)
    observed[costly] = {**observed[costly], "work": {"reducer_calls": 1000}}
    observed[1] = {"view": [], "changes": []}
    verdict = judge(case, CaseResult(case.id, "result", tuple(observed)))
    assert (verdict.status, verdict.cost) == ("fail", "fail")
    assert "expected" in verdict.message and "; and cost: " in verdict.message
    assert "reducer_calls = 1000 > 2" in verdict.message


def test_the_json_report_carries_the_failing_step_its_expectation_and_observation() -> None:
    case = CASES["min-partial-example"]
    hs, outcomes = execute(InProcess(resolve("mutant/reduce-decline-ignored")), [case])
    result = reports.as_json(hs, outcomes)["results"][0]
    assert result["status"] == "fail"
    assert result["step"] == 4
    assert result["expected"] == {"view": [["k", 5]], "changes": [["k", 5]]}
    assert result["observed"]["view"] == [["k", 3]]


def test_the_implementations_stderr_is_kept_in_a_log_the_report_names(tmp_path: Path) -> None:
    log = tmp_path / "impl.log"
    backend = SubprocessImplementation([sys.executable, str(FIXTURES / "fake_impl.py"), "configured"],
                                       timeout=10, log=log)
    try:
        hs, outcomes = execute(backend, [c for c in CASES.values() if c.area == "reduce"][:2])
    finally:
        backend.close()
    assert "fake: started in fast mode" in log.read_text(encoding="utf-8")
    report = json.loads(reports.json_text(hs, outcomes, log))
    assert report["log"] == str(log)
    assert report["implementation"]["configuration"] == {"mode": "fast", "workers": 2}
    assert "configuration: mode=fast, workers=2" in reports.text(hs, outcomes)
    assert "Configuration: mode=fast, workers=2" in reports.markdown(hs, outcomes)


def test_a_timeout_says_how_long_the_per_case_timeout_is() -> None:
    backend = SubprocessImplementation([sys.executable, str(FIXTURES / "fake_impl.py"), "hang-on-second"],
                                       timeout=5.0)  # case 0 must answer in time on a busy machine
    try:
        _, outcomes = execute(backend, [c for c in CASES.values() if c.area == "reduce"][:2])
    finally:
        backend.close()
    assert "timed out after 5 s (the per-case timeout" in outcomes[1].message
