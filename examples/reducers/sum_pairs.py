"""Sum of pairs: (total, count), e.g. to maintain a mean; an object with initial,
add and remove attributes. Domains inferred from the hints: tuple[int, int]."""


#: Verdicts by hand: (Z × Z, +) is a group, so every law holds: def2-add and def2-remove (the
#: operations commute), def7, def7-global and def7-skipdoc ((a ⊕ v) ⊖ v = a and
#: (a ⊖ v) ⊕ v = a for every a), def11 (SKIP-THM-2), pure (new values each call).
class SumPairs:
    def __init__(self) -> None:
        self.initial = (0, 0)

    def add(self, acc: tuple[int, int], v: tuple[int, int]) -> tuple[int, int]:
        return (acc[0] + v[0], acc[1] + v[1])

    def remove(self, acc: tuple[int, int], v: tuple[int, int]) -> tuple[int, int]:
        return (acc[0] - v[0], acc[1] - v[1])


sum_pairs = SumPairs()
