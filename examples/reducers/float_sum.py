"""Sum over floats: well-formed in exact arithmetic, broken by rounding.

(0.1 + 0.2) + 0.3 != (0.1 + 0.3) + 0.2 in IEEE-754 doubles, so ⊕ is not
pairwise commutative and (a + v) - v != a. The checker finds this and says so;
with --rel-tol/--abs-tol it checks the weaker "equal up to a tolerance".
"""

from reference.reduce import Reducer


def add(acc: float, v: float) -> float:
    return acc + v


def remove(acc: float, v: float) -> float:
    return acc - v


float_sum = Reducer(0.0, add, remove, "float_sum")
