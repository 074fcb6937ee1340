"""Count (SKIP §6.2): R_count = (0, λ(a, v). a + 1, λ(a, v). a - 1). A class: it is
instantiated with no arguments; the values (ignored) are strings by the type hint."""


#: Verdicts by hand: (a + 1) - 1 = (a - 1) + 1 = a: as for a group, so every law holds: def2-add and def2-remove (the
#: operations commute), def7, def7-global and def7-skipdoc ((a ⊕ v) ⊖ v = a and
#: (a ⊖ v) ⊕ v = a for every a), def11 (SKIP-THM-2), pure (new values each call).
class Count:
    initial = 0

    def add(self, acc: int, v: str) -> int:
        return acc + 1

    def remove(self, acc: int, v: str) -> int:
        return acc - 1
