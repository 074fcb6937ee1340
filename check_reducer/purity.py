"""Value semantics for the user's reducer: every call of ``add``/``remove`` gets copies.

SKIP-DEF-6 takes ⊕ and ⊖ to be functions A × V → A: a call must not change the
accumulator (or value) it is given. A reducer that updates its argument in place
and returns it makes both sides of every law the same object, so every law
"holds"; and the shared ``initial`` changes under the search's feet. So the
checker never hands the user's code a value it keeps: :class:`Guard` wraps
``add`` and ``remove``, passes deep copies of mutable arguments, and compares
each copy with the original after the call. The first change it sees is kept
(``Guard.mutation``), with the arguments as they were *before* the call, and
reported as a finding of its own (the ``pure`` line of :mod:`check_reducer.laws`);
the laws themselves are judged under value semantics.

A call that raises or hangs is re-raised as :class:`ReducerCallFailed`, which
names the function (add or remove) and its arguments.
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from reference.algebra.weights import Weighted
from reference.reduce import Reducer

_OBJECT_EQ: Any = object.__eq__  # the identity equality every class inherits

#: values that cannot be changed in place (passed as they are, not copied)
_ATOMS = (int, float, complex, str, bytes, bool, type(None), Fraction, Decimal, Weighted)


def immutable(x: Any) -> bool:
    if isinstance(x, _ATOMS):
        return True
    if type(x) in (tuple, frozenset):
        return all(immutable(y) for y in x)
    return False


def copy_in(x: Any) -> Any:
    """``x`` itself when it cannot change, else a deep copy (the call's private value)."""
    return x if immutable(x) else copy.deepcopy(x)


def same_value(x: Any, y: Any) -> bool:
    """Whether ``y`` (a copy of ``x`` after a call) still equals ``x``, structurally: dicts,
    lists and tuples element by element, other values by ``==`` when their type defines
    it, and objects with identity equality by their attributes."""
    if x is y:
        return True
    if type(x) is not type(y):
        return False
    if isinstance(x, dict):
        return x.keys() == y.keys() and all(same_value(x[k], y[k]) for k in x)
    if isinstance(x, (list, tuple)):
        return len(x) == len(y) and all(same_value(p, q) for p, q in zip(x, y, strict=True))
    if type(x).__eq__ is not _OBJECT_EQ:
        try:
            return bool(x == y)
        except Exception:
            return False
    slots = [n for k in type(x).__mro__ for n in getattr(k, "__slots__", ()) if hasattr(x, n)]
    if hasattr(x, "__dict__") or slots:
        return same_value(getattr(x, "__dict__", {}), getattr(y, "__dict__", {})) and all(
            same_value(getattr(x, n), getattr(y, n)) for n in slots)
    try:
        return pickle.dumps(x) == pickle.dumps(y)
    except Exception:
        return False


class CallTimeout(Exception):
    """A call took longer than the per-call time limit (raised by the timer)."""


@dataclass(frozen=True)
class Call:
    """One call of the user's ``add`` or ``remove``, with its arguments before the call."""

    function: str  # "add" | "remove"
    acc: Any
    value: Any

    def show(self) -> str:
        return f"{self.function}({self.acc!r}, {self.value!r})"


class ReducerCallFailed(Exception):
    """The user's ``add`` or ``remove`` raised (or hung: ``hung``) on ``call``."""

    def __init__(self, call: Call, cause: BaseException, hung: bool) -> None:
        self.call, self.cause, self.hung = call, cause, hung
        what = "did not return" if hung else "raised"
        super().__init__(f"{call.show()} {what}: {describe_error(cause)}")


def describe_error(exc: BaseException) -> str:
    """``"ZeroDivisionError: division by zero"``; exceptions with no message say what they mean."""
    if isinstance(exc, MemoryError):
        return ("MemoryError: out of memory under the search's memory limit (--memory-mb)"
                + (f": {exc}" if str(exc) else ""))
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


@dataclass(frozen=True)
class Mutation:
    """A call that changed its argument: ``before`` (the argument as passed), ``after``."""

    call: Call
    argument: str  # "acc" | "value"
    before: Any
    after: Any


class Guard:
    """The user's add and remove, called with value semantics (see the module docstring)."""

    def __init__(self, add: Callable[[Any, Any], Any], remove: Callable[[Any, Any], Any]) -> None:
        self.raw = {"add": add, "remove": remove}
        self.mutation: Mutation | None = None  # the first change of an argument seen

    def call(self, function: str, acc: Any, value: Any) -> Any:
        result, mutation = self.probe(function, acc, value)
        if mutation is not None and self.mutation is None:
            self.mutation = mutation
        return result

    def probe(self, function: str, acc: Any, value: Any) -> tuple[Any, Mutation | None]:
        """The call's result on private copies, and the change it made to them (if any)."""
        acc_in, value_in = copy_in(acc), copy_in(value)
        try:
            result = self.raw[function](acc_in, value_in)
        except ReducerCallFailed:
            raise
        except CallTimeout as exc:
            raise ReducerCallFailed(Call(function, acc, value), exc, hung=True) from exc
        except (Exception, RecursionError, MemoryError) as exc:
            raise ReducerCallFailed(Call(function, acc, value), exc, hung=False) from exc
        for name, before, after in (("acc", acc, acc_in), ("value", value, value_in)):
            if not same_value(before, after):
                return result, Mutation(Call(function, acc, value), name, before, after)
        return result, None

    def add(self, acc: Any, value: Any) -> Any:
        return self.call("add", acc, value)

    def remove(self, acc: Any, value: Any) -> Any:
        return self.call("remove", acc, value)


def guard_of(R: Reducer[Any, Any]) -> Guard | None:
    """The guard of a reducer made by :func:`guarded` (None for any other)."""
    owner = getattr(R.add, "__self__", None)
    return owner if isinstance(owner, Guard) else None


def guarded(R: Reducer[Any, Any]) -> Reducer[Any, Any]:
    """``R`` with value semantics (idempotent); ``initial`` is kept as a private copy."""
    if guard_of(R) is not None:
        return R
    guard = Guard(R.add, R.remove)
    return Reducer(copy_in(R.initial), guard.add, guard.remove, R.name)


def freeze(x: Any) -> Any:
    """A hashable stand-in for ``x`` that is equal for equal values (dicts, lists and sets
    are accumulators people write: the searches key their sets of accumulators by this)."""
    try:
        hash(x)
    except TypeError:
        pass
    else:  # a NamedTuple equals the plain tuple of its fields, True equals 1: keep them apart
        return (type(x).__name__, x) if type(x) is bool or (
            isinstance(x, tuple) and type(x) is not tuple) else x
    if isinstance(x, dict):
        return ("dict", frozenset((freeze(k), freeze(v)) for k, v in x.items()))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, tuple(freeze(y) for y in x))
    if isinstance(x, (set, frozenset)):
        return ("set", frozenset(freeze(y) for y in x))
    if hasattr(x, "__dict__"):
        return (type(x).__name__, freeze(vars(x)))
    return (type(x).__name__, repr(x))
