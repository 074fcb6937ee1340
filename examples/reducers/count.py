"""Count (SKIP §6.2): R_count = (0, λ(a, v). a + 1, λ(a, v). a - 1). A class: it is
instantiated with no arguments; the values (ignored) are strings by the type hint."""


class Count:
    initial = 0

    def add(self, acc: int, v: str) -> int:
        return acc + 1

    def remove(self, acc: int, v: str) -> int:
        return acc - 1
