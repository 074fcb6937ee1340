"""A Spark Connect server started from the pyspark wheel alone (``sbin/start-connect-server.sh``),
for the Spark Connect tests (tests/cluster/test_connect.py).

The server runs ``local[2]`` (its own driver and executors: the tests need no standalone
cluster), UI off, 2 shuffle partitions, on a free port of 127.0.0.1, with its logs and pid
file under ``root``. ``--wait`` keeps the script in the foreground (no daemonising), so the
server is the process group :class:`~spark_impl.standalone.Daemons` started and stops.

The server's Python workers run the ``foreachBatch`` functions, unpickled there: they must
import the project (the pipeline's view classes are pickled by reference), so the server's
``PYTHONPATH`` holds the project's folder and its Python is this interpreter (docs/spark.md,
"Spark Connect").
"""

from __future__ import annotations

import socket
import time
from dataclasses import dataclass, field
from pathlib import Path

from spark_impl.standalone import START_TIMEOUT, Daemons, daemon_env, free_port, spark_home

#: the server's settings beyond the engines' (spark_impl.session.ENGINE_CONF): small and quiet,
#: as the local sessions' (spark_impl.session.LOCAL_CONF)
SERVER_CONF: dict[str, str] = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "2",
    "spark.default.parallelism": "2",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.driver.host": "127.0.0.1",
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.streaming.stateStore.rocksdb.maxMemoryUsageMB": "128",
    "spark.connect.grpc.binding.address": "127.0.0.1",
}


def answers(port: int) -> bool:
    """Whether something accepts connections on ``127.0.0.1:port``."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            return True
    except OSError:
        return False


@dataclass
class ConnectServer(Daemons):
    """One Spark Connect server (``local[2]``) under ``root``."""

    project: Path = Path(".")
    port: int = field(default_factory=free_port)

    @property
    def url(self) -> str:
        return f"sc://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Start the server; return once its port accepts connections."""
        for folder in ("logs", "pids", "daemon-conf", "worker-local"):
            (self.root / folder).mkdir(parents=True, exist_ok=True)
        from spark_impl.session import ENGINE_CONF, worker_launcher  # pyspark's, once it is there

        home = spark_home()
        env = daemon_env(home, self.root)
        env.update({"PYSPARK_PYTHON": worker_launcher(), "PYTHONPATH": str(self.project)})
        settings = {**ENGINE_CONF, **SERVER_CONF, "spark.connect.grpc.binding.port": str(self.port)}
        command = [str(home / "sbin" / "start-connect-server.sh"), "--wait", "--master", "local[2]"]
        for key, value in settings.items():
            command += ["--conf", f"{key}={value}"]
        self._spawn("connect", command, env)
        self._await(time.monotonic() + START_TIMEOUT, lambda: answers(self.port),
                    "the Spark Connect server's port", "connect", self.url)
