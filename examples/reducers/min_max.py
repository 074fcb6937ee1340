"""Min and max with a declining remove (SKIP §6.3, partial reducers): remove
returns None ("recompute this key") when the removed value could be the
current extremum, as Skip's built-in Min does when it is <= the minimum.
Initial is ±inf, so the accumulators are floats with infinities:
--values float --acc 'float[inf]'."""

import math


#: Verdicts by hand: def2-add holds (min commutes); def2-remove holds (it answers only
#: with a unchanged); def7, def7-global: remove answers only when v is above a, and then
#: a ⊕ v = a, so (a ⊕ v) ⊖ v = a; def7-skipdoc: remove answers a only when v is above a,
#: and add(a, v) = a then; def11 holds (every answer is right); pure holds.
class Min:
    initial = math.inf

    @staticmethod
    def add(acc: float, v: float) -> float:
        return min(acc, v)

    @staticmethod
    def remove(acc: float, v: float) -> float | None:
        return None if v <= acc else acc


#: Verdicts by hand: def2-add holds (max commutes); def2-remove holds (it answers only
#: with a unchanged); def7, def7-global: remove answers only when v is below a, and then
#: a ⊕ v = a, so (a ⊕ v) ⊖ v = a; def7-skipdoc: remove answers a only when v is below a,
#: and add(a, v) = a then; def11 holds (every answer is right); pure holds.
class Max:
    initial = -math.inf

    @staticmethod
    def add(acc: float, v: float) -> float:
        return max(acc, v)

    @staticmethod
    def remove(acc: float, v: float) -> float | None:
        return None if v >= acc else acc
