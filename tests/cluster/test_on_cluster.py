"""``python -m spark_impl.on_cluster`` (how CI runs the main job on a standalone cluster), with
a stand-in cluster instead of Spark's daemons: the command gets the cluster's variables, its
exit status is the run's, and the cluster is stopped after it whether it passed, failed or
the run was told to end."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import pytest

from spark_impl import on_cluster
from spark_impl.session import TWS_DRIVER_WORKER
from spark_impl.standalone import Standalone


def stand_in_cluster(events: list[str]) -> Callable[..., AbstractContextManager[Standalone]]:
    """``standalone_cluster`` for a cluster that records its start and stop in ``events``; its
    application settings are a real :class:`Standalone`'s."""
    @contextmanager
    def fake(root: Path, workers: int, cores: int, memory: str) -> Iterator[Standalone]:
        events.append(f"start {workers}x{cores} {memory}")
        try:
            yield Standalone(root, workers=workers, cores=cores, memory=memory, master_port=7077)
        finally:
            events.append("stop")
    return fake


def show_env(tmp_path: Path, status: int) -> list[str]:
    out = tmp_path / "env.txt"
    script = textwrap.dedent(f"""
        import os, sys
        names = ("INCSPEC_SPARK_MASTER", "SPARK_CONF_DIR", "INCSPEC_CHECKPOINT_DIR", "SPARK_LOCAL_IP")
        open({str(out)!r}, "w").write("\\n".join(f"{{n}}={{os.environ.get(n)}}" for n in names))
        sys.exit({status})""")
    return [sys.executable, "-c", script]


def read_env(tmp_path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in (tmp_path / "env.txt").read_text().splitlines())


def test_the_command_runs_with_the_clusters_variables_and_its_status_is_the_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[str] = []
    monkeypatch.delenv("INCSPEC_CHECKPOINT_DIR", raising=False)
    monkeypatch.setattr(on_cluster, "standalone_cluster", stand_in_cluster(events))
    status = on_cluster.main(["--workers", "3", "--root", str(tmp_path / "root"), "--", *show_env(tmp_path, 3)])
    assert status == 3 and events == ["start 3x1 1g", "stop"]
    env = read_env(tmp_path)
    assert env["INCSPEC_SPARK_MASTER"] == "spark://127.0.0.1:7077" and env["SPARK_LOCAL_IP"] == "127.0.0.1"
    assert env["INCSPEC_CHECKPOINT_DIR"] == (tmp_path / "root" / "checkpoints").as_uri()
    defaults = dict(line.split(" ", 1) for line in
                    (Path(env["SPARK_CONF_DIR"]) / "spark-defaults.conf").read_text().splitlines())
    assert defaults["spark.cores.max"] == "3" and defaults["spark.executor.memory"] == "1g"
    launcher = Path(defaults["spark.pyspark.python"])  # the quiet launcher, run by this interpreter
    assert TWS_DRIVER_WORKER in launcher.read_text() and sys.executable in launcher.read_text()


def test_a_checkpoint_location_given_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INCSPEC_CHECKPOINT_DIR", "file:///elsewhere")
    monkeypatch.setattr(on_cluster, "standalone_cluster", stand_in_cluster([]))
    assert on_cluster.main(["--root", str(tmp_path / "root"), "--", *show_env(tmp_path, 0)]) == 0
    assert read_env(tmp_path)["INCSPEC_CHECKPOINT_DIR"] == "file:///elsewhere"


def test_a_run_without_a_command_or_with_no_worker_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--"], ["--workers", "0", "--", "true"]):
        with pytest.raises(SystemExit) as refused:
            on_cluster.main(argv)
        assert refused.value.code == 2
    assert "no command given" in capsys.readouterr().err


def test_a_run_told_to_end_stops_its_command_then_the_cluster(tmp_path: Path) -> None:
    """SIGTERM to the run (as CI's exit trap sends): the command is terminated, then the
    cluster stopped, and the run exits 128 + 15. The run is a process of its own here, its
    cluster a stand-in that writes its stop to a file."""
    stopped, started = tmp_path / "stopped", tmp_path / "started"
    runner = textwrap.dedent(f"""
        import sys
        from contextlib import contextmanager
        from pathlib import Path
        from spark_impl import on_cluster
        from spark_impl.standalone import Standalone

        @contextmanager
        def fake(root, workers, cores, memory):
            try:
                yield Standalone(root, master_port=7077)
            finally:
                Path({str(stopped)!r}).write_text("stopped")

        on_cluster.standalone_cluster = fake
        sys.exit(on_cluster.main(["--root", {str(tmp_path / "root")!r}, "--", "sh", "-c",
                                  "touch {started}; exec sleep 300"]))""")
    run = subprocess.Popen([sys.executable, "-c", runner], cwd=Path(__file__).resolve().parents[2],
                           env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
                           stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert started.exists(), "the command did not start"
    run.send_signal(signal.SIGTERM)
    _, err = run.communicate(timeout=60)
    assert run.returncode == 128 + signal.SIGTERM, err
    assert stopped.read_text() == "stopped" and "SIGTERM: the cluster is stopped" in err
