"""FIX-DEC-PERSISTENT-STATE: the persistent set and map behave as the frozenset and the
read-only dict they replace, every version stays valid after later updates, and an
update of the managed fixpoint shares what it does not touch."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.algebra.persistent import PMap, PSet
from reference.fixpoint.general_pattern import Edge, Elem
from reference.fixpoint.managed import Change, ManagedFixpoint
from tests.fixpoint.strategies import changes, graphs

Graph = tuple[frozenset[Elem], frozenset[Edge]]
key = st.integers(0, 9)
set_ops = st.lists(st.tuples(st.booleans(), key), max_size=30)  # (add?, element)
map_ops = st.lists(st.tuples(key, st.none() | st.integers(0, 3)), max_size=30)  # None: delete


def assert_same_set(p: PSet[int], f: frozenset[int]) -> None:
    assert p == f and f == p and not (p != f)
    assert hash(p) == hash(f) and {f: "v"}[p] == "v"  # interchangeable as a key
    assert len(p) == len(f) and set(p) == f and frozenset(p) == f
    assert all(x in p for x in f) and all((x in p) == (x in f) for x in range(-1, 11))


def assert_same_map(p: PMap[int, int], d: dict[int, int]) -> None:
    assert p == d and d == p and not (p != d) and dict(p) == d
    assert len(p) == len(d) and set(p) == set(d) and dict(p.items()) == d
    for k in range(-1, 11):
        assert (k in p) == (k in d) and p.get(k) == d.get(k) and p.get(k, -7) == d.get(k, -7)
        if k in d:
            assert p[k] == d[k]
        else:
            with pytest.raises(KeyError):
                p[k]


@pytest.mark.spec("FIX-DEC-PERSISTENT-STATE", evidence="property")
@given(st.frozensets(key), set_ops)
def test_a_persistent_set_is_the_frozenset_of_its_elements_at_every_version(
        start: frozenset[int], ops: list[tuple[bool, int]]) -> None:
    versions = [(PSet(start), start)]
    draft, model = versions[0][0].evolver(), set(start)
    for add, x in ops:
        if add:
            draft.add(x)
            model.add(x)
        else:
            draft.discard(x)
            model.discard(x)
        assert (x in draft) == (x in model) and len(draft) == len(model)
        versions.append((draft.persistent(), frozenset(model)))
    for p, f in versions:  # every version is still the set it was when it was made
        assert_same_set(p, f)
    p, f = versions[-1]
    assert p - {0} == f - {0} and (p | {0}) == (f | {0}) and (p & {0, 1}) == (f & {0, 1})
    assert PSet(p) == p and PSet(f) == p


@pytest.mark.spec("FIX-DEC-PERSISTENT-STATE", evidence="property")
@given(st.dictionaries(key, st.integers(0, 3)), map_ops)
def test_a_persistent_map_is_the_dict_of_its_items_at_every_version(
        start: dict[int, int], ops: list[tuple[int, int | None]]) -> None:
    versions = [(PMap(start), dict(start))]
    draft, model = versions[0][0].evolver(), dict(start)
    direct = versions[0][0]  # the same edits one at a time with set and discard
    for k, v in ops:
        if v is None:
            draft.discard(k)
            model.pop(k, None)
            direct = direct.discard(k)
        else:
            draft[k] = v
            model[k] = v
            direct = direct.set(k, v)
        assert (k in draft) == (k in model) and draft.get(k) == model.get(k) and len(draft) == len(model)
        versions.append((draft.persistent(), dict(model)))
        versions.append((direct, dict(model)))
    for p, d in versions:
        assert_same_map(p, d)
    assert PMap(versions[-1][0]) == versions[-1][1] == PMap(versions[-1][1].items())


@pytest.mark.spec("FIX-DEC-PERSISTENT-STATE", evidence="property")
@given(graphs(), st.lists(changes(), max_size=6))
def test_every_earlier_managed_fixpoint_keeps_its_values(g: Graph, batches: list[Change]) -> None:
    """Values recorded when each version was made are the values it still has after
    every later update (the versions share their structure)."""
    m, _ = ManagedFixpoint.make(*g)
    history: list[tuple[ManagedFixpoint, frozenset[Elem], dict[Elem, int], frozenset[Edge]]] = []
    for change in batches:
        history.append((m, m.current, dict(m.ranks), m.edges))
        m, _ = m.apply(change)
    history.append((m, m.current, dict(m.ranks), m.edges))
    for version, current, ranks, edges in history:
        assert version.current == current and version.state.live == current
        assert version.ranks == ranks and dict(version.ranks) == ranks
        assert version.edges == edges and version.edge_count == len(edges)
        assert version.fwd == {u: frozenset(v for x, v in edges if x == u) for u, _ in edges}
        assert version.inv == {v: frozenset(u for u, y in edges if y == v) for _, v in edges}


@pytest.mark.spec("FIX-DEC-PERSISTENT-STATE", evidence="example")
def test_public_values_keep_their_types_and_an_update_shares_what_it_does_not_touch() -> None:
    n = 20_000
    m, _ = ManagedFixpoint.make({0}, [(i, i + 1) for i in range(n - 1)])
    m2, update = m.apply(Change(remove_edges=((n - 3, n - 2),), add_edges=((5, "leaf"),)))
    assert update.added == {"leaf"} and update.removed == {n - 2, n - 1}
    # the update did not build the live set as a frozenset (that costs O(|current|)) ...
    assert "current" not in m2.state.__dict__ and "current" not in m.state.__dict__
    # ... and untouched adjacency entries are the very same objects in both versions
    assert all(m2.fwd[i] is m.fwd[i] for i in range(0, n - 4, 997))
    assert m2.inv[7] is m.inv[7] and m2.roots is m.roots
    # the public values: a frozenset, read-only mappings equal to dicts, unhashable like
    # the MappingProxyType they replace
    assert type(m2.current) is frozenset and len(m2.current) == n - 1 and len(m.current) == n
    assert isinstance(m2.ranks, Mapping) and m2.ranks["leaf"] == 6 and "leaf" not in m.ranks
    assert m2.fwd[5] == {6, "leaf"} and m.fwd[5] == {6}
    with pytest.raises(TypeError):
        hash(m2.ranks)
    with pytest.raises(TypeError):
        m2.ranks["leaf"] = 0  # type: ignore[index]
