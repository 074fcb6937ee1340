"""``kill -9`` of an ``incspec pipeline`` process at moments tied to its progress.

A kill at a random *wall-clock* moment lands where a machine's speed puts it: on a
loaded machine every kill of a few seconds falls in the JVM's start, and the writes
of a micro-batch are never hit. Here a run is killed, at random, either a pause
(0 to 8 s) after it starts, or a pause (0 to 4 s) after the run's progress (the
micro-batches committed) passes a point drawn over the whole run: the kills spread
over the start, a micro-batch's work, its state and commit writes, the snapshots
and the end, whatever the machine's speed. Once every input file is committed only
the first kind is left.

A run may maintain several views (``--view`` repeated: the pipeline runs them one
after another over the same files); its progress is the micro-batches committed by
all of them, so the kills spread over every view's work.

Used by ``tests/spark/test_pipeline.py`` (marker slow: the sum, min and reach views in
one run); run alone for a longer soak over many seeds::

    python -m tests.spark.pipeline_killer --view reduce:min --view reach --seeds 1-20
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from tests.spark.spark_process import ROOT, SLOW_RUN_LIMIT, application_env

#: seconds between looks at a running pipeline's progress
POLL = 0.2


def view_name(view: str) -> str:
    kind, _, reducer = view.partition(":")
    return f"reduce-{reducer}" if kind == "reduce" else "reach"


def committed(out: Path, views: Sequence[str]) -> int:
    """How many micro-batches the checkpoint under ``out`` has committed, over all ``views``."""
    total = 0
    for view in views:
        folder = out / "_checkpoint" / view_name(view) / "commits"
        try:
            total += sum(1 for name in os.listdir(folder) if name.isdigit())
        except FileNotFoundError:
            pass
    return total


def start(inp: Path, out: Path, views: Sequence[str], log: Path,
          options: Sequence[str] = ()) -> subprocess.Popen[str]:
    """The pipeline of ``views`` (and further ``options``) in a process group of its own, its
    output going to ``log``."""
    chosen = [arg for view in views for arg in ("--view", view)]
    with log.open("w") as sink:
        return subprocess.Popen([sys.executable, "-m", "spark_impl.pipeline", "--input", str(inp),
                                 "--output", str(out), *chosen, "--snapshot-every", "2", *options],
                                cwd=ROOT, env=application_env(), stdout=sink, stderr=subprocess.STDOUT,
                                text=True, start_new_session=True)


def tail(log: Path, lines: int = 80) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


def kill_points(rng: random.Random, kills: int, total: int) -> list[int]:
    """For each kill, the progress it waits for (micro-batches committed over all views),
    drawn over the whole run's ``total`` and taken in order: a run of several views is hit
    in each view's work, not only in the first view's."""
    return sorted(rng.randrange(total) for _ in range(kills))


def kill_at_random(process: subprocess.Popen[str], out: Path, views: Sequence[str],
                   rng: random.Random, point: int, total: int) -> bool:
    """Kill ``process``'s group at one of the moments of the module docstring, a progress-tied
    one once more than ``point`` micro-batches are committed; whether it was killed (not
    already ended by itself)."""
    after_start = committed(out, views) >= total or rng.random() < 0.25
    pause = rng.uniform(0.0, 8.0) if after_start else rng.uniform(0.0, 4.0)
    while process.poll() is None and not after_start and committed(out, views) <= point:
        time.sleep(POLL)
    time.sleep(pause)
    if process.poll() is not None:
        return False
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    return True


def run_with_kills(inp: Path, out: Path, views: Sequence[str], kills: int, rng: random.Random,
                   logs: Path, options: Sequence[str] = ()) -> int:
    """Run the pipeline of ``views`` (with ``options``) over the files of ``inp`` until
    ``kills`` runs were killed and one then ran to its end; every run that ends by itself must
    exit 0 (else AssertionError with the tail of its output). Returns the number of runs."""
    total = len(list(inp.iterdir())) * len(views)
    points = kill_points(rng, kills, total)
    killed = runs = 0
    while True:
        log = logs / f"run-{runs:02d}.log"
        process, runs = start(inp, out, views, log, options), runs + 1
        if killed < kills and kill_at_random(process, out, views, rng, points[killed], total):
            killed += 1
            continue
        status = process.wait(timeout=SLOW_RUN_LIMIT)
        assert status == 0, f"run {runs} (after {killed} kills) exited {status}:\n{tail(log)}"
        if killed >= kills:
            return runs


def main(argv: list[str] | None = None) -> int:
    from spark_impl.session import build_session
    from tests.spark.test_pipeline import (
        KILLED_VIEWS,
        check_killed_views,
        random_batches,
        random_graph_batches,
        write_killed_inputs,
    )

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--view", action="append", choices=KILLED_VIEWS,
                        help="a view to maintain (repeat for several; default reduce:sum)")
    parser.add_argument("--seeds", default="1-10", help="a range A-B of seeds, one soak each")
    parser.add_argument("--kills", type=int, default=10, help="kills per seed")
    parser.add_argument("--files", type=int, default=16, help="input files per seed")
    parser.add_argument("--work", default="pipeline-kill-soak", help="folder for inputs, outputs, logs")
    args = parser.parse_args(argv)
    views = args.view or ["reduce:sum"]
    spark = build_session(app_name="pipeline-kill-soak")  # reads the views at the end
    first, _, last = args.seeds.partition("-")
    for seed in range(int(first), int(last or first) + 1):
        base = Path(args.work).absolute() / f"seed-{seed}"
        inp, out = base / "in", base / "out"
        batches = random_batches(seed=seed, count=args.files)
        graph = random_graph_batches(seed=seed, count=args.files)
        write_killed_inputs(inp, batches, graph)
        runs = run_with_kills(inp, out, views, args.kills, random.Random(seed), base)
        check_killed_views(spark, out, views, batches, graph)
        print(f"seed {seed}: {args.kills} kills in {runs} runs; {', '.join(views)}: each view and "
              "every published change exact", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
