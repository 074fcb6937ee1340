"""Run the search in a child process with a wall-clock and a memory limit.

The reducer is arbitrary user code: a hang or a memory explosion must not hang
the command. The child (``worker.py``) limits its own address space
(RLIMIT_AS) and each law instance's time; the parent kills the child's whole
process group (CrossHair's processes included) when the total time is spent,
and reports where the search was.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import check_reducer
from check_reducer.worker import Job, error_report, search_time


def _python_path() -> str:
    """Where the child finds this very package (a worktree shadows an installed copy)."""
    package_root = str(Path(check_reducer.__file__).resolve().parent.parent)
    existing = os.environ.get("PYTHONPATH", "")
    return os.pathsep.join(p for p in (package_root, existing) if p)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError:
        return ""


def run_job(job: Job, timeout: float) -> dict[str, Any]:
    """The worker's report, or an error report when it hung, crashed or ran out of memory."""
    with tempfile.TemporaryDirectory(prefix="incspec-check-") as tmp:
        folder = Path(tmp)
        job = dataclasses.replace(job, progress_file=str(folder / "progress"),
                                  result_file=str(folder / "result.json"),
                                  search_until=time.time() + search_time(timeout))
        (folder / "job.json").write_text(json.dumps(dataclasses.asdict(job)), encoding="utf-8")
        child = subprocess.Popen(
            [sys.executable, "-m", "check_reducer.worker", str(folder / "job.json")],
            env=dict(os.environ, PYTHONPATH=_python_path()),
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            start_new_session=True,  # its own process group: killed as a whole
        )
        try:
            _, stderr = child.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.communicate()
            where = _read(folder / "progress") or "starting up"
            return error_report(job.target, "timeout",
                                f"the search did not finish within {timeout} s and was killed "
                                f"(it was at: {where}). The reducer (or its module's import) "
                                f"may hang where the per-call limit cannot stop it, e.g. in "
                                f"native code, or the search needs more time (--timeout).")
        result = folder / "result.json"
        if not result.exists():
            where = _read(folder / "progress") or "starting up"
            tail = " | ".join(stderr.strip().splitlines()[-5:])
            return error_report(job.target, "crashed",
                                f"the search process died (exit status {child.returncode}, at: "
                                f"{where}; memory limit {job.memory_mb} MB). Last output: {tail}")
        report: dict[str, Any] = json.loads(result.read_text(encoding="utf-8"))
        return report


