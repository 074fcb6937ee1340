"""What a group reducer's state keeps once its keys are emptied (issue 32, finding 8;
SKIP-DEC-SPARK-STATE)."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.spark

KEPT_AT_ZERO = (
    "A group reducer's state is Spark's native streaming aggregation (SKIP-DEC-SPARK-STATE), "
    "whose groups leave the state store only by watermark eviction, which needs an event-time "
    "column (or a window on one) among the grouping columns: a (key, value) group whose "
    "multiplicity falls to 0, and a key whose size does, stay. Deleting them takes an "
    "arbitrary-stateful operator (transformWithState(InPandas), applyInPandasWithState), which "
    "from Python runs the update in Python workers, one state call a group: it would replace the "
    "native aggregation the decision chose by measurement (a JVM processor needs compiled "
    "classes, a jar the project does not ship). Not done: issue 32, finding 8, left open.")


@pytest.mark.spec("SKIP-DEC-SPARK-STATE", evidence="example")
@pytest.mark.xfail(strict=True, raises=AssertionError, reason=KEPT_AT_ZERO)
@pytest.mark.heavy
def test_a_group_view_whose_keys_are_all_emptied_keeps_no_state_rows(spark: Any, tmp_path: Any) -> None:
    """N keys get two values each, then lose them: the view is empty, and so should be the
    state store (rows read through the state data source)."""
    from spark_impl.reduce.view_runner import ViewRunner

    root, rows = f"file://{tmp_path}", "k bigint, v bigint, w bigint"
    seen: list[dict[int, Any]] = []
    runner = ViewRunner(spark, "sum", "bigint", "bigint", root, lambda changes, _: seen.append(
        {r["key"]: r["accumulator"] if r["present"] else None for r in changes.collect()}))
    try:
        keys = range(5)
        runner.step(spark.createDataFrame([(k, v, 1) for k in keys for v in (10, 20)], rows))
        runner.step(spark.createDataFrame([(k, v, -1) for k in keys for v in (10, 20)], rows))
        assert seen[-1] == dict.fromkeys(keys) and runner.read_view().count() == 0
        assert runner.stored_sizes() == {"rows": 0, "keys": 0}  # live rows: none
        stored = spark.read.format("statestore").load(f"{root}/checkpoint").count()
        assert stored == 0, f"{stored} state rows kept for an empty view"
    finally:
        runner.stop()
