"""A maintained ``sum`` view over change files, run the same way on any session: classic
(``local[2]``) or Spark Connect (``sc://...``). Run as a process of its own by
tests/cluster/test_connect.py (a process has one kind of session):

    python -m tests.cluster.connect_scenario MASTER_OR_URL INPUT WORK

Each file of ``INPUT`` (``key, value, weight`` JSON lines, distinct modification times) is
one micro-batch; each micro-batch's changes are written by the ``foreachBatch`` sink to
``WORK/changes/<batch id>`` (on the server, over Spark Connect), and the whole view, read
from the checkpoint's state, is printed as one JSON line ``{"view": ..., "changes": ...}``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame

from spark_impl.reduce.maintained_view import maintained_view
from spark_impl.session import build_session


def rows(frame: DataFrame) -> list[list[Any]]:
    """The frame's rows as sorted lists of plain values (the accumulators are integers)."""
    return sorted([[r[0], *(int(x) if x is not None and not isinstance(x, bool) else x for x in r[1:])]
                   for r in frame.collect()], key=repr)


def main(master: str, input_dir: str, work: str) -> None:
    spark = build_session(master, app_name="incspec-connect-scenario")
    source = (spark.readStream.schema("key string, value bigint, weight bigint")
              .option("maxFilesPerTrigger", 1).json(input_dir))
    view = maintained_view(source, "sum")
    changes_root = f"{work}/changes"

    def sink(changes: DataFrame, batch_id: int) -> None:
        changes.write.mode("overwrite").parquet(f"{changes_root}/{batch_id}")

    checkpoint = f"{work}/checkpoint"
    query = (view.updates.writeStream.outputMode("update").foreachBatch(view.foreach_batch(sink))
             .option("checkpointLocation", checkpoint).trigger(availableNow=True).start())
    query.awaitTermination()
    batches = sorted(int(p.name) for p in Path(changes_root).iterdir())
    changes = {b: rows(spark.read.parquet(f"{changes_root}/{b}")) for b in batches}
    print(json.dumps({"view": rows(view.read_view(spark, checkpoint)), "changes": changes}))


if __name__ == "__main__":
    main(*sys.argv[1:4])
