"""Run a command as the driver of a fresh Spark standalone cluster on this machine.

    python -m spark_impl.on_cluster [--workers 2] [--cores 1] [--memory 1g] -- COMMAND [ARGS...]

A master and ``--workers`` workers are started from the pyspark wheel alone
(:mod:`spark_impl.standalone`: each worker a process of its own, with working and local
folders of its own), the command runs with the project's variables pointing at them
(``INCSPEC_SPARK_MASTER``; ``SPARK_CONF_DIR`` holding the applications' settings; unless
set, ``INCSPEC_CHECKPOINT_DIR``, a folder beside the cluster's), and the cluster is stopped
when the command ends, fails or is interrupted. The exit status is the command's. CI runs
the main job this way::

    python -m spark_impl.on_cluster -- ./scripts/main --no-progress

The executors' Python is this interpreter's quiet launcher (:func:`spark_impl.session.worker_launcher`:
the driver-side worker of a fold reducer's operator prints four lines a query, dropped); the
project's packages still reach the executors by shipping (:mod:`spark_impl.shipping`).
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import FrameType

from spark_impl.session import CHECKPOINT_ENV, worker_launcher
from spark_impl.standalone import ClusterStartError, standalone_cluster


class Interrupted(Exception):
    """A signal asking this process to end: the cluster is stopped on the way out."""


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise Interrupted(signal.Signals(signum).name)


def run(command: list[str], root: Path, workers: int, cores: int, memory: str) -> int:
    """``command``'s exit status, run as a driver of a cluster started under ``root``."""
    for ending in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(ending, _interrupt)
    began = time.monotonic()
    with standalone_cluster(root / "cluster", workers=workers, cores=cores, memory=memory) as cluster:
        print(f"on_cluster: {cluster.url}, {workers} worker(s) of {cores} core(s) and {memory}, "
              f"up in {time.monotonic() - began:.0f} s", flush=True)
        env = {k: v for k, v in os.environ.items() if k not in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON")}
        env.update({"INCSPEC_SPARK_MASTER": cluster.url, "SPARK_LOCAL_IP": "127.0.0.1",
                    "SPARK_CONF_DIR": str(cluster.write_app_conf(root / "app-conf", worker_launcher()))})
        env.setdefault(CHECKPOINT_ENV, (root / "checkpoints").as_uri())
        child = subprocess.Popen(command, env=env)
        try:
            return child.wait()
        finally:
            if child.poll() is None:  # interrupted: the command goes first, then the cluster
                child.terminate()
                try:
                    child.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    child.kill()
                    child.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m spark_impl.on_cluster",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cores", type=int, default=1, help="cores per worker")
    parser.add_argument("--memory", default="1g", help="executor memory per worker")
    parser.add_argument("--root", type=Path, default=None,
                        help="the cluster's folders (default: a new temporary folder)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND [ARGS...]")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given (after --)")
    if args.workers < 1 or args.cores < 1:
        parser.error("--workers and --cores must be at least 1")
    root = args.root or Path(tempfile.mkdtemp(prefix="incspec-cluster-"))
    try:
        return run(command, root, args.workers, args.cores, args.memory)
    except ClusterStartError as error:
        print(f"on_cluster: the cluster did not start: {error}", file=sys.stderr)
        return 2
    except Interrupted as signalled:
        print(f"on_cluster: {signalled}: the cluster is stopped", file=sys.stderr)
        return 128 + signal.Signals[str(signalled)].value


if __name__ == "__main__":
    sys.exit(main())
