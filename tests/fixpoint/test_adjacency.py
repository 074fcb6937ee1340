"""The managed fixpoint's adjacency maps (``reference.fixpoint.managed._adjust``): a batch's
pairs removed, then added, each changed key's set rebuilt once, is the pair-by-pair edit
(FIX-DEC-BATCH's order: removals first, then additions)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from reference.algebra.persistent import PMap
from reference.fixpoint.managed import _adjust

nodes = st.sampled_from("abcde")
pairs = st.lists(st.tuples(nodes, nodes), max_size=12)


def pair_by_pair(table: dict[str, frozenset[str]], add: list[tuple[str, str]],
                 remove: list[tuple[str, str]]) -> dict[str, frozenset[str]]:
    out = dict(table)
    for k, v in remove:
        rest = out.get(k, frozenset()) - {v}
        if rest:
            out[k] = rest
        else:
            out.pop(k, None)
    for k, v in add:
        out[k] = out.get(k, frozenset()) | {v}
    return out


@given(st.dictionaries(nodes, st.frozensets(nodes, min_size=1)), pairs, pairs)
def test_a_batch_edit_is_the_pair_by_pair_edit(table: dict[str, frozenset[str]],
                                               add: list[tuple[str, str]],
                                               remove: list[tuple[str, str]]) -> None:
    adjusted = _adjust(PMap(table.items()), add, remove)
    assert dict(adjusted.items()) == pair_by_pair(table, add, remove)
    assert all(adjusted.values())  # no key is left with the empty set


def test_nothing_to_change_gives_the_same_map() -> None:
    table: PMap[str, frozenset[str]] = PMap([("a", frozenset("b"))])
    assert _adjust(table, (), ()) is table
