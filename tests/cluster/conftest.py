"""The cluster tier's fixture: one standalone master and two workers for the test session.

The tier runs alone (``./scripts/test --cluster``, one pytest process, no xdist: one
cluster). Each scenario is a Spark application of its own, run in a process of its own
(:meth:`Cluster.run`): a process has one SparkSession, and this test process may hold the
suite's local one; a process per scenario also gives each application a fresh driver
whose working folder is not the project's, whose ``PYTHONPATH`` reaches the driver alone.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from spark_impl.session import SHORT_LIVED_ENV
from spark_impl.standalone import ClusterStartError, Standalone
from tests.cluster.connect_server import ConnectServer

ROOT = Path(__file__).resolve().parents[2]
#: a scenario's limit (an application's start, its jobs, its stop, on a loaded machine)
SCENARIO_TIMEOUT = 900


@dataclass
class Scenario:
    """A finished scenario process: its exit status, output and duration."""

    returncode: int
    stdout: str
    stderr: str
    seconds: float


@dataclass
class Cluster:
    """The running standalone cluster and what an application needs to use it."""

    standalone: Standalone
    conf_dir: Path

    @property
    def url(self) -> str:
        return self.standalone.url

    def env(self, checkpoint: str, short_lived: bool = True) -> dict[str, str]:
        """A driver's environment: the master and the checkpoint location by the project's
        variables, Spark's settings from :attr:`conf_dir`, the project on the driver's path;
        unless ``short_lived`` is false, the application's JVMs (driver, executors)
        short-lived, as a scenario's are (:data:`spark_impl.session.SHORT_LIVED_ENV`)."""
        env = {k: v for k, v in os.environ.items()
               if k not in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON", "PYTHONPATH", SHORT_LIVED_ENV)}
        env.update({"INCSPEC_SPARK_MASTER": self.url, "INCSPEC_CHECKPOINT_DIR": checkpoint,
                    "SPARK_CONF_DIR": str(self.conf_dir), "SPARK_LOCAL_IP": "127.0.0.1",
                    "PYTHONPATH": str(ROOT)})
        if short_lived:
            env[SHORT_LIVED_ENV] = "1"
        return env

    def run(self, args: list[str], cwd: Path, checkpoint: str, short_lived: bool = True) -> Scenario:
        """``python ARGS`` as a driver of this cluster, in ``cwd`` (:meth:`env`)."""
        start = time.monotonic()
        done = subprocess.run([sys.executable, *args], cwd=cwd, env=self.env(checkpoint, short_lived),
                              capture_output=True, text=True, timeout=SCENARIO_TIMEOUT)
        return Scenario(done.returncode, done.stdout, done.stderr, time.monotonic() - start)

    def executor_logs(self) -> str:
        """The executors' stderr (the newest application's), for a failure's message."""
        logs = sorted(self.standalone.worker_dir.glob("*/app-*/*/stderr"), key=lambda p: p.stat().st_mtime)
        return "\n".join(logs[-1].read_text(errors="replace").splitlines()[-40:]) if logs else "(none)"

    def explain(self, scenario: Scenario) -> str:
        return (f"exit {scenario.returncode} after {scenario.seconds:.0f} s\n--- stdout\n{scenario.stdout[-3000:]}"
                f"\n--- stderr\n{scenario.stderr[-6000:]}\n--- executor stderr\n{self.executor_logs()}")


@pytest.fixture(scope="session")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """A standalone master and two workers (1 core, 1 GB each), stopped at the end of the session
    whatever the tests did. A cluster that does not start fails the tests that use it."""
    pytest.importorskip("pyspark", reason="the Spark extra is not installed")
    root = tmp_path_factory.mktemp("standalone")
    standalone = Standalone(root)
    try:
        standalone.start()
        yield Cluster(standalone, standalone.write_app_conf(root / "app-conf"))
    except ClusterStartError as error:
        pytest.fail(f"the standalone cluster did not start: {error}", pytrace=False)
    finally:
        standalone.stop()


@pytest.fixture(scope="session")
def connect_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Spark Connect server (``local[2]``) started from the wheel's
    ``sbin/start-connect-server.sh``; yields its URL ``sc://127.0.0.1:PORT`` and stops it at the
    end of the session whatever the tests did. A server that does not start fails the tests
    that use it."""
    pytest.importorskip("pyspark", reason="the Spark extra is not installed")
    pytest.importorskip("grpc", reason="the Spark Connect client's packages are not installed")
    server = ConnectServer(tmp_path_factory.mktemp("connect"), project=ROOT)
    try:
        server.start()
        yield server.url
    except ClusterStartError as error:
        pytest.fail(f"the Spark Connect server did not start: {error}", pytrace=False)
    finally:
        server.stop()
