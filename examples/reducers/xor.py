"""Xor over 3-bit integers, as a triple (initial, add, remove): every value is its
own inverse. With --values 'int[0..7]' --acc 'int[0..7]' both domains are finite,
so the exhaustive engine decides the laws quantified over them."""


def add(acc: int, v: int) -> int:
    return acc ^ v


#: Verdicts by hand: (Z_8, xor) is a group, each value its own inverse, so every law holds: def2-add and def2-remove (the
#: operations commute), def7, def7-global and def7-skipdoc ((a ⊕ v) ⊖ v = a and
#: (a ⊖ v) ⊕ v = a for every a), def11 (SKIP-THM-2), pure (new values each call).
#: On these finite domains every line is decided.
xor = (0, add, add)
