"""Value and accumulator domains: what the checker quantifies over.

A domain is written as a short string on the command line (or inferred from a
type hint) and gives each search engine what it needs:

* ``elements()``: the whole domain, when it is finite and small (exhaustive
  search then *decides* statements quantified over it), simplest first for integers;
* ``sample()``: a small fixed set of probe values (exhaustive search over it is a
  deterministic spot check, never a decision, when the domain is infinite);
* ``strategy()``: a Hypothesis strategy (with shrinking towards simple values);
* ``annotation`` and ``preconditions(var)``: the type and bounds of a
  CrossHair argument (``None`` when CrossHair has no symbolic encoding).

Grammar (``parse_domain``)::

    int                 all integers            int[LO..HI]     LO <= n <= HI (finite)
    float               finite floats (no NaN, no ±inf)
    float[LO..HI]       finite floats in [LO, HI]
    float[inf]          floats with ±inf        float[nan,inf]  with NaN too (NaN != NaN: every law fails)
    fraction            all rationals           fraction[nonzero]
    bool                False, True
    str                 short text              str[ALPHABET,N] strings over ALPHABET of length <= N (finite)
    tuple[D1,D2,...]    tuples, one component per domain
    tuple[D,...]        tuples of any length <= 3 over D (a literal ``...``)
    list[D]             lists of length <= 3 over D
    frozenset[D]        frozensets of at most 3 elements of D (set[D]: Python sets)
    dict[K,D]           dicts with at most 3 keys from K, values from D
    optional[D]         D and None (also written D|None)
    zset[D]             Z-sets over D (weights in -3..3, at most 3 elements)
    multiset[D]         multisets over D (multiplicities <= 3, at most 3 elements)
    {X1, X2, ...}       exactly these Python literals (finite), e.g. {1, 2, 3}
    [X1, X2, ...]       the same for unhashable literals, e.g. [[], [0], [0, 1]]

The container sizes are bounded (``MAX_SIZE``) and the bound is part of the
domain's description, so every report states it. Each domain can also say
whether a value belongs to it (``contains``): the checker adds ``initial`` to
an accumulator domain that lacks it, and says so.
"""

from __future__ import annotations

import ast
import dataclasses
import enum
import itertools
import math
import types
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from hypothesis import strategies as st

from reference.algebra.multiset import Multiset
from reference.algebra.zset import ZSet

#: the largest domain that ``elements()`` enumerates; bigger finite domains are sampled
MAX_ENUMERATED = 512

#: the most elements a list, tuple[D, ...], set, dict, Z-set or multiset of a domain holds
MAX_SIZE = 3

SYNTAX_HELP = (
    "domains: int | int[LO..HI] | float | float[LO..HI] | float[inf] | float[nan,inf] | "
    "fraction | fraction[nonzero] | bool | str | str[ALPHABET,N] | tuple[D1,D2,...] | "
    "tuple[D,...] | list[D] | frozenset[D] | set[D] | dict[K,D] | optional[D] | "
    "zset[D] | multiset[D] | {X1, X2, ...} | [X1, X2, ...]"
)


class DomainError(ValueError):
    """A domain string does not parse, or a type hint has no domain."""


@dataclass(frozen=True)
class Domain:
    """A set of Python values the checker quantifies over."""

    spec: str  # canonical written form, as accepted by parse_domain
    description: str  # for people: "integers in [-3, 3]"
    finite_elements: tuple[Any, ...] | None  # the whole domain, if finite and small
    probe: tuple[Any, ...]  # fixed sample for infinite (or too large) domains
    make_strategy: Callable[[], st.SearchStrategy[Any]]
    annotation: str | None = None  # CrossHair argument type, None: no symbolic encoding
    precondition: Callable[[str], list[str]] | None = None  # var -> Python boolean expressions
    floats: bool = False  # float arithmetic: exact equality may fail by rounding
    member: Callable[[Any], bool] | None = None  # whether a value belongs to the domain

    def contains(self, x: Any) -> bool | None:
        """Whether ``x`` is in the domain (None when the domain cannot tell)."""
        if self.member is not None:
            try:
                return bool(self.member(x))
            except Exception:
                return False
        if self.finite_elements is not None:
            return any(_same(x, y) for y in self.finite_elements)
        return None

    def elements(self) -> tuple[Any, ...] | None:
        return self.finite_elements

    def sample(self) -> tuple[Any, ...]:
        return self.finite_elements if self.finite_elements is not None else self.probe

    def strategy(self) -> st.SearchStrategy[Any]:
        return self.make_strategy()

    def preconditions(self, var: str) -> list[str]:
        return self.precondition(var) if self.precondition else []

    @property
    def is_finite(self) -> bool:
        return self.finite_elements is not None


# --- the base domains ----------------------------------------------------------------


def _same(x: Any, y: Any) -> bool:
    """Equal values of the same type (True == 1 in Python, but not in a domain)."""
    return type(x) is type(y) and bool(x == y)


def simplest_first(xs: Sequence[int]) -> tuple[int, ...]:
    """0, 1, -1, 2, -2, ...: the exhaustive engine enumerates in this order, so the first
    counterexample it finds is made of the smallest integers."""
    return tuple(sorted(set(xs), key=lambda x: (abs(x), x < 0)))


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def int_domain(lo: int | None = None, hi: int | None = None) -> Domain:
    if lo is None or hi is None:
        return Domain(
            spec="int",
            description="all integers",
            finite_elements=None,
            probe=simplest_first(range(-3, 4)),
            make_strategy=lambda: st.integers(),
            annotation="int",
            member=_is_int,
        )
    if lo > hi:
        raise DomainError(f"int[{lo}..{hi}]: empty range")
    size = hi - lo + 1
    return Domain(
        spec=f"int[{lo}..{hi}]",
        description=f"integers in [{lo}, {hi}]",
        finite_elements=simplest_first(range(lo, hi + 1)) if size <= MAX_ENUMERATED else None,
        probe=simplest_first([lo, hi, *(x for x in range(-3, 4) if lo <= x <= hi), lo + 1, hi - 1]),
        make_strategy=lambda: st.integers(lo, hi),
        annotation="int",
        precondition=lambda var: [f"{lo} <= {var} <= {hi}"],
        member=lambda x: _is_int(x) and lo <= x <= hi,
    )


#: floats chosen so that rounding shows: 0.1 + 0.2 != 0.3, 1e16 + 1.0 == 1e16
FLOAT_PROBE = (0.0, 0.1, 0.2, 0.3, 1.0, -1.0, 1e16)


def float_domain(lo: float | None = None, hi: float | None = None,
                 allow_inf: bool = False, allow_nan: bool = False) -> Domain:
    opts = [o for o, on in (("nan", allow_nan), ("inf", allow_inf)) if on]
    if lo is not None and hi is not None:
        spec, desc = f"float[{lo!r}..{hi!r}]", f"finite floats in [{lo!r}, {hi!r}]"
        probe = tuple(x for x in FLOAT_PROBE if lo <= x <= hi) + (lo, hi)
    else:
        spec = f"float[{','.join(opts)}]" if opts else "float"
        desc = "floats" + (" including " + " and ".join(
            {"nan": "NaN", "inf": "±inf"}[o] for o in opts) if opts else " (finite: no NaN, no ±inf)")
        probe = FLOAT_PROBE + ((math.inf, -math.inf) if allow_inf else ()) + ((math.nan,) if allow_nan else ())

    def precondition(var: str) -> list[str]:
        conds = []
        if not allow_nan:
            conds.append(f"{var} == {var}")
        if not allow_inf:
            conds.append(f"abs({var}) < float('inf')")
        if lo is not None and hi is not None:
            conds.append(f"{lo!r} <= {var} <= {hi!r}")
        return conds

    def member(x: Any) -> bool:
        if not isinstance(x, float):
            return False
        if math.isnan(x):
            return allow_nan
        if math.isinf(x):
            return allow_inf
        return lo is None or hi is None or lo <= x <= hi

    return Domain(
        spec=spec,
        description=desc,
        finite_elements=None,
        probe=tuple(dict.fromkeys(probe)),
        make_strategy=lambda: st.floats(min_value=lo, max_value=hi,
                                        allow_nan=allow_nan, allow_infinity=allow_inf),
        annotation="float",
        precondition=precondition,
        floats=True,
        member=member,
    )


def fraction_domain(nonzero: bool = False) -> Domain:
    probe = (Fraction(1), Fraction(-1), Fraction(2), Fraction(1, 2), Fraction(-3, 2))
    strategy: Callable[[], st.SearchStrategy[Any]] = lambda: st.fractions(max_denominator=50)  # noqa: E731
    if nonzero:
        def strategy() -> st.SearchStrategy[Any]:
            return st.fractions(max_denominator=50).filter(lambda q: q != 0)
    return Domain(
        spec="fraction[nonzero]" if nonzero else "fraction",
        description="non-zero rationals" if nonzero else "rationals",
        finite_elements=None,
        probe=probe if nonzero else (Fraction(0),) + probe,
        make_strategy=strategy,
        member=lambda x: isinstance(x, Fraction) and (x != 0 or not nonzero),
    )


def bool_domain() -> Domain:
    return Domain("bool", "booleans", (False, True), (False, True), st.booleans, annotation="bool",
                  member=lambda x: isinstance(x, bool))


def str_domain(alphabet: str | None = None, max_len: int = 3) -> Domain:
    if alphabet is None:
        return Domain(
            spec="str",
            description="strings",
            finite_elements=None,
            probe=("", "a", "b", "ab", "ba"),
            make_strategy=lambda: st.text(max_size=4),
            annotation="str",
            member=lambda x: isinstance(x, str),
        )
    chars = "".join(dict.fromkeys(alphabet))
    everything = tuple(
        "".join(p) for n in range(max_len + 1) for p in itertools.product(chars, repeat=n)
    )
    return Domain(
        spec=f"str[{chars},{max_len}]",
        description=f"strings over {chars!r} of length <= {max_len}",
        finite_elements=everything if len(everything) <= MAX_ENUMERATED else None,
        probe=everything[:8],
        make_strategy=lambda: st.text(alphabet=chars, max_size=max_len),
        annotation="str",
        precondition=lambda var: [f"len({var}) <= {max_len}", f"all(c in {chars!r} for c in {var})"],
        member=lambda x: isinstance(x, str) and len(x) <= max_len and all(c in chars for c in x),
    )


def tuple_domain(parts: Sequence[Domain]) -> Domain:
    finite = [p.elements() for p in parts]
    everything: tuple[Any, ...] | None = None
    if all(f is not None for f in finite):
        size = math.prod(len(f) for f in finite if f is not None)
        if size <= MAX_ENUMERATED:
            everything = tuple(itertools.product(*(f for f in finite if f is not None)))
    probe = tuple(itertools.islice(itertools.product(*(p.sample()[:3] for p in parts)), 27))
    annotations = [p.annotation for p in parts]
    annotation = None
    if all(a is not None for a in annotations):
        annotation = f"tuple[{', '.join(a for a in annotations if a is not None)}]"

    def precondition(var: str) -> list[str]:
        return [c for i, p in enumerate(parts) for c in p.preconditions(f"{var}[{i}]")]

    def member(x: Any) -> bool:
        return (type(x) is tuple and len(x) == len(parts)
                and all(p.contains(y) is not False for p, y in zip(parts, x, strict=True)))

    return Domain(
        spec=f"tuple[{','.join(p.spec for p in parts)}]",
        description="tuples (" + ", ".join(p.description for p in parts) + ")",
        finite_elements=everything,
        probe=probe,
        make_strategy=lambda: st.tuples(*(p.strategy() for p in parts)),
        annotation=annotation,
        precondition=precondition,
        floats=any(p.floats for p in parts),
        member=member,
    )


# --- containers of bounded size: the accumulators people write -------------------------


def _element_var(var: str) -> str:
    """A fresh identifier for the elements of ``var`` in a generated precondition."""
    return "_e_" + "".join(c if c.isalnum() else "_" for c in var)


def _sequences(element: Domain, max_len: int) -> tuple[tuple[Any, ...] | None, tuple[tuple[Any, ...], ...]]:
    """All sequences of length <= max_len over a finite element domain (None when too many),
    and a probe: every sequence of length <= 2 over three sample elements, and one of length 3."""
    finite = element.elements()
    everything = None
    if finite is not None and sum(len(finite) ** n for n in range(max_len + 1)) <= MAX_ENUMERATED:
        everything = tuple(s for n in range(max_len + 1) for s in itertools.product(finite, repeat=n))
    base = element.sample()[:3]
    probe = tuple(s for n in range(min(2, max_len) + 1) for s in itertools.product(base, repeat=n))
    if max_len >= 3 and base:
        probe += ((base[0],) * 3,)
    return everything, probe


def sequence_domain(kind: str, element: Domain, max_len: int = MAX_SIZE) -> Domain:
    """``list[D]`` or ``tuple[D,...]``: sequences of length <= max_len over D."""
    build: Callable[[Sequence[Any]], Any] = list if kind == "list" else tuple
    everything, probe = _sequences(element, max_len)
    words = "lists" if kind == "list" else "tuples"

    def precondition(var: str) -> list[str]:
        e = _element_var(var)
        inner = element.preconditions(e)
        return [f"len({var}) <= {max_len}"] + (
            [f"all(({' and '.join(inner)}) for {e} in {var})"] if inner else [])

    return Domain(
        spec=f"list[{element.spec}]" if kind == "list" else f"tuple[{element.spec},...]",
        description=f"{words} of length <= {max_len} over {element.description}",
        finite_elements=None if everything is None else tuple(build(s) for s in everything),
        probe=tuple(build(s) for s in probe),
        make_strategy=lambda: st.lists(element.strategy(), max_size=max_len).map(build),
        annotation=None if element.annotation is None else (
            f"list[{element.annotation}]" if kind == "list" else f"tuple[{element.annotation}, ...]"),
        precondition=precondition,
        floats=element.floats,
        member=lambda x: type(x) is type(build(())) and len(x) <= max_len
        and all(element.contains(y) is not False for y in x),
    )


def set_domain(kind: str, element: Domain, max_size: int = MAX_SIZE) -> Domain:
    """``frozenset[D]`` (or ``set[D]``): sets of at most max_size elements of D."""
    build: Callable[[Any], Any] = frozenset if kind == "frozenset" else set
    everything, probe = _sequences(element, max_size)

    def distinct(seqs: tuple[tuple[Any, ...], ...]) -> tuple[Any, ...]:
        seen: dict[frozenset[Any], None] = {}
        for s in seqs:
            seen.setdefault(frozenset(s), None)
        return tuple(build(s) for s in seen)

    def precondition(var: str) -> list[str]:
        e = _element_var(var)
        inner = element.preconditions(e)
        return [f"len({var}) <= {max_size}"] + (
            [f"all(({' and '.join(inner)}) for {e} in {var})"] if inner else [])

    return Domain(
        spec=f"{kind}[{element.spec}]",
        description=f"{'frozensets' if kind == 'frozenset' else 'sets'} of at most {max_size} "
                    f"elements of {element.description}",
        finite_elements=None if everything is None else distinct(everything),
        probe=distinct(probe),
        make_strategy=lambda: st.frozensets(element.strategy(), max_size=max_size).map(build),
        annotation=None if element.annotation is None else f"{kind}[{element.annotation}]",
        precondition=precondition,
        floats=element.floats,
        member=lambda x: type(x) is build and len(x) <= max_size
        and all(element.contains(y) is not False for y in x),
    )


def dict_domain(key: Domain, value: Domain, max_size: int = MAX_SIZE) -> Domain:
    """``dict[K,D]``: dicts with at most max_size keys from K and values from D."""
    keys, vals = key.sample()[:2], value.sample()[:3]
    probe: list[dict[Any, Any]] = [{}]
    probe += [{k: v} for k in keys for v in vals]
    if len(keys) >= 2:
        probe += [{keys[0]: vals[0], keys[1]: vals[-1]}, {keys[1]: vals[-1], keys[0]: vals[0]}]
    everything = None
    kf, vf = key.elements(), value.elements()
    if kf is not None and vf is not None:
        count = sum(math.comb(len(kf), n) * len(vf) ** n for n in range(min(max_size, len(kf)) + 1))
        if count <= MAX_ENUMERATED:
            everything = tuple(
                dict(zip(ks, vs, strict=True))
                for n in range(min(max_size, len(kf)) + 1)
                for ks in itertools.combinations(kf, n)
                for vs in itertools.product(vf, repeat=n))

    def precondition(var: str) -> list[str]:
        e = _element_var(var)
        inner = [f"({c})" for c in key.preconditions(e)] + [
            f"({c})" for c in value.preconditions(f"{var}[{e}]")]
        return [f"len({var}) <= {max_size}"] + (
            [f"all({' and '.join(inner)} for {e} in {var})"] if inner else [])

    annotation = None
    if key.annotation is not None and value.annotation is not None:
        annotation = f"dict[{key.annotation}, {value.annotation}]"
    return Domain(
        spec=f"dict[{key.spec},{value.spec}]",
        description=f"dicts of at most {max_size} keys from {key.description} to "
                    f"{value.description}",
        finite_elements=everything,
        probe=tuple(probe),
        make_strategy=lambda: st.dictionaries(key.strategy(), value.strategy(), max_size=max_size),
        annotation=annotation,
        precondition=precondition,
        floats=value.floats,
        member=lambda x: type(x) is dict and len(x) <= max_size and all(
            key.contains(k) is not False and value.contains(v) is not False for k, v in x.items()),
    )


def optional_domain(inner: Domain) -> Domain:
    """``optional[D]``: None and every element of D (None first: it is often ``initial``)."""
    finite = inner.elements()

    def precondition(var: str) -> list[str]:
        conds = inner.preconditions(var)
        return [f"{var} is None or ({' and '.join(conds)})"] if conds else []

    return Domain(
        spec=f"optional[{inner.spec}]",
        description=f"None or {inner.description}",
        finite_elements=None if finite is None else (None, *finite),
        probe=(None, *inner.sample()),
        make_strategy=lambda: st.none() | inner.strategy(),
        annotation=None if inner.annotation is None else f"{inner.annotation} | None",
        precondition=precondition,
        floats=inner.floats,
        member=lambda x: x is None or inner.contains(x) is not False,
    )


def literal_source(x: Any) -> str | None:
    """Python source that evaluates to ``x`` (for a generated precondition), or None."""
    if isinstance(x, float) and not math.isfinite(x):
        return f"float({str(x)!r})"
    try:
        return repr(x) if _same(ast.literal_eval(repr(x)), x) else None
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def with_initial(domain: Domain, initial: Any) -> Domain:
    """``domain`` ∪ {initial}: the accumulators the laws quantify over include ι, and a
    domain the user gave (or a hint implied) that lacks it is extended, and says so."""
    source = literal_source(initial)
    finite = domain.elements()

    def precondition(var: str) -> list[str]:
        conds = domain.preconditions(var)
        return [f"{var} == {source} or ({' and '.join(conds)})"] if conds else []

    return Domain(
        spec=f"{domain.spec} ∪ {{initial}}",
        description=f"{domain.description}, and initial = {initial!r}",
        finite_elements=None if finite is None else (initial, *finite),
        probe=(initial, *domain.sample()),
        make_strategy=lambda: st.just(initial) | domain.strategy(),
        annotation=domain.annotation if source is not None else None,
        precondition=precondition,
        floats=domain.floats,
        member=lambda x: _same(x, initial) or domain.contains(x) is not False,
    )


def weighted_domain(kind: str, element: Domain) -> Domain:
    """Z-sets (weights in -3..3) or multisets (multiplicities 1..3) with at most 3 elements."""
    lo = -3 if kind == "zset" else 1
    build: Callable[[dict[Any, int]], Any] = ZSet if kind == "zset" else Multiset
    weights = st.integers(lo, 3).filter(lambda w: w != 0)
    base = element.sample()[:3]
    probe = [build({})] + [build({e: w}) for e in base for w in (1, 2)]
    if kind == "zset":
        probe += [build({e: -1}) for e in base]
    if len(base) >= 2:
        probe.append(build({base[0]: 1, base[1]: 1}))
    kind_type = ZSet if kind == "zset" else Multiset
    return Domain(
        spec=f"{kind}[{element.spec}]",
        description=f"{'Z-sets' if kind == 'zset' else 'multisets'} over {element.description} "
                    f"({'weights in -3..3' if kind == 'zset' else 'multiplicities <= 3'}, "
                    f"at most {MAX_SIZE} elements)",
        finite_elements=None,
        probe=tuple(probe),
        make_strategy=lambda: st.dictionaries(element.strategy(), weights, max_size=MAX_SIZE).map(build),
        member=lambda x: isinstance(x, kind_type)
        and all(element.contains(e) is not False for e, _ in x.items()),
    )


def carrier_domain(elements: Sequence[Any], spec: str | None = None) -> Domain:
    """Exactly ``elements``: a finite carrier, as the reference's checkers take them
    (duplicates dropped; elements may be unhashable, e.g. lists)."""
    items: list[Any] = []
    for x in elements:
        if not any(_same(x, y) for y in items):
            items.append(x)
    if not items:
        raise DomainError("a finite domain needs at least one element")
    kinds = {type(x) for x in items}
    annotation = next((k.__name__ for k in (int, str) if kinds == {k}), None)  # symbolic: x in (...)
    every = tuple(items)
    return Domain(
        spec=spec or "{" + ", ".join(repr(x) for x in items) + "}",
        description=f"exactly these {len(items)} values",
        finite_elements=every,
        probe=every,
        make_strategy=lambda: st.sampled_from(every),
        annotation=annotation,
        precondition=lambda var: [f"{var} in {every!r}"],
        floats=any(isinstance(x, float) for x in items),
    )


# --- parsing ------------------------------------------------------------------------


def _split_top(args: str, sep: str = ",") -> list[str]:
    """Split on ``sep`` where it is not inside brackets."""
    parts, depth, current = [], 0, ""
    for ch in args:
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    return [p.strip() for p in parts]


def _range(args: str, convert: Callable[[str], Any], where: str) -> tuple[Any, Any]:
    lo, sep, hi = args.partition("..")
    if not sep:
        raise DomainError(f"{where}: expected LO..HI, got {args!r}")
    try:
        return convert(lo.strip()), convert(hi.strip())
    except ValueError as exc:
        raise DomainError(f"{where}: bad bound in {args!r} ({exc})") from exc


def _literals(text: str) -> Domain:
    """``{X1, ...}`` or ``[X1, ...]``: exactly these Python literals."""
    try:
        elements = ast.literal_eval(text)
    except TypeError as exc:  # a set literal of unhashable values, e.g. {[], [0]}
        raise DomainError(
            f"{text!r}: a set literal cannot hold unhashable values ({exc}); write the "
            f"values as a list literal, e.g. '[[], [0]]', or use list[D] / dict[K,D]") from exc
    except (ValueError, SyntaxError, MemoryError, RecursionError) as exc:
        raise DomainError(f"{text!r}: a finite domain is a set {{X1, X2, ...}} or a list "
                          "[X1, X2, ...] of Python literals") from exc
    if isinstance(elements, dict) and not elements:
        raise DomainError(f"{text!r}: an empty domain; list at least one value")
    if not isinstance(elements, (set, list)):
        raise DomainError(f"{text!r}: a finite domain is a set {{X1, X2, ...}} or a list "
                          "[X1, X2, ...] of Python literals")
    if isinstance(elements, set):
        try:
            return carrier_domain(sorted(elements))
        except TypeError:  # values of mixed types: no natural order
            return carrier_domain(sorted(elements, key=repr))
    return carrier_domain(elements, text)


def parse_domain(text: str) -> Domain:
    """The domain written as ``text`` (grammar in the module docstring)."""
    text = text.strip()
    if not text:
        raise DomainError(f"an empty domain. {SYNTAX_HELP}")
    if text[0] in "{[":
        return _literals(text)
    alternatives = _split_top(text, "|")
    if len(alternatives) == 2 and "None" in alternatives:
        return optional_domain(parse_domain(next(a for a in alternatives if a != "None")))
    name, bracket, rest = text.partition("[")
    name = name.strip().lower()
    args = None
    if bracket:
        if not rest.endswith("]") or rest.count("[") + 1 != rest.count("]"):
            raise DomainError(f"{text!r}: unbalanced brackets. {SYNTAX_HELP}")
        args = rest[:-1].strip()
    if name == "int":
        return int_domain(*_range(args, int, text)) if args else int_domain()
    if name == "float":
        if args and ".." in args:
            lo, hi = _range(args, float, text)
            if not (math.isfinite(lo) and math.isfinite(hi)) or lo > hi:
                raise DomainError(f"{text!r}: bounds must be finite and ordered")
            return float_domain(lo, hi)
        opts = set(_split_top(args)) if args else set()
        if not opts <= {"nan", "inf"}:
            raise DomainError(f"{text!r}: float options are nan, inf or LO..HI")
        return float_domain(allow_inf="inf" in opts, allow_nan="nan" in opts)
    if name in ("fraction", "rational"):
        if args not in (None, "nonzero"):
            raise DomainError(f"{text!r}: the only fraction option is nonzero")
        return fraction_domain(nonzero=args == "nonzero")
    if name == "bool" and not args:
        return bool_domain()
    if name == "str":
        if not args:
            return str_domain()
        parts = _split_top(args)
        try:
            max_len = int(parts[1]) if len(parts) > 1 else 1
        except ValueError as exc:
            raise DomainError(f"{text!r}: str[ALPHABET,N] needs an integer N") from exc
        return str_domain(parts[0], max_len)
    if name == "tuple" and args:
        parts = _split_top(args)
        if len(parts) == 2 and parts[1] == "...":
            return sequence_domain("tuple", parse_domain(parts[0]))
        return tuple_domain([parse_domain(p) for p in parts])
    if name == "list" and args:
        return sequence_domain("list", parse_domain(args))
    if name in ("frozenset", "set") and args:
        return set_domain(name, parse_domain(args))
    if name == "dict" and args:
        parts = _split_top(args)
        if len(parts) != 2:
            raise DomainError(f"{text!r}: dict[K,D] takes a key domain and a value domain")
        return dict_domain(parse_domain(parts[0]), parse_domain(parts[1]))
    if name == "optional" and args:
        return optional_domain(parse_domain(args))
    if name in ("zset", "multiset") and args:
        return weighted_domain(name, parse_domain(args))
    raise DomainError(f"unknown domain {text!r}. {SYNTAX_HELP}")


# --- the records and enumerations people write: dataclass, NamedTuple, TypedDict, Enum ---


def _record_fields(cls: type) -> list[str] | None:
    """The constructor's fields of a dataclass (``init`` ones) or a NamedTuple, else None."""
    if dataclasses.is_dataclass(cls):
        return [f.name for f in dataclasses.fields(cls) if f.init]
    if issubclass(cls, tuple) and hasattr(cls, "_fields"):
        return list(cls._fields)
    return None


def _field_hints(cls: type) -> dict[str, Any] | None:
    try:
        return typing.get_type_hints(cls)
    except Exception:  # a forward reference that does not resolve
        return None


def record_domain(cls: type) -> Domain | None:
    """Instances of a dataclass (frozen or not) or a NamedTuple, the type kept (``acc.n``
    works), each field over its hint's default domain; None when a field has none."""
    names, hints = _record_fields(cls), _field_hints(cls)
    if names is None or hints is None:
        return None
    parts = [domain_of_type(hints.get(name)) for name in names]
    if any(p is None for p in parts):
        return None
    known = [p for p in parts if p is not None]

    def build(values: Sequence[Any]) -> Any:
        return cls(**dict(zip(names, values, strict=True)))

    def built(rows: Any) -> tuple[Any, ...]:
        out = []
        for row in rows:
            try:
                out.append(build(row))
            except Exception:  # the class refuses it (a __post_init__ check): not in the domain
                continue
        return tuple(out)

    finite = [p.elements() for p in known]
    everything = None
    if all(f is not None for f in finite) and \
            math.prod(len(f) for f in finite if f is not None) <= MAX_ENUMERATED:
        everything = built(itertools.product(*(f for f in finite if f is not None)))
    probe = built(itertools.islice(itertools.product(*(p.sample()[:3] for p in known)), 27))

    def member(x: Any) -> bool:
        return type(x) is cls and all(p.contains(getattr(x, name)) is not False
                                      for name, p in zip(names, known, strict=True))

    fields_spec = ", ".join(f"{name}: {p.spec}" for name, p in zip(names, known, strict=True))
    kind = "dataclass" if dataclasses.is_dataclass(cls) else "NamedTuple"
    return Domain(
        spec=f"{cls.__name__}({fields_spec})",
        description=f"{kind} {cls.__name__} instances (" + ", ".join(
            f"{name}: {p.description}" for name, p in zip(names, known, strict=True)) + ")",
        finite_elements=everything,
        probe=probe,
        make_strategy=lambda: st.builds(cls, **{name: p.strategy()
                                                for name, p in zip(names, known, strict=True)}),
        floats=any(p.floats for p in known),
        member=member,
    )


def typed_dict_domain(cls: type) -> Domain | None:
    """Dicts of a TypedDict: its required keys always, its optional ones or not, each value
    over its hint's default domain; None when a value's hint has none."""
    hints = _field_hints(cls)
    if hints is None:
        return None
    parts = {key: domain_of_type(hint) for key, hint in hints.items()}
    if any(p is None for p in parts.values()):
        return None
    known = {key: p for key, p in parts.items() if p is not None}
    required = frozenset(getattr(cls, "__required_keys__", frozenset(known)))
    keys = list(known)
    probe = tuple(dict(zip(keys, row, strict=True)) for row in itertools.islice(
        itertools.product(*(known[k].sample()[:3] for k in keys)), 27))

    def member(x: Any) -> bool:
        return (type(x) is dict and required <= x.keys() <= known.keys()
                and all(known[k].contains(v) is not False for k, v in x.items()))

    return Domain(
        spec=f"{cls.__name__}{{" + ", ".join(f"{k!r}: {p.spec}" for k, p in known.items()) + "}",
        description=f"TypedDict {cls.__name__} dicts (" + ", ".join(
            f"{k!r}: {p.description}" for k, p in known.items()) + ")",
        finite_elements=None,
        probe=probe,
        make_strategy=lambda: st.fixed_dictionaries(
            {k: p.strategy() for k, p in known.items() if k in required},
            optional={k: p.strategy() for k, p in known.items() if k not in required}),
        floats=any(p.floats for p in known.values()),
        member=member,
    )


def enum_domain(cls: type[enum.Enum]) -> Domain:
    """The members of an Enum (finite: the exhaustive engine decides over them)."""
    members = tuple(cls)
    domain = carrier_domain(members, f"{cls.__name__}{{{', '.join(m.name for m in members)}}}")
    return dataclasses.replace(domain, description=f"the {len(members)} members of {cls.__name__}")


def _literal_domain(args: tuple[Any, ...]) -> Domain | None:
    return carrier_domain(args) if args else None


# --- inference from type hints -------------------------------------------------------


def domain_of_type(hint: Any) -> Domain | None:
    """The default domain of a type hint, or None when there is none. Containers
    (``list[int]``, ``dict[str, int]``, ``frozenset[int]``, ``tuple[int, ...]``) get
    their bounded default (at most ``MAX_SIZE`` elements); ``Optional[X]`` adds None;
    a dataclass, NamedTuple or TypedDict is built from its fields' hints, an Enum
    ranges over its members, ``Literal[...]`` over its values."""
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return enum_domain(hint) if len(hint) else None
    if isinstance(hint, type) and typing.is_typeddict(hint):
        return typed_dict_domain(hint)
    if isinstance(hint, type) and _record_fields(hint) is not None:
        return record_domain(hint)
    if typing.get_origin(hint) is typing.Literal:
        return _literal_domain(typing.get_args(hint))
    if hint is int:
        return int_domain()
    if hint is float:
        return float_domain()
    if hint is bool:
        return bool_domain()
    if hint is str:
        return str_domain()
    if hint is Fraction:
        return fraction_domain()
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType) and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        inner = domain_of_type(rest[0]) if len(rest) == 1 else None
        return optional_domain(inner) if inner is not None else None
    parts = [domain_of_type(a) for a in args if a is not Ellipsis]
    if not args or any(p is None for p in parts):
        return None
    known = [p for p in parts if p is not None]
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return sequence_domain("tuple", known[0])
        return tuple_domain(known)
    if origin is list and len(known) == 1:
        return sequence_domain("list", known[0])
    if origin in (frozenset, set) and len(known) == 1:
        return set_domain(origin.__name__, known[0])
    if origin is dict and len(known) == 2:
        return dict_domain(known[0], known[1])
    return None


def domain_of_value(value: Any) -> Domain | None:
    """The default domain of the type of ``value`` (used for the initial accumulator): a
    dataclass, NamedTuple or Enum by its class, so that ``acc.field`` keeps working."""
    if isinstance(value, enum.Enum) or _record_fields(type(value)) is not None:
        return domain_of_type(type(value))
    if isinstance(value, bool):
        return bool_domain()
    if isinstance(value, tuple):
        parts = [domain_of_value(x) for x in value]
        if parts and all(p is not None for p in parts):
            return tuple_domain([p for p in parts if p is not None])
        return None
    for kind in (int, float, str, Fraction):
        if type(value) is kind:
            return domain_of_type(kind)
    return None
