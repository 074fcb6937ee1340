"""PNG plots of a results file (matplotlib, log scales).

Per benchmark (``reduce``, ``reach``), two panels: median per-batch time
against the stored size at one batch size (min-max as error bars), and
against the batch size at the largest stored size; one line per engine, so
incremental, recompute, oracle and peers sit side by side.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

STYLE: dict[str, str | tuple[int, tuple[int, ...]]] = {  # role -> line style; engines of one role share it, colours differ
    "incremental": "-", "floor": (0, (5, 1, 1, 1)), "recompute": "--", "peer": ":", "oracle-incremental": "-.", "oracle-naive": "-.",
}


def points(runs: Iterable[dict[str, Any]], bench: str, shape: str | None = None
           ) -> dict[str, dict[tuple[int, int], dict[str, Any]]]:
    """engine -> (size, batch) -> batch entry, over the ok runs of ``bench``
    (graphs: of one ``shape``)."""
    out: dict[str, dict[tuple[int, int], dict[str, Any]]] = {}
    for run in runs:
        if run["bench"] != bench or run["status"] != "ok":
            continue
        if shape is not None and run["workload"].get("shape", run["workload"].get("skew")) != shape:
            continue
        for b in run["batches"]:
            if b.get("samples_s"):
                out.setdefault(run["engine"], {})[(run["size"], b["batch"])] = b | {"role": run["role"]}
    return out


def main_shape(runs: list[dict[str, Any]], bench: str) -> str | None:
    """The workload shape with the most sizes (the scaling series)."""
    sizes: dict[str, set[int]] = {}
    for run in runs:
        if run["bench"] == bench:
            shape = run["workload"].get("shape", run["workload"].get("skew"))
            sizes.setdefault(shape, set()).add(run["size"])
    return max(sizes, key=lambda s: len(sizes[s])) if sizes else None


def plot(results: dict[str, Any], bench: str, path: str) -> str | None:
    """Write ``path`` (PNG) for ``bench``; None when the results hold no such runs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shape = main_shape(results["runs"], bench)
    data = points(results["runs"], bench, shape)
    if not data:
        return None
    sizes = sorted({s for per in data.values() for s, _ in per})
    batches = sorted({b for per in data.values() for _, b in per})
    fixed_batch = _most_common_batch(data, batches)
    largest = max(sizes)
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.6))
    unit = "rows" if bench == "reduce" else "edges"
    for index, (engine, per) in enumerate(sorted(data.items())):
        colour = f"C{index % 10}"  # one colour per engine in both panels
        role = next(iter(per.values()))["role"]
        style = STYLE.get(role, "-")
        by_size = sorted((s, e) for (s, b), e in per.items() if b == fixed_batch)
        by_batch = sorted((b, e) for (s, b), e in per.items() if s == largest)
        for ax, chosen in ((left, by_size), (right, by_batch)):
            if not chosen:
                continue
            xs = [x for x, _ in chosen]
            med = [e["median_s"] for _, e in chosen]
            lo = [e["median_s"] - e["min_s"] for _, e in chosen]
            hi = [e["max_s"] - e["median_s"] for _, e in chosen]
            ax.errorbar(xs, med, yerr=[lo, hi], linestyle=style, marker="o", capsize=3, label=engine,
                        color=colour)
    left.set_title(f"{bench} ({shape}): per-batch time, {fixed_batch:,} changes per batch")
    left.set_xlabel(f"stored size ({unit})")
    right.set_title(f"{bench} ({shape}): per-batch time at {largest:,} {unit}")
    right.set_xlabel("changes per batch")
    for ax in (left, right):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_ylabel("seconds per batch (median, min-max)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    load = results.get("machine", {}).get("load_average")
    fig.suptitle(f"{results.get('name', '')}: {results.get('machine', {}).get('cores')} cores, "
                 f"load average at start {load[0]:.1f}" if load else results.get("name", ""), fontsize=9)
    fig.tight_layout()
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def _most_common_batch(data: dict[str, dict[tuple[int, int], dict[str, Any]]], batches: list[int]) -> int:
    """The batch size measured at the most (engine, size) points (ties: the nearest to 1,000)."""
    counts = {b: sum(1 for per in data.values() for _, bb in per if bb == b) for b in batches}
    return max(batches, key=lambda b: (counts[b], -abs(b - 1_000)))
