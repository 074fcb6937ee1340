"""The Z-set ``iterate`` benchmark on a tiny graph: its JSON results file and the
performance page's table generated from it (a real run: the engine, both recomputes, the checks)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks import report, zset_iterate_bench

pytestmark = pytest.mark.spark


@pytest.mark.heavy
def test_a_tiny_run_writes_results_and_the_report_renders_them(spark: Any, tmp_path: Path) -> None:
    out = tmp_path / "zset.json"
    zset_iterate_bench.main(["--sizes", "40", "--repeats", "1", "--out", str(out)])
    results = json.loads(out.read_text())
    assert results["benchmark"] == "zset_iterate_bench" and results["params"]["sizes"] == [40]
    (row,) = results["rows"]
    assert row["nominal_edges"] == 40 and 0 < row["edges"] <= 40 and 0 < row["live"] <= row["edges"] + 1
    assert row["update_jobs"] > 0 and row["recompute_iterations"] >= 1
    assert row["recompute_per_delete"] == row["recompute_s"] / row["delete_s"]
    table = report.zset_iterate_markdown(results, "zset.json")
    assert f"| {row['edges']:,} | {row['live']:,} |" in table
    assert "--repeats 1 --sizes 40" in table


def _results(rows: list[dict[str, Any]], commit: str = "abc1234") -> dict[str, Any]:
    return {"benchmark": "zset_iterate_bench", "machine": {"commit": commit, "cores": 2, "memory_bytes": 2**34,
                                                           "versions": {"pyspark": "4"}},
            "params": {"repeats": 3, "sizes": [r["nominal_edges"] for r in rows]}, "rows": rows}


def _row(n: int, **extra: Any) -> dict[str, Any]:
    return {"nominal_edges": n, "edges": n, "live": n // 4, "load_s": 1.0, "insert_s": 2.0, "delete_s": 2.0,
            "recompute_s": 4.0, "native_s": 1.0, "recompute_per_insert": 2.0, "recompute_per_delete": 2.0,
            "update_jobs": 30, "update_iterations": 8, "recompute_iterations": 7, **extra}


def test_append_keeps_the_other_sizes_rows_with_their_run_and_refuses_another_benchmark(tmp_path: Path) -> None:
    """``--append``: the earlier file's rows of sizes not measured again are kept,
    each labelled with its run's commit and driver memory (1g, Spark's default,
    when the file predates the option); a file of another repeat count is refused,
    and the report shows each row's run once the rows come from several."""
    earlier = tmp_path / "zset.json"
    earlier.write_text(json.dumps(_results([_row(100), _row(1000)])))
    kept = zset_iterate_bench.earlier_rows(str(earlier), 3, (1000,))
    assert kept == [{"commit": "abc1234", "driver_memory": "1g", **_row(100)}]
    assert zset_iterate_bench.earlier_rows(str(tmp_path / "absent.json"), 3, (1000,)) == []
    with pytest.raises(SystemExit, match="repeats 5"):
        zset_iterate_bench.earlier_rows(str(earlier), 5, (1000,))
    merged = _results([*kept, _row(1000, commit="def5678", driver_memory="6g")])
    table = report.zset_iterate_markdown(merged, "zset.json")
    assert "| commit | driver memory |" in table
    assert "| abc1234 | 1g |" in table and "| def5678 | 6g |" in table
    single = report.zset_iterate_markdown(_results([_row(100)]), "zset.json")
    assert "commit" not in single.split("\n\n")[1].splitlines()[0]  # one run: no per-row columns
