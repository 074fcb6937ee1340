"""``kill -9`` of an ``incspec pipeline`` process at moments tied to its progress.

A kill at a random *wall-clock* moment lands where a machine's speed puts it: on a
loaded machine every kill of a few seconds falls in the JVM's start, and the writes
of a micro-batch are never hit. Here a run is killed, at random, either a pause
(0 to 8 s) after it starts, or once it has committed one more micro-batch (or
reported one done) and a pause (0 to 4 s) later: the kills spread over the start,
a micro-batch's work, its state and commit writes, the snapshots and the end,
whatever the machine's speed. Once every input file is committed only the first
kind is left.

Used by ``tests/spark/test_pipeline.py`` (marker slow); run alone for a longer
soak, over many seeds and a reduce view::

    python -m tests.spark.pipeline_killer --view reduce:min --seeds 1-20
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: seconds between looks at a running pipeline's progress
POLL = 0.2


def view_name(view: str) -> str:
    kind, _, reducer = view.partition(":")
    return f"reduce-{reducer}" if kind == "reduce" else "reach"


def committed(out: Path, view: str) -> int:
    """How many micro-batches of ``view`` the checkpoint under ``out`` has committed."""
    folder = out / "_checkpoint" / view_name(view) / "commits"
    try:
        return sum(1 for name in os.listdir(folder) if name.isdigit())
    except FileNotFoundError:
        return 0


def start(inp: Path, out: Path, view: str, log: Path) -> subprocess.Popen[str]:
    """The pipeline in a process group of its own, its output going to ``log``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with log.open("w") as sink:
        return subprocess.Popen([sys.executable, "-m", "spark_impl.pipeline", "--input", str(inp),
                                 "--output", str(out), "--view", view, "--snapshot-every", "2"],
                                cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT,
                                text=True, start_new_session=True)


def tail(log: Path, lines: int = 80) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


def kill_at_random(process: subprocess.Popen[str], out: Path, view: str, log: Path,
                   rng: random.Random, files: int) -> bool:
    """Kill ``process``'s group at one of the moments of the module docstring; whether it
    was killed (not already ended by itself)."""
    before = committed(out, view)
    after_start = before >= files or rng.random() < 0.25
    pause = rng.uniform(0.0, 8.0) if after_start else rng.uniform(0.0, 4.0)

    def progressed() -> bool:
        return (after_start or committed(out, view) > before
                or "done in" in log.read_text(errors="replace"))

    while process.poll() is None and not progressed():
        time.sleep(POLL)
    time.sleep(pause)
    if process.poll() is not None:
        return False
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    return True


def run_with_kills(inp: Path, out: Path, view: str, kills: int, rng: random.Random,
                   logs: Path) -> int:
    """Run the pipeline over the files of ``inp`` until ``kills`` runs were killed and one
    then ran to its end; every run that ends by itself must exit 0 (else AssertionError with
    the tail of its output). Returns the number of runs."""
    files = len(list(inp.iterdir()))
    killed = runs = 0
    while True:
        log = logs / f"run-{runs:02d}.log"
        process, runs = start(inp, out, view, log), runs + 1
        if killed < kills and kill_at_random(process, out, view, log, rng, files):
            killed += 1
            continue
        status = process.wait(timeout=900)
        assert status == 0, f"run {runs} (after {killed} kills) exited {status}:\n{tail(log)}"
        if killed >= kills:
            return runs


def main(argv: list[str] | None = None) -> int:
    from spark_impl.session import build_session
    from tests.spark.test_pipeline import (
        fold_inputs,
        min_inputs,
        published_prefixes,
        random_batches,
        view_of,
        write_batch,
    )

    folds = {"reduce:sum": fold_inputs, "reduce:min": min_inputs}
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--view", default="reduce:sum", choices=sorted(folds))
    parser.add_argument("--seeds", default="1-10", help="a range A-B of seeds, one soak each")
    parser.add_argument("--kills", type=int, default=10, help="kills per seed")
    parser.add_argument("--files", type=int, default=16, help="input files per seed")
    parser.add_argument("--work", default="pipeline-kill-soak", help="folder for inputs, outputs, logs")
    args = parser.parse_args(argv)
    spark = build_session(app_name="pipeline-kill-soak")  # reads the views at the end
    fold, name = folds[args.view], view_name(args.view)
    first, _, last = args.seeds.partition("-")
    for seed in range(int(first), int(last or first) + 1):
        base = Path(args.work).absolute() / f"seed-{seed}"
        inp, out = base / "in", base / "out"
        batches = random_batches(seed=seed, count=args.files)
        for i, rows in enumerate(batches):
            write_batch(inp, f"b{i:02d}.jsonl", rows, i)
        runs = run_with_kills(inp, out, args.view, args.kills, random.Random(seed), base)
        assert view_of(spark, out, name) == fold(batches), f"seed {seed}: the final view"
        assert published_prefixes(spark, out, batches, name, fold)[-1] == len(batches)
        print(f"seed {seed}: {args.kills} kills in {runs} runs; the view and every published "
              "change exact", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
