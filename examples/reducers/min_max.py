"""Min and max with a declining remove (SKIP §6.3, partial reducers): remove
returns None ("recompute this key") when the removed value could be the
current extremum, as Skip's built-in Min does when it is <= the minimum.
Initial is ±inf, so the accumulators are floats with infinities:
--values float --acc 'float[inf]'."""

import math


class Min:
    initial = math.inf

    @staticmethod
    def add(acc: float, v: float) -> float:
        return min(acc, v)

    @staticmethod
    def remove(acc: float, v: float) -> float | None:
        return None if v <= acc else acc


class Max:
    initial = -math.inf

    @staticmethod
    def add(acc: float, v: float) -> float:
        return max(acc, v)

    @staticmethod
    def remove(acc: float, v: float) -> float | None:
        return None if v >= acc else acc
