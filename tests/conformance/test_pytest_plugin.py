"""The pytest plugin: the suite as parametrized tests inside an implementer's own test run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conformance.pytest_plugin import conformance_tests

ROOT = Path(__file__).resolve().parents[2]

#: The reference, run through the plugin on the stream area (one test per case).
test_reference_through_the_plugin = conformance_tests("reference", areas=["stream"])


def test_failures_and_unsupported_cases_show_in_the_implementers_run(tmp_path: Path) -> None:
    module = tmp_path / "test_my_engine.py"
    module.write_text(
        "from conformance.pytest_plugin import conformance_tests\n"
        "from reference_impl.mutants.reduce_mutants import MUTANTS\n"
        "broken = MUTANTS[0].make()\n"  # collapses duplicates
        "test_reduce = conformance_tests('test_my_engine:broken', areas=['reduce'],"
        " ids=['reduce.duplicate-values', 'reduce.sum-worked-example'])\n"
        "test_fixpoint = conformance_tests('test_my_engine:NoFixpoint', areas=['fixpoint'],"
        " ids=['fixpoint.diamond'])\n"
        "class NoFixpoint(type(broken)):\n"
        "    def fixpoint_engine(self):\n"
        "        return None\n"
        "    def handshake(self):\n"
        "        from dataclasses import replace\n"
        "        return replace(super().handshake(), areas=('reduce',))\n",
        encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", str(module), "-q", "-rA", "-p", "no:cacheprovider",
         "--rootdir", str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
        env={"PYTHONPATH": f"{ROOT}:{tmp_path}", "PATH": "/usr/bin:/bin"},
    )
    out = run.stdout
    assert run.returncode == 1, out
    assert "1 failed, 1 passed, 1 skipped" in out, out
    assert "FAILED" in out and "reduce.duplicate-values" in out
    assert "area 'fixpoint' not supported" in out
