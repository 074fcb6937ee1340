"""Persistent sets and maps: immutable values whose updates share structure with the
value they start from (a hash array mapped trie, the ``Map`` of the ``immutables``
package), so that changing k entries of an n-entry value costs O(k log n), not O(n),
and every older version stays valid and unchanged.

They stand where the fixpoint state would otherwise copy a ``frozenset`` or a
read-only ``dict`` on every update (FIX-DEC-PERSISTENT-STATE):

* a :class:`PSet` is a set value that equals, and hashes as, the ``frozenset`` of its
  elements (so it can replace one as a dictionary key or a set element);
* a :class:`PMap` is a mapping value that equals every mapping with the same items and,
  like the ``MappingProxyType`` it replaces, is unhashable.

A single entry of a map can be changed with ``set`` and ``discard``, which return a new
map. Larger updates go through an *evolver*, a private draft edited in place: ``persistent()``
returns the draft as a new value and leaves the draft usable, and the value the
evolver started from is never changed.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Set
from typing import TYPE_CHECKING, Generic, TypeVar, overload

from immutables import Map

if TYPE_CHECKING:
    from immutables._protocols import MapMutation

K = TypeVar("K")
S = TypeVar("S")
V = TypeVar("V")
D = TypeVar("D")


class PSet(Set[K]):
    """An immutable finite set with structural sharing; equal to, and hashing as, the
    ``frozenset`` of its elements."""

    __slots__ = ("_members", "_frozen_hash")

    def __init__(self, elements: Iterable[K] = ()) -> None:
        self._members: Map[K, None] = (elements._members if isinstance(elements, PSet)
                                       else Map((x, None) for x in elements))
        self._frozen_hash: int | None = None

    @classmethod
    def _of(cls, members: Map[K, None]) -> PSet[K]:
        out = cls.__new__(cls)
        out._members, out._frozen_hash = members, None
        return out

    @classmethod
    def _from_iterable(cls, it: Iterable[S]) -> PSet[S]:
        return PSet(it)

    def __contains__(self, x: object) -> bool:
        return x in self._members

    def __iter__(self) -> Iterator[K]:
        return iter(self._members)

    def __len__(self) -> int:
        return len(self._members)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PSet):
            return self._members == other._members
        if isinstance(other, Set):
            return len(self) == len(other) and all(x in other for x in self)
        return NotImplemented

    def __hash__(self) -> int:
        if self._frozen_hash is None:
            self._frozen_hash = hash(frozenset(self._members))
        return self._frozen_hash

    def __repr__(self) -> str:
        return f"PSet({set(self._members)!r})" if self._members else "PSet()"

    def evolver(self) -> SetEvolver[K]:
        """A draft of this set, to add and discard elements in place."""
        return SetEvolver(self._members.mutate())


class SetEvolver(Generic[K]):
    """A draft of a :class:`PSet` (see the module docstring)."""

    __slots__ = ("_draft",)

    def __init__(self, draft: MapMutation[K, None]) -> None:
        self._draft = draft

    def __contains__(self, x: object) -> bool:
        return x in self._draft

    def __len__(self) -> int:
        return len(self._draft)

    def add(self, x: K) -> None:
        self._draft[x] = None

    def discard(self, x: K) -> None:
        self._draft.pop(x, None)

    def persistent(self) -> PSet[K]:
        """The draft as it stands, as a value; later edits of the draft do not change it."""
        members = self._draft.finish()
        self._draft = members.mutate()
        return PSet._of(members)


class PMap(Mapping[K, V]):
    """An immutable finite map with structural sharing; equal to every mapping with the
    same items, unhashable (like ``MappingProxyType``)."""

    __slots__ = ("_items",)

    def __init__(self, items: Mapping[K, V] | Iterable[tuple[K, V]] = ()) -> None:
        if isinstance(items, PMap):
            self._items: Map[K, V] = items._items
        else:
            self._items = Map(items.items() if isinstance(items, Mapping) else items)

    @classmethod
    def _of(cls, items: Map[K, V]) -> PMap[K, V]:
        out = cls.__new__(cls)
        out._items = items
        return out

    def __getitem__(self, key: K) -> V:
        return self._items[key]

    @overload
    def get(self, key: K) -> V | None: ...
    @overload
    def get(self, key: K, default: V | D) -> V | D: ...
    def get(self, key: K, default: object = None) -> object:
        return self._items.get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __iter__(self) -> Iterator[K]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PMap):
            return self._items == other._items
        if isinstance(other, Mapping):
            return dict(self._items.items()) == dict(other.items())
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"PMap({dict(self._items.items())!r})" if self._items else "PMap()"

    def set(self, key: K, value: V) -> PMap[K, V]:
        """This map with ``key`` bound to ``value`` (O(log n); this map is unchanged)."""
        return PMap._of(self._items.set(key, value))

    def discard(self, key: K) -> PMap[K, V]:
        """This map without ``key`` (itself if ``key`` is absent; this map is unchanged)."""
        return PMap._of(self._items.delete(key)) if key in self._items else self

    def evolver(self) -> MapEvolver[K, V]:
        """A draft of this map, to set and delete entries in place."""
        return MapEvolver(self._items.mutate())


class MapEvolver(Generic[K, V]):
    """A draft of a :class:`PMap` (see the module docstring)."""

    __slots__ = ("_draft",)

    def __init__(self, draft: MapMutation[K, V]) -> None:
        self._draft = draft

    def __contains__(self, key: object) -> bool:
        return key in self._draft

    def __len__(self) -> int:
        return len(self._draft)

    def __getitem__(self, key: K) -> V:
        return self._draft[key]

    @overload
    def get(self, key: K) -> V | None: ...
    @overload
    def get(self, key: K, default: V | D) -> V | D: ...
    def get(self, key: K, default: object = None) -> object:
        return self._draft.get(key, default)

    def __setitem__(self, key: K, value: V) -> None:
        self._draft[key] = value

    def discard(self, key: K) -> None:
        """Delete ``key`` if present."""
        self._draft.pop(key, None)

    def persistent(self) -> PMap[K, V]:
        """The draft as it stands, as a value; later edits of the draft do not change it."""
        items = self._draft.finish()
        self._draft = items.mutate()
        return PMap._of(items)
