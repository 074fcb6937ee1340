"""Tables of a results file, and the generated part of the performance page.

    python -m benchmarks.report benchmarks/results/medium.json            # print the tables
    python -m benchmarks.report benchmarks/results/medium.json --page docs/performance.md
    python -m benchmarks.report benchmarks/results/medium.json benchmarks/results/quick.json --page docs/performance.md

``--page`` replaces what lies between the markers ``<!-- benchmarks:begin -->``
and ``<!-- benchmarks:end -->`` of a Markdown page with the tables and plots of the
files, the plots linked relative to the page: the page's figures are never typed by hand.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from benchmarks.plots import points

BEGIN, END = "<!-- benchmarks:begin -->", "<!-- benchmarks:end -->"
#: the page whose generated part this module writes
PAGE = "docs/performance.md"

#: ratio columns "A ÷ B" (median time of A over median time of B: above 1, B is faster)
RATIOS = {
    "reduce": [("spark-recompute", "spark-builtin"), ("spark-recompute", "spark-bulk"),
               ("spark-builtin", "spark-bulk"), ("spark-recompute", "spark-adaptive"),
               ("spark-builtin", "spark-adaptive"), ("spark-builtin", "spark-native"),
               ("spark-bulk-python", "spark-bulk"), ("spark-python", "spark-bulk-python"),
               ("spark-min", "spark-bulk-min"), ("spark-bulk-min", "spark-bulk"),
               ("spark-builtin", "pathway-builtin"),
               ("spark-python", "pathway-custom"), ("flink-builtin", "pathway-builtin"),
               ("flink-custom", "pathway-custom"), ("flink-builtin", "spark-recompute"),
               ("flink-custom", "spark-recompute"), ("oracle-naive", "oracle-incremental")],
    "reach": [("spark-recompute", "spark-fixpoint"), ("spark-fixpoint", "pathway-iterate"),
              ("spark-recompute", "spark-zset"), ("oracle-naive", "oracle-incremental")],
}
ORDER = ["spark-builtin", "spark-bulk", "spark-adaptive", "spark-python", "spark-bulk-python", "spark-min",
         "spark-bulk-min", "spark-native", "spark-fixpoint", "spark-zset", "spark-recompute",
         "pathway-builtin", "pathway-custom", "pathway-iterate", "flink-builtin", "flink-custom",
         "oracle-incremental", "oracle-naive"]


def _ms(seconds: float) -> str:
    ms = seconds * 1e3
    return f"{ms:,.0f}" if ms >= 100 else f"{ms:.1f}" if ms >= 1 else f"{ms:.2f}"


def _engines(per: dict[str, Any]) -> list[str]:
    return sorted(per, key=lambda e: (ORDER.index(e) if e in ORDER else len(ORDER), e))


def batch_table(results: dict[str, Any], bench: str) -> str:
    """Median ms per batch for each engine, per (workload, stored size, batch), with ratios."""
    shapes = sorted({r["workload"].get("shape", r["workload"].get("skew")) for r in results["runs"]
                     if r["bench"] == bench})
    lines: list[str] = []
    for shape in shapes:
        per = points(results["runs"], bench, shape)
        if not per:
            continue
        engines = _engines(per)
        ratios = [(a, b) for a, b in RATIOS.get(bench, []) if a in per and b in per]
        keys = sorted({k for e in per.values() for k in e})
        head = ["workload", "stored", "changes/batch", *[f"{e} ms" for e in engines],
                *[f"{a} ÷ {b}" for a, b in ratios]]
        lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for size, batch in keys:
            cells = [shape, f"{size:,}", f"{batch:,}"]
            for e in engines:
                entry = per[e].get((size, batch))
                cells.append(_ms(entry["median_s"]) if entry else "")
            for a, b in ratios:
                ea, eb = per[a].get((size, batch)), per[b].get((size, batch))
                cells.append(f"{ea['median_s'] / eb['median_s']:.3g}" if ea and eb else "")
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def throughput_table(results: dict[str, Any], bench: str) -> str:
    """Changes per second (median batch) at the largest stored size of the main workload."""
    from benchmarks.plots import main_shape

    shape = main_shape(results["runs"], bench)
    per = points(results["runs"], bench, shape)
    if not per:
        return ""
    largest = max(s for e in per.values() for s, _ in e)
    batches = sorted({b for e in per.values() for s, b in e if s == largest})
    engines = _engines(per)
    lines = ["| changes/batch | " + " | ".join(f"{e} changes/s" for e in engines) + " |",
             "|" + "---|" * (len(engines) + 1)]
    for b in batches:
        cells = [f"{b:,}"]
        for e in engines:
            entry = per[e].get((largest, b))
            cells.append(f"{entry['changes_per_s']:,.0f}" if entry else "")
        lines.append("| " + " | ".join(cells) + " |")
    return f"{bench} ({shape}, {largest:,} stored):\n\n" + "\n".join(lines) + "\n"


def load_table(results: dict[str, Any], bench: str) -> str:
    """Initial load time and peak memory per engine and stored size."""
    rows = [r for r in results["runs"] if r["bench"] == bench and r["status"] == "ok"]
    if not rows:
        return ""
    lines = ["| engine | workload | stored | load s | driver JVM heap pools' peaks, summed, MB | "
             "driver JVM heap retained after a full GC, MB | benchmark's Python RSS peak MB |",
             "|---|---|---|---|---|---|---|"]
    for r in sorted(rows, key=lambda r: (ORDER.index(r["engine"]) if r["engine"] in ORDER else 99,
                                         _shape(r), r["size"])):
        mem = r.get("memory", {})
        heap, rss = mem.get("jvm_heap_peak_bytes"), mem.get("rss_peak_bytes")
        retained = mem.get("jvm_heap_retained_bytes")
        lines.append(f"| {r['engine']} | {_shape(r)} | {r['size']:,} | {r.get('load_s', 0):.2f} | "
                     f"{_mb(heap)} | {_mb(retained)} | {_mb(rss)} |")
    master = str(results.get("params", {}).get("spark_conf", {}).get("spark.master", "local[2]"))
    whose = ("the executors ran in a JVM of their own (`" + master + "`), so this is the driver's heap alone"
             if master.startswith("local-cluster") else
             "in `" + master + "` mode the executors share the driver's JVM, so this is the whole engine's heap")
    lines.append("")
    lines.append("Each heap pool's peak since the series began, summed: the pools peak at different "
                 "times, so the sum bounds the heap's peak from above (it can exceed the heap's maximum); "
                 f"{whose}. Retained: the heap in use just after a full collection, after the load "
                 "and after the last batch (the larger), what the JVM holds on to. "
                 "The Python process is the benchmark's own, which also generates the rows in pandas.")
    return "\n".join(lines) + "\n"


def _shape(run: dict[str, Any]) -> str:
    return str(run["workload"].get("shape", run["workload"].get("skew")))


def _mb(n: int | None) -> str:
    return f"{n / 2**20:,.0f}" if n else ""


def problems(results: dict[str, Any]) -> str:
    """Runs refused by the guard, failed, skipped, or cut short by the time budget."""
    bad = [r for r in results["runs"] if r["status"] != "ok" or "truncated" in r]
    return "\n".join(f"- {r['bench']} {r['engine']} ({_shape(r)}) at {r['size']:,}: "
                     f"**{r['status'] if r['status'] != 'ok' else 'truncated'}**: "
                     f"{(r.get('reason') or r.get('truncated') or '')[:300]}" for r in bad)


def markdown(results: dict[str, Any], results_path: str, plot_paths: dict[str, str]) -> str:
    m = results["machine"]
    mem = f"{m['memory_bytes'] / 2**30:.0f} GiB" if m.get("memory_bytes") else "?"
    load = m.get("load_average") or []
    load_end = results.get("load_average_end") or []
    parts = [
        f"From `{results_path}`, a run of "
        f"`{results['command']}` ({results['created']}, {results.get('elapsed_s', 0) / 60:.0f} min): "
        f"{m['cores']} cores, {mem}, load average {', '.join(f'{x:.1f}' for x in load)} at the start "
        f"and {', '.join(f'{x:.1f}' for x in load_end)} at the end (a shared machine); "
        f"pyspark {m['versions'].get('pyspark')}, pathway {m['versions'].get('pathway')}, "
        f"apache-flink {m['versions'].get('flink')}, "
        f"Python {m['python']}, Java {m.get('java')}. Times are medians per batch in ms; a ratio "
        f"A ÷ B above 1 means B is faster.",
        "",
    ]
    for bench, title in (("reduce", "Reduce: view (Σ v, count) per key"),
                         ("reach", "Reachability from 10 roots")):
        if not any(r["bench"] == bench for r in results["runs"]):
            continue
        parts += [f"**{title}**", ""]
        if bench in plot_paths:
            parts += [f"![{bench}]({plot_paths[bench]})", ""]
        parts += [batch_table(results, bench), throughput_table(results, bench), load_table(results, bench)]
    bad = problems(results)
    if bad:
        parts += ["Refused, failed, skipped or cut short (the series stops once an engine's "
                  "batches have taken the preset's time budget):", "", bad, ""]
    return "\n".join(parts).rstrip() + "\n"


def _machine_line(results: dict[str, Any]) -> str:
    m = results["machine"]
    mem = f"{m['memory_bytes'] / 2**30:.0f} GiB" if m.get("memory_bytes") else "?"
    return f"{m['cores']} cores, {mem}, pyspark {m['versions'].get('pyspark')}"


def _load(row: dict[str, Any]) -> str:
    """The 1-minute load average before and after a size's measurements."""
    return "–".join(f"{(row.get(k) or [0])[0]:.1f}" for k in ("load_average_before", "load_average_after"))


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head),
            *("| " + " | ".join(r) + " |" for r in rows)]


def reach_engine_markdown(results: dict[str, Any], results_path: str) -> str:
    """The tables of a ``benchmarks.reach_engine_bench --out`` file: single-edge
    updates of the Spark reachability engine against a plain Spark recompute."""
    p = results["params"]
    chains = p.get("chain_length")
    flags = f" --chain-length {chains}" if chains else ""
    update = (f"a chain of {chains} nodes cut off (delete) and hung back (insert)" if chains
              else "an edge from the root to a fresh node added (insert) and removed (delete)")
    rows = results["rows"]
    removal = any("root_removal_s" in r for r in rows)
    head = ["edges (stored)", "live nodes", "make s", "insert s", "delete s", "recompute s",
            "recompute ÷ insert", "recompute ÷ delete", "jobs per insert", "jobs per delete"]
    head += ["root removed s", "root put back s"] if removal else []
    retained = any("driver_heap_retained_mb" in r for r in rows)
    head += ["driver Python MiB"] + (["driver JVM heap retained MiB"] if retained else []) + ["load (1 min)"]
    body = []
    for r in rows:
        cells = [f"{r['edges']:,}", f"{r['live']:,}", f"{r['make_s']:.1f}", f"{r['insert_s']:.2f}",
                 f"{r['delete_s']:.2f}", f"{r['recompute_s']:.2f}", f"{r['recompute_per_insert']:.2f}",
                 f"{r['recompute_per_delete']:.2f}", str(r["insert_jobs"]), str(r["delete_jobs"])]
        if removal:
            cells += [f"{r['root_removal_s']:.2f}" if "root_removal_s" in r else "–",
                      f"{r['root_readd_s']:.2f}" if "root_readd_s" in r else "–"]
        rss = r.get("driver_python_rss_mb")
        cells += [f"{rss:.0f}" if rss is not None else "–"]
        if retained:
            heap = r.get("driver_heap_retained_mb")
            cells += [f"{heap:.0f}" if heap is not None else "–"]
        cells += [_load(r)]
        body.append(cells)
    lines = [
        f"**Reachability engine: single-edge updates, {p['graph']} graphs** (`{results_path}`, "
        f"`python -m benchmarks.reach_engine_bench --graph {p['graph']}{flags} --repeats {p['repeats']} "
        f"--sizes {','.join(str(n) for n in p['sizes'])}"
        + (f" --master '{p['master']}' --executor-memory {p.get('executor_memory')}" if p.get("master") else "")
        + f"`; {_machine_line(results)}, driver memory {p['driver_memory']}). Update: {update}. Medians in seconds over {p['repeats']} updates; "
        "recompute is the live set from scratch by plain Spark rounds over the same stored edges (its live "
        "count checked against the engine's); jobs are the most over the updates"
        + ("; the root removed kills the whole live set, put back derives it again (once each)" if removal
           else "")
        + ("; the driver's JVM heap retained is its heap just after a full collection, at the end of the "
           "size, " + ("the driver's alone (the executors in a JVM of their own)"
                       if str(p.get("master", "")).startswith("local-cluster") else
                       "the executors' too (they share the driver's JVM in local mode)") if retained else "")
        + ".",
        "",
        *_table(head, body),
    ]
    return "\n".join(lines) + "\n"


def zset_iterate_markdown(results: dict[str, Any], results_path: str) -> str:
    """The table of a ``benchmarks.zset_iterate_bench --out`` file: reachability as a
    Z-set program with ``iterate``, single-edge versions against recomputing it."""
    p = results["params"]
    runs = {(r.get("commit"), r.get("driver_memory")) for r in results["rows"]}
    per_run = len(runs) > 1  # rows appended from several runs (--append) say which run they are
    head = ["edges (stored)", "live nodes", "first version s", "insert s", "delete s", "recompute s",
            "plain Spark BFS s", "recompute ÷ insert", "recompute ÷ delete", "jobs per update",
            "iterations per update", "iterations of a recompute", "load (1 min)"]
    head += ["commit", "driver memory"] if per_run else []
    body = [[f"{r['edges']:,}", f"{r['live']:,}", f"{r['load_s']:.1f}", f"{r['insert_s']:.2f}",
             f"{r['delete_s']:.2f}", f"{r['recompute_s']:.2f}", f"{r['native_s']:.2f}",
             f"{r['recompute_per_insert']:.2f}", f"{r['recompute_per_delete']:.2f}", str(r["update_jobs"]),
             str(r["update_iterations"]), str(r["recompute_iterations"]), _load(r)]
            + ([str(r.get("commit")), str(r.get("driver_memory"))] if per_run else []) for r in results["rows"]]
    lines = [
        f"**Z-set reachability by `iterate`: single-edge versions** (`{results_path}`, "
        f"`python -m benchmarks.zset_iterate_bench --repeats {p['repeats']} "
        f"--sizes {','.join(str(n) for n in p['sizes'])}`; {_machine_line(results)}). The program "
        "`X = distinct(roots + snd(snd(dup(X) ⋈ edges)))` on the Spark Z-set engine, power-law graphs, root 0; "
        "insert: an edge from the root to a fresh node as one version, delete: removed again (each output "
        "delta checked); recompute: the program from scratch at the current version (a fresh engine, its "
        f"live count checked). Medians in seconds over {p['repeats']} updates.",
        "",
        *_table(head, body),
    ]
    return "\n".join(lines) + "\n"


def reach_save_markdown(results: dict[str, Any], results_path: str) -> str:
    """The table of a ``benchmarks.reach_save_bench --out`` file: the reach view's state
    saved and restored by its changes against whole."""
    p = results["params"]
    head = ["edges (stored)", "live nodes", "rows saved by changes", "rows saved whole", "save by changes s",
            "save whole s", "whole ÷ changes", "restore by changes s", "restore whole s", "whole ÷ changes",
            "load (1 min)"]
    body = [[f"{r['edges']:,}", f"{r['live']:,}", f"{r['overlay_rows']:,}", f"{r['whole_rows']:,}",
             f"{r['save_changes_s']:.2f}", f"{r['save_whole_s']:.2f}", f"{r['whole_per_changes']:.2f}",
             f"{r['restore_changes_s']:.2f}", f"{r['restore_whole_s']:.2f}",
             f"{r['restore_whole_per_changes']:.2f}", _load(r)] for r in results["rows"]]
    lines = [
        f"**The reach view's state, saved by its changes or whole** (`{results_path}`, "
        f"`python -m benchmarks.reach_save_bench --repeats {p['repeats']} "
        f"--sizes {','.join(str(n) for n in p['sizes'])}`; {_machine_line(results)}, driver memory "
        f"{p['driver_memory']}). Power-law graphs loaded by `make`; then {p['repeats']} times an edge from the "
        "root to a fresh node (one node added, checked) and the same tables saved both ways: by changes (the "
        "overlay, the bases not saved yet, the manifest; old versions deleted) and whole (roots, edges and live "
        "set, as the reach view saved them before). Rows saved by changes: the overlay's, the most over the "
        "updates; whole: the three tables'. Restored once each into a fresh engine (live count checked): by "
        "changes reads the bases, the overlay and the segment index back; whole builds the segment index anew. "
        "Medians in seconds.",
        "",
        *_table(head, body),
    ]
    return "\n".join(lines) + "\n"


def reach_pipeline_markdown(results: dict[str, Any], results_path: str) -> str:
    """The table of a ``benchmarks.reach_pipeline_bench --out`` file: the pipeline's reach
    view loading a graph, and the driver's heap."""
    p = results["params"]
    head = ["edges (stored)", "live nodes", "load s", "restart + one edge s", "driver heap retained MiB",
            "driver heap peak MiB (bound)", "driver heap max MiB", "driver Python MiB", "load (1 min)"]
    body = [[f"{r['edges']:,}", f"{r['live']:,}", f"{r['load_s']:.1f}", f"{r['restart_one_edge_s']:.1f}",
             f"{r['driver_heap_retained_mb']:.0f}", f"{r['driver_heap_peak_mb']:.0f}",
             f"{r['driver_heap_max_mb']:.0f}", f"{r['driver_python_rss_mb']:.0f}", _load(r)]
            for r in results["rows"]]
    lines = [
        f"**`incspec pipeline --view reach` loading a graph, the driver's heap** (`{results_path}`, "
        f"`python -m benchmarks.reach_pipeline_bench --sizes {','.join(str(n) for n in p['sizes'])} "
        f"--master '{p['master']}' --driver-memory {p['driver_memory']} --executor-memory {p['executor_memory']}`; "
        f"{_machine_line(results)}). A power-law graph, root 0, as one Parquet file of edits, loaded by a run "
        "of the pipeline (the view's size checked against a plain Spark recompute); then a file adding one "
        "edge and a second run (the saved state read back; its changes checked). The executors run in JVMs "
        "of their own: the heap is the driver's alone, retained just after a full collection, and its peak "
        "bounded from above by the heap pools' peaks summed.",
        "",
        *_table(head, body),
    ]
    return "\n".join(lines) + "\n"


#: results files written by the single-purpose benchmarks, and their tables
RENDERERS = {"reach_engine_bench": reach_engine_markdown, "zset_iterate_bench": zset_iterate_markdown,
             "reach_save_bench": reach_save_markdown, "reach_pipeline_bench": reach_pipeline_markdown}


def update_page(page: str, section: str) -> str:
    """``page`` with the text between the markers replaced by ``section``."""
    start, end = page.find(BEGIN), page.find(END)
    if start < 0 or end < start:
        raise ValueError(f"the page has no {BEGIN} ... {END} markers")
    return page[: start + len(BEGIN)] + "\n" + section + page[end:]


def plot_link(plot: str, page: str | None) -> str:
    """How ``page`` links to the plot file ``plot`` (both relative to the working folder):
    relative to the page's folder, so that the image shows wherever the page is read."""
    if page is None:
        return plot
    return os.path.relpath(plot, os.path.dirname(os.path.abspath(page))).replace(os.sep, "/")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.report", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="+", help="results files (each gets its own tables)")
    parser.add_argument("--page", help=f"rewrite the generated part of this Markdown page ({PAGE})")
    args = parser.parse_args(argv)
    sections = [f"Generated by `python -m benchmarks.report {' '.join(args.results)} --page {args.page or PAGE}` "
                "(never edited by hand).", ""]
    for path in args.results:
        with open(path) as f:
            results = json.load(f)
        render = RENDERERS.get(results.get("benchmark", ""))
        if render is not None:
            sections.append(render(results, path))
            continue
        base = os.path.splitext(path)[0]
        plots = {b: plot_link(f"{base}-{b}.png", args.page)
                 for b in ("reduce", "reach") if os.path.exists(f"{base}-{b}.png")}
        sections.append(markdown(results, path, plots))
    section = "\n".join(sections)
    if args.page:
        with open(args.page) as f:
            text = f.read()
        with open(args.page, "w") as f:
            f.write(update_page(text, section))
    else:
        print(section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
