"""The SparkSession: embedded ``local[2]`` by default, any cluster by master URL.

The master comes from the ``master`` argument, else ``$INCSPEC_SPARK_MASTER``,
else ``local[2]``. Nothing is downloaded at run time (no ``spark.jars.packages``):
only what the pyspark wheel ships.
"""

from __future__ import annotations

import os
import sys
import tempfile
from typing import Any

DEFAULT_MASTER = "local[2]"

#: Settings measured to suit small iterative jobs on 2 cores (see DESIGN.md).
LOCAL_CONF: dict[str, str] = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "2",
    "spark.default.parallelism": "2",
    "spark.sql.adaptive.enabled": "false",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.driver.host": "127.0.0.1",
    "spark.sql.session.timeZone": "UTC",
}


def build_session(master: str | None = None, app_name: str = "incspec",
                  conf: dict[str, str] | None = None) -> Any:
    """Get or create the process's SparkSession (one per process, never per test)."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    master = master or os.environ.get("INCSPEC_SPARK_MASTER", DEFAULT_MASTER)
    if master.startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.master(master).appName(app_name)
    settings = dict(LOCAL_CONF) if master.startswith("local") else {}
    settings.update(conf or {})
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    if not spark.sparkContext.getCheckpointDir():
        spark.sparkContext.setCheckpointDir(tempfile.mkdtemp(prefix="incspec-ckpt-"))
    return spark
