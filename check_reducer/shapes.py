"""Find the reducer a TARGET names and bring it to the reference's shape.

TARGET is ``path/to/file.py:name`` or ``package.module:name``. The object it
names may be, in the reference's terms a reducer R = (ι, ⊕, ⊖) (SKIP-DEF-6):

1. an object with attributes ``initial``, ``add(acc, v)`` and ``remove(acc, v)``
   (Skip's shape, and :class:`reference.reduce.Reducer`); ``remove`` may return
   ``None`` to decline (Skip's ``null``: "recompute this key from scratch");
2. a triple ``(initial, add, remove)``;
3. a class with those three members (``add`` and ``remove`` static, class or
   instance methods); it is instantiated with no arguments when ``add`` is an
   instance method or ``initial`` is not a class attribute (``__init__`` may set it);
4. a zero-argument function returning any of the above (a factory);
5. a built-in of the reference's registry (``reference.reduce:BUILTINS.sum``), whose
   finite carriers (``values``, ``accumulators``) become the default domains.

``name`` may be dotted (``module:Class.attr``, ``module:REGISTRY.key``).
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from check_reducer.domains import (
    Domain,
    carrier_domain,
    domain_of_type,
    domain_of_value,
)
from reference.reduce import Reducer

SHAPES_HELP = (
    "a reducer is an object with initial/add/remove, a triple (initial, add, remove), "
    "a class with those members (initial may be set in __init__), or a zero-argument "
    "function returning one of these"
)


class TargetError(Exception):
    """The target cannot be imported or is not a reducer (a usage error)."""


def is_file_target(where: str) -> bool:
    return where.endswith(".py") or "/" in where or "\\" in where


def absolute_target(target: str) -> str:
    """``target`` with a file path made absolute (for code run from another directory)."""
    where, _, name = target.rpartition(":")
    return f"{Path(where).resolve()}:{name}" if is_file_target(where) else target


_FILES: dict[Path, Any] = {}  # a file imported once per process: its classes stay the same


def _import_file(path: Path) -> Any:
    key = path.resolve()
    if key not in _FILES:
        module_name = "_incspec_target_" + path.stem
        spec = importlib.util.spec_from_file_location(module_name, path)
        if spec is None or spec.loader is None:
            raise TargetError(f"cannot import {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
        _FILES[key] = module
    return _FILES[key]


def import_target(target: str) -> Any:
    """The object named by ``file.py:name`` or ``package.module:name``."""
    where, sep, name = target.rpartition(":")
    if not sep or not where or not name:
        raise TargetError(f"target {target!r} must be path/to/file.py:name or package.module:name")
    try:
        if is_file_target(where):
            path = Path(where)
            if not path.is_file():
                raise TargetError(f"no such file: {where}")
            module = _import_file(path)
        else:
            module = importlib.import_module(where)
    except TargetError:
        raise
    except BaseException as exc:  # the user's module may raise anything while importing
        raise TargetError(f"importing {where} failed: {type(exc).__name__}: {exc}") from exc
    obj: Any = module
    for part in name.split("."):  # attributes, or keys of a mapping (a registry)
        if isinstance(obj, Mapping) and part in obj:
            obj = obj[part]
        elif hasattr(obj, part):
            obj = getattr(obj, part)
        else:
            raise TargetError(f"{where} has no attribute {name!r}")
    return obj


#: the members a reducer object or class has (Skip's shape)
MEMBERS = ("initial", "add", "remove")


def _missing(obj: Any) -> list[str]:
    return [m for m in MEMBERS if not hasattr(obj, m)]


def _names(items: list[str]) -> str:
    """``remove``, ``add and remove``, ``initial, add and remove``."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _not_callable(obj: Any) -> list[str]:
    return [m for m in ("add", "remove") if not callable(getattr(obj, m))]


def _from_members(obj: Any, what: str, name: str) -> Reducer[Any, Any]:
    """The reducer of an object (or class) with all three members; ``what`` names it in a
    message ("the class Sum", "the Sum instance")."""
    missing = _missing(obj)
    if missing:
        raise TargetError(f"{name}: {what} lacks {_names(missing)}; {SHAPES_HELP}")
    wrong = _not_callable(obj)
    if wrong:
        raise TargetError(f"{name}: {what}'s {_names(wrong)} must be callable "
                          f"(add(acc, v) and remove(acc, v))")
    return Reducer(obj.initial, obj.add, obj.remove, name)


def _from_class(cls: type, name: str) -> Reducer[Any, Any]:
    """A class: its members as they are when ``add`` is a static or class method and
    ``initial`` a class attribute; else an instance made with no arguments (``initial`` may
    be set in ``__init__``). Whatever is missing is named exactly."""
    raw_add = inspect.getattr_static(cls, "add", None)
    if not _missing(cls) and isinstance(raw_add, (staticmethod, classmethod)):
        return _from_members(cls, f"the class {cls.__name__}", name)
    try:
        instance = cls()
    except Exception as exc:
        missing = _missing(cls)
        lacks = (f" (it has no class attribute{'s' if len(missing) > 1 else ''} "
                 f"{_names(missing)}, so an instance was needed)" if missing else "")
        raise TargetError(f"{name}: cannot instantiate the class {cls.__name__} with no "
                          f"arguments{lacks}: {type(exc).__name__}: {exc}") from exc
    return _from_members(instance, f"the class {cls.__name__}"
                         + (" (and its instance)" if "initial" in _missing(cls) else ""), name)


def as_reducer(obj: Any, name: str) -> Reducer[Any, Any]:
    """The reducer ``obj`` denotes, in the reference's shape (see the module docstring)."""
    if isinstance(getattr(obj, "reducer", None), Reducer):  # a built-in of reference.reduce
        obj = obj.reducer
    if isinstance(obj, Reducer):
        return Reducer(obj.initial, obj.add, obj.remove, obj.name or name)
    if isinstance(obj, tuple):
        if len(obj) != 3:
            raise TargetError(f"{name}: a tuple of {len(obj)} items; a triple must be "
                              f"(initial, add, remove); {SHAPES_HELP}")
        wrong = [what for what, f in (("add", obj[1]), ("remove", obj[2])) if not callable(f)]
        if wrong:
            raise TargetError(f"{name}: a triple must be (initial, add, remove), and its "
                              f"{_names(wrong)} is not callable; {SHAPES_HELP}")
        return Reducer(obj[0], obj[1], obj[2], name)
    if inspect.isclass(obj):
        return _from_class(obj, name)
    if any(hasattr(obj, m) for m in MEMBERS) and not callable(obj):
        return _from_members(obj, f"the {type(obj).__name__} object", name)
    if not _missing(obj):
        return _from_members(obj, f"the {type(obj).__name__} object", name)
    if callable(obj):
        try:
            made = obj()
        except Exception as exc:
            raise TargetError(f"{name}: not a reducer ({SHAPES_HELP}); calling it as a factory "
                              f"raised {type(exc).__name__}: {exc}") from exc
        return as_reducer(made, name)
    raise TargetError(f"{name}: {type(obj).__name__} is not a reducer; {SHAPES_HELP}")


def load_reducer(target: str) -> Reducer[Any, Any]:
    return as_reducer(import_target(target), target.rpartition(":")[2])


def declared_carriers(target: str) -> tuple[Domain | None, Domain | None]:
    """Finite carriers the target declares as ``values`` and ``accumulators`` sequences
    (as the reference's built-ins do, e.g. ``reference.reduce:BUILTINS.sum``)."""
    obj = import_target(target)
    found = []
    for attr in ("values", "accumulators"):
        carrier = getattr(obj, attr, None)
        found.append(carrier_domain(carrier, f"{target.rpartition(':')[2]}.{attr}")
                     if isinstance(carrier, (tuple, list)) and carrier else None)
    return found[0], found[1]


@dataclass(frozen=True)
class Inferred:
    values: Domain | None
    accumulators: Domain | None
    values_how: str  # where each domain came from, for the report
    accumulators_how: str
    values_hints: str = ""  # the hints looked at, for the message when there is no domain
    accumulators_hints: str = ""


def hint_name(hint: Any) -> str:
    """A hint as written: ``int``, ``dict[str, int]``, ``Stats``; "no hint" for None."""
    if hint is None:
        return "no hint"
    if isinstance(hint, type) and not typing.get_args(hint):
        return hint.__name__
    return repr(hint).replace("typing.", "")


def _hints(fn: Callable[..., Any]) -> list[Any]:
    """Type hints of (acc, value, return) of ``fn``, None where absent."""
    try:
        hints = typing.get_type_hints(fn)
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except Exception:
        return [None, None, None]
    names = [p.name for p in params][:2]
    names += [""] * (2 - len(names))
    return [hints.get(names[0]), hints.get(names[1]), hints.get("return")]


def infer_domains(R: Reducer[Any, Any]) -> Inferred:
    """Domains from the type hints of ``add`` (then ``remove``), else from type(initial)."""
    acc_hint, value_hint, ret_hint = _hints(R.add)
    r_acc, r_value, _ = _hints(R.remove)
    value = domain_of_type(value_hint) or domain_of_type(r_value)
    acc = domain_of_type(acc_hint) or domain_of_type(ret_hint) or domain_of_type(r_acc)
    acc_how = "from the type hints of add/remove"
    if acc is None:
        acc = domain_of_value(R.initial)
        acc_how = f"from the type of initial ({type(R.initial).__name__})"
    return Inferred(value, acc, "from the type hints of add/remove", acc_how,
                    f"add's value parameter: {hint_name(value_hint)}, remove's: "
                    f"{hint_name(r_value)}",
                    f"add's accumulator parameter: {hint_name(acc_hint)}, its return: "
                    f"{hint_name(ret_hint)}, remove's accumulator parameter: {hint_name(r_acc)}, "
                    f"type of initial: {type(R.initial).__name__}")
