"""Sum over integers (SKIP §6.1): R_sum = (0, λ(a, v). a + v, λ(a, v). a - v).

The domains are inferred from the type hints: values and accumulators are ints.
"""

from reference.reduce import Reducer


def add(acc: int, v: int) -> int:
    return acc + v


def remove(acc: int, v: int) -> int:
    return acc - v


#: Verdicts by hand: (Z, +) is a group, so every law holds: def2-add and def2-remove (the
#: operations commute), def7, def7-global and def7-skipdoc ((a ⊕ v) ⊖ v = a and
#: (a ⊖ v) ⊕ v = a for every a), def11 (SKIP-THM-2), pure (new values each call).
sum_int = Reducer(0, add, remove, "sum")
