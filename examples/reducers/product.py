"""Product over non-zero rationals: a group, so ⊖ (division) inverts ⊕ everywhere.
A class with static methods; check it with --values 'fraction[nonzero]'."""

from fractions import Fraction


class Product:
    initial = Fraction(1)

    @staticmethod
    def add(acc: Fraction, v: Fraction) -> Fraction:
        return acc * v

    @staticmethod
    def remove(acc: Fraction, v: Fraction) -> Fraction:
        return acc / v
