"""Run the conformance suite inside your own pytest run, one test per case.

In a test module of your project::

    from conformance.pytest_plugin import conformance_tests

    test_conformance = conformance_tests("mypackage.engine:implementation")
    # or a command speaking the JSON-lines protocol:
    test_conformance_js = conformance_tests(command="node engine.js", areas=["reduce"])

Each case becomes a parametrized test named by its ID: a failure shows the
first difference; a case the implementation does not support is *skipped*
with the reason (never passed); a case listed in ``expectations`` (a JSON
file of known failures) is an expected failure (``xfail``, strict: if it
starts passing, the test fails so the list is kept honest).
"""

from __future__ import annotations

import atexit
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from conformance.adapters import Backend
from conformance.adapters.in_process import InProcess
from conformance.adapters.subprocess_impl import SubprocessImplementation
from conformance.cases_model import Case
from conformance.execute import Expectations, execute
from conformance.implementations import resolve
from conformance.loader import Filter, load_cases, select


def conformance_tests(
    impl: str | None = None,
    *,
    command: str | None = None,
    areas: Sequence[str] = (),
    ids: Sequence[str] = (),
    features: Sequence[str] = (),
    levels: Sequence[str] = (),
    cases_dir: Path | None = None,
    expectations: Path | None = None,
    timeout: float = 10.0,
) -> Callable[..., None]:
    """A parametrized pytest test function running every selected case on the implementation."""
    if (impl is None) == (command is None):
        raise ValueError("give exactly one of impl (module:attr or a short name) and command")
    cases = select(load_cases(cases_dir), Filter(areas, ids, features, levels))
    known = Expectations.read(expectations).known_failures if expectations else {}
    backend: list[Backend] = []

    def backend_once() -> Backend:
        if not backend:
            if command:
                process = SubprocessImplementation(command, timeout=timeout)
                atexit.register(process.close)
                backend.append(process)
            else:
                backend.append(InProcess(resolve(impl or ""), timeout=timeout))
        return backend[0]

    params = [pytest.param(c, id=c.id, marks=[pytest.mark.xfail(reason=known[c.id], strict=True)]
                           if c.id in known else []) for c in cases]

    @pytest.mark.parametrize("case", params)
    def test_case(case: Case) -> None:
        _, (outcome,) = execute(backend_once(), [case])
        if outcome.status in ("unsupported", "skipped"):
            pytest.skip(f"{outcome.status}: {outcome.message}")
        if outcome.status != "pass":
            pytest.fail(f"{outcome.status} [{case.level}] {case.id}: {outcome.message}", pytrace=False)
        if outcome.cost == "fail":
            pytest.fail(f"cost [{case.level}] {case.id}: {outcome.message}", pytrace=False)

    test_case.__doc__ = f"incspec conformance: {len(cases)} cases"
    return test_case


def pytest_configure(config: Any) -> None:
    """Allows ``-p conformance.pytest_plugin``; the tests come from :func:`conformance_tests`."""
