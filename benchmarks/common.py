"""Timing helpers shared by the benchmarks."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Series:
    """Wall-clock samples of one measured operation, in seconds."""

    label: str
    samples: list[float] = field(default_factory=list)

    def time(self, fn: Callable[[], Any]) -> Any:
        start = time.perf_counter()
        out = fn()
        self.samples.append(time.perf_counter() - start)
        return out

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def mean(self) -> float:
        return statistics.fmean(self.samples)

    def line(self) -> str:
        return (f"{self.label:<48} median {self.median:8.3f} s   mean {self.mean:8.3f} s   "
                f"min {min(self.samples):7.3f}   max {max(self.samples):7.3f}   n={len(self.samples)}")


def ratio(slow: Series, fast: Series) -> float:
    return slow.median / fast.median
