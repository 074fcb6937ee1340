"""Sum over integers (SKIP §6.1): R_sum = (0, λ(a, v). a + v, λ(a, v). a - v).

The domains are inferred from the type hints: values and accumulators are ints.
"""

from reference.reduce import Reducer


def add(acc: int, v: int) -> int:
    return acc + v


def remove(acc: int, v: int) -> int:
    return acc - v


sum_int = Reducer(0, add, remove, "sum")
