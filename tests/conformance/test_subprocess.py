"""The subprocess protocol: an implementation in JavaScript, and fake implementations that
crash, hang or break the protocol (the runner records them and goes on)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from conformance import reports
from conformance.adapters.subprocess_impl import SubprocessImplementation
from conformance.execute import execute
from conformance.loader import load_cases

FIXTURES = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).resolve().parents[2]
CASES = load_cases()
NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed: the JavaScript fixture cannot run")
def test_a_javascript_implementation_runs_through_the_protocol() -> None:
    backend = SubprocessImplementation([str(NODE), str(FIXTURES / "node_engine.js")], timeout=20)
    try:
        hs, outcomes = execute(backend, CASES)
    finally:
        backend.close()
    assert (hs.name, hs.language) == ("node-fixture", "javascript")
    assert [o.case.id for o in outcomes if o.status in ("fail", "errored")] == []
    ran = [o for o in outcomes if o.status == "pass"]
    assert {o.case.area for o in ran} == {"reduce", "fixpoint"}
    # what it does not declare is reported as not supported, never as passed
    unsupported = [o for o in outcomes if o.status == "unsupported"]
    assert unsupported and all(
        o.case.area not in hs.areas or set(o.case.features) - set(hs.features) for o in unsupported)
    # its reduce engine reports work counters, within the bounds; its fixpoint engine reports none
    assert {o.cost for o in outcomes if o.case.area == "reduce" and o.status == "pass"} == {"ok", ""}
    assert {o.cost for o in outcomes if o.case.area == "fixpoint"} == {"n/a", ""}


def fake(behaviour: str, timeout: float = 10.0) -> SubprocessImplementation:
    """The fake implementation, each reply awaited ``timeout`` s: 10 by default, so that a
    loaded machine does not turn a slow reply into an error; a test provoking a hang passes
    a short one."""
    return SubprocessImplementation([sys.executable, str(FIXTURES / "fake_impl.py"), behaviour],
                                    timeout=timeout)


REDUCE = [c for c in CASES if c.area == "reduce"][:4]


@pytest.mark.parametrize(("behaviour", "message"), [
    ("crash-on-second", "crashed (exit code 3); stderr: ...fake: giving up on purpose"),
    ("hang-on-second", "timed out"),
    ("garbage-on-second", "not JSON"),
    ("bad-schema-on-second", "protocol message"),
    ("wrong-seq-on-second", "seq"),
])
def test_a_broken_implementation_is_reported_and_the_run_goes_on(behaviour: str, message: str) -> None:
    # a short timeout only where a hang is provoked; elsewhere a loaded machine must not turn
    # a slow reply into an error
    backend = fake(behaviour, timeout=2.0 if behaviour == "hang-on-second" else 10.0)
    try:
        _, outcomes = execute(backend, REDUCE)
    finally:
        backend.close()
    statuses = [o.status for o in outcomes]
    assert statuses[1] == "errored" and message in outcomes[1].message
    # the process was restarted: the cases after the broken one ran and passed
    assert statuses[0] == statuses[2] == statuses[3] == "pass"


def test_an_operation_refused_as_unsupported_skips_the_case() -> None:
    backend = fake("unsupported-on-second")
    try:
        _, outcomes = execute(backend, REDUCE[:3])
    finally:
        backend.close()
    assert [o.status for o in outcomes] == ["pass", "skipped", "pass"]
    assert "unsupported" in outcomes[1].message


def test_skipped_and_errored_replies_are_reported() -> None:
    backend = fake("skip-and-error")
    try:
        _, outcomes = execute(backend, REDUCE[:2])
    finally:
        backend.close()
    assert [o.status for o in outcomes] == ["skipped", "errored"]
    assert outcomes[0].message == "not today" and outcomes[1].message == "boom"


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed: the JavaScript fixture cannot run")
def test_conform_command_with_impl_cmd(capsys: pytest.CaptureFixture[str]) -> None:
    from conformance.conform import main

    status = main(["--impl-cmd", f"{NODE} {FIXTURES / 'node_engine.js'}", "--report", "json", "--no-progress"])
    report = json.loads(capsys.readouterr().out)
    assert status == 0
    assert report["implementation"]["language"] == "javascript"
    assert report["summary"]["total"]["fail"] == report["summary"]["total"]["errored"] == 0
    assert report["summary"]["stream"]["unsupported"] == report["summary"]["stream"]["cases"]


def test_an_implementation_that_does_not_start_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    from conformance.conform import main

    status = main(["--impl-cmd", f"{sys.executable} -c 'import sys; sys.exit(1)'", "--no-progress"])
    assert status == 2 and "did not start" in capsys.readouterr().err


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed: the JavaScript fixture cannot run")
def test_the_implementers_guide_shows_the_fixture_s_table_as_it_is() -> None:
    """docs/implementers.md prints the JavaScript fixture's table: its counts are this run's, so a
    new case cannot leave them stale."""
    backend = SubprocessImplementation([str(NODE), str(FIXTURES / "node_engine.js")], timeout=20)
    try:
        hs, outcomes = execute(backend, CASES)
    finally:
        backend.close()
    guide = (ROOT / "docs" / "implementers.md").read_text(encoding="utf-8")
    table = reports.text(hs, outcomes).split("\n\n")[:2]
    assert "\n\n".join(table) in guide


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed: the engines' JavaScript serving loop cannot run")
def test_the_javascript_engines_serving_loop_flushes_a_long_answer_before_it_exits(tmp_path: Path) -> None:
    """``engines/protocol.mjs`` (the Skip and d2ts adapters' loop): an answer of 1 MiB, then
    ``stop``, read only after the process had time to exit. Node writes to a pipe
    asynchronously; a loop that exits as soon as it reads ``stop`` cut this answer at the
    pipe's 64 KiB."""
    import subprocess
    import time

    engine = tmp_path / "big_engine.mjs"
    engine.write_text(
        f"import {{ serve }} from {json.dumps((ROOT / 'engines' / 'protocol.mjs').as_uri())};\n"
        "class Big { async run(step) { return { output: 'x'.repeat(1 << 20) }; } }\n"
        "await serve({ name: 'big' }, { reduce: Big }, {});\n")
    case = {"area": "reduce", "setup": {}, "steps": [{"op": "x"}]}
    requests = [{"cmd": "start"}, {"cmd": "run", "seq": 1, "case": case}, {"cmd": "stop"}]
    process = subprocess.Popen([str(NODE), str(engine)], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("".join(json.dumps(r) + "\n" for r in requests).encode())
    process.stdin.close()
    time.sleep(1)  # a slow reader: the answer waits in the engine's queue, not in the pipe
    lines = process.stdout.read().decode().splitlines()
    assert process.wait(timeout=30) == 0
    answer = json.loads(lines[1])
    assert answer["seq"] == 1
    assert answer["result"]["observations"] == [{"output": "x" * 2**20}]
