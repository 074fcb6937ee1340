"""A class-data archive for the Spark JVMs this installation starts (HotSpot's application
class-data sharing, AppCDS): the classes a Spark application loads, parsed and verified once
and then mapped into every driver JVM instead of loaded again from Spark's jars.

A JVM over small data lives seconds to minutes, and starting it is much of its cost: a
session that runs one small job costs some 14 CPU seconds over 10 s, 9.5 over 6 s with the
archive (``python -m spark_impl.class_archive --measure``). The tests and the conformance
suite start dozens of such JVMs (each pytest worker's session, every pipeline or scenario
run in a process of its own).

The archive is built once per installation (``python -m spark_impl.class_archive``; the
project's ``scripts/ensure-venv`` does it after installing): a training application in a
process of its own runs a little of everything the engines do (DataFrame queries, Parquet,
Arrow and pandas UDFs, RDD checkpoints, a streaming aggregation on the RocksDB state store)
with ``-XX:ArchiveClassesAtExit``, writing the archive aside and renaming it into place (a
JVM mapping a partly written archive crashes). :func:`java_options` then gives a driver the
archive. The JVM checks the archive against itself and its class path (the JDK's build, each
jar's size and time): a JVM it does not fit (another JDK, the jars reinstalled, a
``$SPARK_CONF_DIR`` first on the class path) runs without it, silently (the options turn
its ``cds`` log off). No archive, no options: nothing depends on it but start-up time.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: set to a path by :func:`build` in the training process: its driver dumps the archive there
DUMP_ENV = "INCSPEC_CLASS_ARCHIVE_DUMP"
#: set to ``0``: no archive is used (to measure without it)
USE_ENV = "INCSPEC_CLASS_ARCHIVE"
#: HotSpot's own log of class sharing off: an archive that does not fit is not an error
QUIET = "-Xlog:cds=off -Xlog:cds+dynamic=off"


def archive_path() -> Path:
    """Where this installation's archive is: under the Python environment's prefix, named
    after the pyspark installation it was built from (its version and place)."""
    import pyspark

    jars = Path(pyspark.__file__).resolve().parent / "jars"
    digest = hashlib.sha256(f"{pyspark.__version__}\0{jars}".encode()).hexdigest()[:12]
    return Path(sys.prefix) / "share" / "incspec" / f"spark-classes-{digest}.jsa"


def java_options() -> str:
    """A driver JVM's options for class sharing: dumping the archive in the training process,
    else mapping it if it exists (and :data:`USE_ENV` is not ``0``), else none."""
    dump = os.environ.get(DUMP_ENV)
    if dump:
        return f"-XX:ArchiveClassesAtExit={dump} {QUIET}"
    if os.environ.get(USE_ENV, "1") == "0":
        return ""
    path = archive_path()
    return f"-XX:SharedArchiveFile={path} {QUIET}" if path.is_file() else ""


def on_this_machine(master: str) -> bool:
    """Whether ``master``'s executors run on this machine, where the archive is: a local
    master, or a standalone one at a loopback address (a cluster started here)."""
    host = master.split("://", 1)[-1].split(":", 1)[0]
    return master.startswith("local") or (master.startswith("spark://") and host in ("127.0.0.1", "localhost"))


def _train() -> None:
    """The training application: a little of every kind of work the engines give Spark."""
    from pyspark.sql import functions as F
    from pyspark.sql.pandas.functions import pandas_udf

    from spark_impl.session import build_session

    spark = build_session(app_name="incspec-class-archive", small_data=True)
    with tempfile.TemporaryDirectory(prefix="incspec-class-archive-") as scratch:
        folder = Path(scratch)
        rows = spark.createDataFrame([(i % 7, i, str(i)) for i in range(200)], "k long, v long, s string")
        other = spark.range(50).select((F.col("id") % 7).alias("k"), F.col("id").alias("w"))

        upper = pandas_udf(lambda s: s.str.upper(), "string")  # type: ignore[call-overload]
        joined = rows.join(other, "k").groupBy("k").agg(F.sum("v").alias("sv"), F.count("w").alias("n"),
                                                       F.collect_list("s").alias("ss"), F.max(upper("s")))
        joined.orderBy("k").collect()
        rows.union(rows).distinct().repartition("k").sortWithinPartitions("v").localCheckpoint().count()
        spark.sparkContext.setCheckpointDir(str(folder / "rdd"))
        rows.checkpoint().count()
        rows.write.parquet(str(folder / "table"))
        spark.read.parquet(str(folder / "table")).where("v > 3").toPandas()
        inputs = folder / "in"
        inputs.mkdir()
        (inputs / "a.jsonl").write_text("".join(f'{{"key": "k{i % 3}", "weight": 1}}\n' for i in range(20)))
        stream = spark.readStream.schema("key string, weight long").json(str(inputs))
        query = (stream.groupBy("key").agg(F.sum("weight").alias("total")).writeStream
                 .outputMode("update").option("checkpointLocation", str(folder / "checkpoint"))
                 .foreachBatch(lambda batch, _: batch.collect()).trigger(availableNow=True).start())
        query.awaitTermination()
    # the JVM writes the archive as it exits: stop it and wait for it, so that the archive is
    # whole once this process ends (the gateway JVM exits when its standard input closes)
    jvm = spark.sparkContext._gateway.proc
    spark.stop()
    jvm.stdin.close()
    jvm.wait()


def build(path: Path | None = None) -> Path:
    """Build the archive at ``path`` (default :func:`archive_path`): the training application
    in a process of its own, dumping aside; renamed into place once whole."""
    path = path or archive_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    aside = path.with_name(f".{path.name}.{os.getpid()}")
    env = {**os.environ, DUMP_ENV: str(aside)}
    done = subprocess.run([sys.executable, "-m", "spark_impl.class_archive", "--train"], env=env,
                          capture_output=True, text=True)
    try:
        if done.returncode != 0 or not aside.is_file():
            raise RuntimeError(f"the training application failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
        os.replace(aside, path)
    finally:
        aside.unlink(missing_ok=True)
    return path


def _measure() -> None:
    """A one-job application's start, run and stop, timed with the archive and without."""
    script = ("from spark_impl.session import build_session\n"
              "s = build_session(app_name='incspec-start', small_data=True)\n"
              "s.range(100).selectExpr('id % 3 as k').groupBy('k').count().collect()\n"
              "s.stop()\n")
    for use in ("0", "1", "0", "1"):
        start = time.monotonic()
        subprocess.run([sys.executable, "-c", script], env={**os.environ, USE_ENV: use},
                       capture_output=True, check=True)
        print(f"archive {'used' if use == '1' else 'not used'}: {time.monotonic() - start:.1f} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m spark_impl.class_archive", description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--measure", action="store_true", help="time an application's start with and without it")
    group.add_argument("--train", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.train:
        _train()
        return 0
    if args.measure:
        _measure()
        return 0
    start = time.monotonic()
    print("building the Spark JVM's class archive (about half a minute) ...", file=sys.stderr)
    path = build()
    print(f"class archive: {path} ({path.stat().st_size >> 20} MB, {time.monotonic() - start:.0f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
