"""A Spark standalone cluster (one master, its workers, which a caller may kill and replace)
started from the pyspark wheel alone: the cluster tier's fixture and the benchmarks that
measure on a cluster (``--master standalone``) start it the same way.

``$SPARK_HOME/bin/spark-class`` runs the master and the workers, ``SPARK_HOME`` being the
pyspark package's folder (its ``jars/`` hold everything: nothing is downloaded). Each binds
127.0.0.1 on free ports, in a process group of its own (:meth:`Standalone.stop` kills
the groups, whatever happened), with an environment without ``PYTHONPATH``: an executor's
Python worker inherits the worker's environment, and the project's packages must reach it
by shipping (spark_impl/shipping.py), not by a path of the machine that started it. Each
worker has working and local folders of its own (``worker/<name>``, ``worker-local/<name>``),
as a worker on a machine of its own would.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: how long the master's web UI and the worker's registration may take (a loaded machine)
START_TIMEOUT = 180.0


class ClusterStartError(RuntimeError):
    """The master or the worker did not come up: the message holds the log's tail."""


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def daemon_env(home: Path, root: Path) -> dict[str, str]:
    """The master's and a worker's environment: this one's, without Python paths or Spark
    settings of its own, with the cluster's folders under ``root`` (a worker's own folders
    are set by :meth:`Standalone.start_worker`)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON", "SPARK_CONF_DIR")}
    env.update({"SPARK_HOME": str(home), "SPARK_LOCAL_IP": "127.0.0.1",
                "SPARK_LOG_DIR": str(root / "logs"), "SPARK_PID_DIR": str(root / "pids"),
                "SPARK_CONF_DIR": str(root / "daemon-conf"),
                "SPARK_WORKER_DIR": str(root / "worker"), "SPARK_LOCAL_DIRS": str(root / "worker-local")})
    return env


@dataclass
class Daemons:
    """Spark daemons started from the wheel under ``root`` (their output in ``root/logs``), each
    in a process group of its own, so that :meth:`stop` kills each one's children too."""

    root: Path
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    def log(self, name: str) -> Path:
        return self.root / "logs" / f"{name}.out"

    def _spawn(self, name: str, command: list[str], env: dict[str, str]) -> None:
        with open(self.log(name), "wb") as out:
            self.processes[name] = subprocess.Popen(command, cwd=self.root, env=env, stdout=out,
                                                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                                    start_new_session=True)

    def _await(self, deadline: float, ready: Callable[[], bool], what: str, name: str, where: str) -> None:
        """Return once ``ready()``; a daemon that exits meanwhile, or the deadline, fails the
        start with the log's tail."""
        while time.monotonic() < deadline:
            if ready():
                return
            for proc_name, process in self.processes.items():
                if process.poll() is not None:
                    raise ClusterStartError(f"the {proc_name} exited ({process.returncode}) while "
                                            f"waiting for {what}:\n{self.tail(proc_name)}")
            time.sleep(1.0)
        raise ClusterStartError(f"timed out after {START_TIMEOUT:.0f} s waiting for {what} "
                                f"({where}):\n{self.tail(name)}")

    def tail(self, name: str, lines: int = 40) -> str:
        try:
            return "\n".join(self.log(name).read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def stop(self) -> None:
        """Kill each daemon's process group, the last started first, then reap it."""
        for name in reversed(list(self.processes)):
            process = self.processes.pop(name)
            for sig in (signal.SIGTERM, signal.SIGKILL):  # the group: what outlived its leader too
                try:
                    os.killpg(process.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    continue
            process.wait()


@dataclass
class Standalone(Daemons):
    """One master and ``workers`` workers (each ``cores`` cores and ``memory`` of executor
    memory) under ``root``."""

    workers: int = 2
    cores: int = 1
    memory: str = "1g"
    master_port: int = field(default_factory=free_port)
    master_ui_port: int = field(default_factory=free_port)
    #: workers started so far (the next one's name: ``worker-<started>``)
    started: int = 0

    @property
    def url(self) -> str:
        return f"spark://127.0.0.1:{self.master_port}"

    @property
    def worker_dir(self) -> Path:
        """Where the workers run their executors (``<worker>/<app>/<executor>``: their working folders)."""
        return self.root / "worker"

    @property
    def worker_local_dir(self) -> Path:
        """The executors' local folders, per worker (block manager, shuffle files, state store
        working copies)."""
        return self.root / "worker-local"

    def app_conf(self) -> dict[str, str]:
        """An application's settings on this cluster: one executor on each worker, with the
        worker's cores and memory; as many shuffle partitions as cores; the driver on
        127.0.0.1 beside the daemons, without UI or console progress bars."""
        cores = str(self.cores * self.workers)
        return {"spark.executor.memory": self.memory, "spark.executor.cores": str(self.cores),
                "spark.cores.max": cores, "spark.sql.shuffle.partitions": cores,
                "spark.default.parallelism": cores, "spark.ui.enabled": "false",
                "spark.ui.showConsoleProgress": "false", "spark.driver.host": "127.0.0.1",
                "spark.driver.bindAddress": "127.0.0.1"}

    def app_defaults(self, python: str = sys.executable) -> dict[str, str]:
        """``spark-defaults.conf`` of an application on this cluster, all of it on this machine:
        :meth:`app_conf`, a small driver, UTC, 128 MB of state store memory per executor, and
        ``python`` as the executors' Python (the same machine)."""
        return {**self.app_conf(), "spark.driver.memory": "1g", "spark.sql.session.timeZone": "UTC",
                "spark.sql.streaming.stateStore.rocksdb.maxMemoryUsageMB": "128",
                "spark.pyspark.python": python}

    def write_app_conf(self, folder: Path, python: str = sys.executable) -> Path:
        """``folder`` holding :meth:`app_defaults` as ``spark-defaults.conf`` (an application's
        ``SPARK_CONF_DIR``)."""
        folder.mkdir(parents=True, exist_ok=True)
        settings = self.app_defaults(python)
        (folder / "spark-defaults.conf").write_text("".join(f"{k} {v}\n" for k, v in settings.items()))
        return folder

    def worker_names(self) -> list[str]:
        """The running workers, oldest first."""
        return sorted((n for n in self.processes if n.startswith("worker-")), key=lambda n: int(n.split("-")[1]))

    def start(self) -> None:
        """Start the master, then the workers; return once the master lists them alive."""
        for folder in ("logs", "pids", "daemon-conf", "worker", "worker-local"):
            (self.root / folder).mkdir(parents=True, exist_ok=True)
        home = spark_home()
        deadline = time.monotonic() + START_TIMEOUT
        self._spawn("master", [str(home / "bin" / "spark-class"), "org.apache.spark.deploy.master.Master",
                               "--host", "127.0.0.1", "--port", str(self.master_port),
                               "--webui-port", str(self.master_ui_port)], daemon_env(home, self.root))
        self._wait(deadline, lambda state: state is not None, "the master's web UI to answer", "master")
        for _ in range(self.workers):
            self.start_worker()

    def start_worker(self) -> str:
        """Start a worker (on a port and in folders of its own); return its name once the
        master lists it alive."""
        home, port = spark_home(), free_port()
        name = f"worker-{self.started}"
        self.started += 1
        work, local = self.worker_dir / name, self.worker_local_dir / name
        for folder in (work, local):
            folder.mkdir(parents=True, exist_ok=True)
        env = {**daemon_env(home, self.root), "SPARK_WORKER_DIR": str(work), "SPARK_LOCAL_DIRS": str(local)}
        self._spawn(name, [str(home / "bin" / "spark-class"), "org.apache.spark.deploy.worker.Worker",
                           "--host", "127.0.0.1", "--port", str(port), "--cores", str(self.cores),
                           "--memory", self.memory, "--webui-port", str(free_port()),
                           "--work-dir", str(work), self.url], env)

        def alive(state: dict[str, Any] | None) -> bool:
            return state is not None and any(w.get("port") == port and w.get("state") == "ALIVE"
                                             for w in state.get("workers", []))
        self._wait(time.monotonic() + START_TIMEOUT, alive, f"{name} to register with the master", name)
        return name

    def kill_worker(self, name: str | None = None) -> str:
        """``kill -9`` a worker (by default the oldest running) and its executors (its process
        group), then delete its folders: the executors' working and local folders (blocks,
        shuffle files, state store working copies) are lost, as with a machine lost. Returns
        the worker's name."""
        name = name or self.worker_names()[0]
        process = self.processes.pop(name)
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait()
        for folder in (self.worker_dir / name, self.worker_local_dir / name):
            shutil.rmtree(folder, ignore_errors=True)
        return name

    def state(self) -> dict[str, Any] | None:
        """The master's state (its web UI's ``/json/``), or None while it does not answer."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.master_ui_port}/json/", timeout=5) as answer:
                state: dict[str, Any] = json.load(answer)
                return state
        except (urllib.error.URLError, OSError, ValueError):
            return None

    def _wait(self, deadline: float, ready: Any, what: str, name: str) -> None:
        self._await(deadline, lambda: bool(ready(self.state())), what, name, self.url)


@contextmanager
def standalone_cluster(root: Path, workers: int = 2, cores: int = 1, memory: str = "1g"
                       ) -> Iterator[Standalone]:
    """A started :class:`Standalone` under ``root``, its daemons killed on leaving whatever
    happened (a start that fails included)."""
    cluster = Standalone(root, workers=workers, cores=cores, memory=memory)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()
