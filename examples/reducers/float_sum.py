"""Sum over floats: well-formed in exact arithmetic, broken by rounding.

(0.1 + 0.2) + 0.3 != (0.1 + 0.3) + 0.2 in IEEE-754 doubles, so ⊕ is not
pairwise commutative and (a + v) - v != a. The checker finds this and says so;
with --rel-tol/--abs-tol it checks the weaker "equal up to a tolerance".
"""

from reference.reduce import Reducer


#: Verdicts by hand: every law fails by rounding, e.g. def2-add at a = 0.3, v1 = 0.2,
#: v2 = 0.1 ((0.3 + 0.2) + 0.1 = 0.6, (0.3 + 0.1) + 0.2 = 0.6000000000000001), def7 at
#: M = {|0.1|}, v = 0.2 ((0.1 + 0.2) - 0.2 = 0.10000000000000003); pure holds. In the
#: tolerance mode (--rel-tol/--abs-tol 1e-9, bounded floats) every line holds: a weaker property.
def add(acc: float, v: float) -> float:
    return acc + v


def remove(acc: float, v: float) -> float:
    return acc - v


float_sum = Reducer(0.0, add, remove, "float_sum")
