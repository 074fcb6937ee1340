"""The stored-size guard: no figure unless the engine stores what the generator meant.

A benchmark's meaning is its stored size: an engine holding 10^5 distinct
rows is not being measured at 10^7, whatever the generator's loop counted.
After the initial load (and again after the last batch) every engine reports
what it *stores* (distinct ``(k, v)`` rows and keys of the view; distinct
edges and live nodes), measured by the engine itself (a count over its own
state), and :func:`check` compares it with the generator's
:class:`~benchmarks.workloads.Intent`. A mismatch raises
:class:`StoredSizeMismatch`, and the harness records the series as *refused*
with the figures side by side instead of reporting timings.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from benchmarks.workloads import Intent


class StoredSizeMismatch(Exception):
    """The stored size disagrees with the generator's intent (or two engines disagree)."""

    def __init__(self, engine: str, problems: list[str]) -> None:
        self.engine = engine
        self.problems = problems
        super().__init__(f"{engine}: refusing to report: " + "; ".join(problems))


def check(engine: str, intent: Intent, measured: Mapping[str, float],
          only: tuple[str, ...] | None = None) -> None:
    """Raise :class:`StoredSizeMismatch` unless every expected size (or those in
    ``only``) is measured and within its bound."""
    problems = []
    for name, bound in intent.expected.items():
        if only is not None and name not in only:
            continue
        if name not in measured:
            problems.append(f"{name}: not reported by the engine (expected {bound.describe()})")
        elif not bound.holds(measured[name]):
            problems.append(f"stored {name} = {measured[name]:,.0f}, expected {bound.describe()} "
                            f"(nominal: {_nominal(intent)})")
    if problems:
        raise StoredSizeMismatch(engine, problems)


def check_agree(engine: str, reference: str, mine: Mapping[str, float],
                theirs: Mapping[str, float]) -> None:
    """Two engines fed the same stream must store the same sizes."""
    problems = [f"stored {name} = {mine[name]:,.0f}, but {reference} stores {theirs[name]:,.0f}"
                for name in sorted(set(mine) & set(theirs)) if mine[name] != theirs[name]]
    if problems:
        raise StoredSizeMismatch(engine, problems)


def measure_rows(k: np.ndarray, v: np.ndarray) -> dict[str, float]:
    """Stored sizes of a collection given as columns: distinct ``(k, v)`` rows and keys."""
    pairs = np.unique(np.stack([np.asarray(k), np.asarray(v)], axis=1), axis=0)
    return {"rows": float(len(pairs)), "keys": float(np.unique(pairs[:, 0]).size)}


def _nominal(intent: Intent) -> str:
    shown = {k: v for k, v in intent.nominal.items() if k in ("rows", "keys", "values_per_key",
                                                              "edges", "nodes", "shape", "skew")}
    return ", ".join(f"{k}={v:,}" if isinstance(v, int) else f"{k}={v}" for k, v in shown.items())
