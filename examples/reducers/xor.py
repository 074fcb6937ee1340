"""Xor over 3-bit integers, as a triple (initial, add, remove): every value is its
own inverse. With --values 'int[0..7]' --acc 'int[0..7]' both domains are finite,
so the exhaustive engine decides the laws quantified over them."""


def add(acc: int, v: int) -> int:
    return acc ^ v


xor = (0, add, add)
