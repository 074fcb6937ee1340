"""Product over non-zero rationals: a group, so ⊖ (division) inverts ⊕ everywhere.
A class with static methods; check it with --values 'fraction[nonzero]'."""

from fractions import Fraction


#: Verdicts by hand: (Q \ {0}, ×) is a group, so every law holds: def2-add and def2-remove (the
#: operations commute), def7, def7-global and def7-skipdoc ((a ⊕ v) ⊖ v = a and
#: (a ⊖ v) ⊕ v = a for every a), def11 (SKIP-THM-2), pure (new values each call).
class Product:
    initial = Fraction(1)

    @staticmethod
    def add(acc: Fraction, v: Fraction) -> Fraction:
        return acc * v

    @staticmethod
    def remove(acc: Fraction, v: Fraction) -> Fraction:
        return acc / v
