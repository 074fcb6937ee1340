"""Plots and the performance page's tables are generated from a results file (tiny real runs
of the oracle)."""

from __future__ import annotations

import json
import re
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from benchmarks import harness, report
from benchmarks.engines import Graph, OracleReach, OracleReduce, Table
from benchmarks.measure import machine
from benchmarks.plots import plot
from benchmarks.workloads import GraphWorkload, ReduceWorkload


def _results() -> dict[str, Any]:
    runs = []
    for rows in (2_000, 4_000):
        workload = ReduceWorkload(rows, rows // 10)
        agreement = harness.Agreement()
        for incremental in (True, False):
            runner = OracleReduce(incremental)
            table = Table(workload.stream().initial(), "unused.parquet")
            runs.append(harness.measure_inprocess("reduce", runner, workload, [(10, 2), (100, 2)],
                                                  partial(runner.load, table), None, agreement,
                                                  lambda _: None))
    for edges in (300, 600):
        gw = GraphWorkload(edges)
        stream = gw.stream()
        graph = Graph(Table(stream.initial(), "unused.parquet"), stream.roots())
        agreement = harness.Agreement()
        for incremental in (True, False):
            reach = OracleReach(incremental)
            runs.append(harness.measure_inprocess("reach", reach, gw, [(4, 2)],
                                                  partial(reach.make, graph), None, agreement, lambda _: None))
    skipped = harness._record("reduce", "pathway-builtin", "peer", ReduceWorkload(2_000, 200))
    skipped.update(status="skipped", reason="not installed")
    runs.append(skipped)
    return {"name": "tiny", "created": "now", "command": "python -m benchmarks.run --quick",
            "machine": machine(), "elapsed_s": 1.0, "load_average_end": [0.0, 0.0, 0.0], "runs": runs}


@pytest.fixture(scope="module")
def results() -> dict[str, Any]:
    out = _results()
    assert all(r["status"] == "ok" for r in out["runs"][:-1]), [r.get("reason") for r in out["runs"]]
    return out


def test_plots_are_pngs(results: dict[str, Any], tmp_path: Path) -> None:
    for bench in ("reduce", "reach"):
        path = plot(results, bench, str(tmp_path / f"{bench}.png"))
        assert path is not None
        assert Path(path).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert plot({"runs": []}, "reduce", str(tmp_path / "none.png")) is None


def test_the_table_shows_each_median_and_ratio_of_the_results(results: dict[str, Any]) -> None:
    table = report.batch_table(results, "reduce")
    by = {(r["engine"], r["size"], b["batch"]): b["median_s"] for r in results["runs"]
          if r["bench"] == "reduce" and r["status"] == "ok" for b in r["batches"]}
    rows = [line for line in table.splitlines() if line.startswith("| uniform")]
    assert len(rows) == 4  # 2 sizes x 2 batch sizes
    for line in rows:
        cells = [c.strip() for c in line.strip("|").split("|")]
        size, batch = int(cells[1].replace(",", "")), int(cells[2].replace(",", ""))
        incremental, naive = by[("oracle-incremental", size, batch)], by[("oracle-naive", size, batch)]
        assert cells[3] == report._ms(incremental) and cells[4] == report._ms(naive)
        assert cells[5] == f"{naive / incremental:.3g}"


def test_the_page_section_is_replaced_between_markers(results: dict[str, Any]) -> None:
    section = report.markdown(results, "benchmarks/results/tiny.json", {"reduce": "r.png"})
    assert "![reduce](r.png)" in section and "pathway-builtin (uniform) at 2,000: **skipped**: not installed" in section
    before = f"# Title\n\n## Performance\n\n{report.BEGIN}\nold table\n{report.END}\n\n## Next\n"
    after = report.update_page(before, section)
    assert "old table" not in after and section in after
    assert after.startswith("# Title\n\n## Performance\n\n") and after.endswith(f"{report.END}\n\n## Next\n")
    assert report.update_page(after, section) == after  # idempotent
    with pytest.raises(ValueError):
        report.update_page("no markers", section)


def test_the_page_links_its_plots_relative_to_itself(results: dict[str, Any], tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The generated part of docs/performance.md shows the plots of benchmarks/results/:
    written into the page, a plot's link is relative to the page's folder."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "benchmarks" / "results").mkdir(parents=True)
    (tmp_path / "docs").mkdir()
    (tmp_path / "benchmarks" / "results" / "tiny.json").write_text(json.dumps(results))
    (tmp_path / "benchmarks" / "results" / "tiny-reduce.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    assert report.plot_link("benchmarks/results/tiny-reduce.png", "docs/performance.md") == \
        "../benchmarks/results/tiny-reduce.png"
    assert report.plot_link("benchmarks/results/tiny-reduce.png", None) == "benchmarks/results/tiny-reduce.png"
    page = tmp_path / "docs" / "performance.md"
    page.write_text(f"# Performance\n\n{report.BEGIN}\n{report.END}\n")
    assert report.main(["benchmarks/results/tiny.json", "--page", "docs/performance.md"]) == 0
    text = page.read_text()
    assert "--page docs/performance.md` (never edited by hand)" in text
    link = re.search(r"!\[reduce\]\(([^)]+)\)", text)
    assert link and link.group(1) == "../benchmarks/results/tiny-reduce.png"
    assert (page.parent / link.group(1)).resolve() == (tmp_path / "benchmarks" / "results" / "tiny-reduce.png")


def test_results_files_record_no_path_of_the_machine_that_ran() -> None:
    """A results file records the run's Spark settings, not the machine's paths: the warehouse
    folder (an absolute path where the benchmark ran) is left out, and no shipped results file
    holds one."""
    import json
    from pathlib import Path

    from benchmarks.run import recorded_conf

    conf = [("spark.sql.shuffle.partitions", "2"), ("spark.master", "local[2]"),
            ("spark.sql.warehouse.dir", "file:/somewhere/spark-warehouse"), ("spark.app.name", "x")]
    assert recorded_conf(conf) == {"spark.sql.shuffle.partitions": "2", "spark.master": "local[2]"}
    results = sorted((Path(__file__).resolve().parents[2] / "benchmarks" / "results").glob("*.json"))
    assert results
    for path in results:
        recorded = json.loads(path.read_text()).get("params", {}).get("spark_conf", {})
        assert "spark.sql.warehouse.dir" not in recorded, path.name
