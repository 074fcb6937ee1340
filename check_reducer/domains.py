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
    zset[D]             Z-sets over D (weights in -3..3, at most 3 elements)
    multiset[D]         multisets over D (multiplicities <= 3, at most 3 elements)
    {X1, X2, ...}       exactly these Python literals (finite), e.g. {1, 2, 3}
"""

from __future__ import annotations

import ast
import itertools
import math
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

SYNTAX_HELP = (
    "domains: int | int[LO..HI] | float | float[LO..HI] | float[inf] | float[nan,inf] | "
    "fraction | fraction[nonzero] | bool | str | str[ALPHABET,N] | tuple[D1,D2,...] | "
    "zset[D] | multiset[D] | {X1, X2, ...}"
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


def simplest_first(xs: Sequence[int]) -> tuple[int, ...]:
    """0, 1, -1, 2, -2, ...: the exhaustive engine enumerates in this order, so the first
    counterexample it finds is made of the smallest integers."""
    return tuple(sorted(set(xs), key=lambda x: (abs(x), x < 0)))


def int_domain(lo: int | None = None, hi: int | None = None) -> Domain:
    if lo is None or hi is None:
        return Domain(
            spec="int",
            description="all integers",
            finite_elements=None,
            probe=simplest_first(range(-3, 4)),
            make_strategy=lambda: st.integers(),
            annotation="int",
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
    )


def bool_domain() -> Domain:
    return Domain("bool", "booleans", (False, True), (False, True), st.booleans, annotation="bool")


def str_domain(alphabet: str | None = None, max_len: int = 3) -> Domain:
    if alphabet is None:
        return Domain(
            spec="str",
            description="strings",
            finite_elements=None,
            probe=("", "a", "b", "ab", "ba"),
            make_strategy=lambda: st.text(max_size=4),
            annotation="str",
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

    return Domain(
        spec=f"tuple[{','.join(p.spec for p in parts)}]",
        description="tuples (" + ", ".join(p.description for p in parts) + ")",
        finite_elements=everything,
        probe=probe,
        make_strategy=lambda: st.tuples(*(p.strategy() for p in parts)),
        annotation=annotation,
        precondition=precondition,
        floats=any(p.floats for p in parts),
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
    return Domain(
        spec=f"{kind}[{element.spec}]",
        description=f"{'Z-sets' if kind == 'zset' else 'multisets'} over {element.description} "
                    f"({'weights in -3..3' if kind == 'zset' else 'multiplicities <= 3'}, "
                    "at most 3 elements)",
        finite_elements=None,
        probe=tuple(probe),
        make_strategy=lambda: st.dictionaries(element.strategy(), weights, max_size=3).map(build),
    )


def carrier_domain(elements: Sequence[Any], spec: str | None = None) -> Domain:
    """Exactly ``elements``: a finite carrier, as the reference's checkers take them."""
    items = tuple(dict.fromkeys(elements))
    if not items:
        raise DomainError("a finite domain needs at least one element")
    kinds = {type(x) for x in items}
    annotation = next((k.__name__ for k in (int, str) if kinds == {k}), None)  # symbolic: x in (...)
    return Domain(
        spec=spec or "{" + ", ".join(repr(x) for x in items) + "}",
        description=f"exactly these {len(items)} values",
        finite_elements=items,
        probe=items,
        make_strategy=lambda: st.sampled_from(items),
        annotation=annotation,
        precondition=lambda var: [f"{var} in {items!r}"],
        floats=any(isinstance(x, float) for x in items),
    )


# --- parsing ------------------------------------------------------------------------


def _split_top(args: str) -> list[str]:
    """Split on commas that are not inside brackets."""
    parts, depth, current = [], 0, ""
    for ch in args:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
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


def parse_domain(text: str) -> Domain:
    """The domain written as ``text`` (grammar in the module docstring)."""
    text = text.strip()
    if text.startswith("{"):
        try:
            elements = ast.literal_eval(text)
        except (ValueError, SyntaxError) as exc:
            raise DomainError(f"{text!r}: a finite domain is a set of Python literals") from exc
        if not isinstance(elements, (set, dict)) or isinstance(elements, dict) and elements:
            raise DomainError(f"{text!r}: a finite domain is a set of Python literals")
        return carrier_domain(sorted(elements, key=repr))
    name, bracket, rest = text.partition("[")
    name = name.strip().lower()
    args = None
    if bracket:
        if not rest.endswith("]"):
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
        return tuple_domain([parse_domain(p) for p in _split_top(args)])
    if name in ("zset", "multiset") and args:
        return weighted_domain(name, parse_domain(args))
    raise DomainError(f"unknown domain {text!r}. {SYNTAX_HELP}")


# --- inference from type hints -------------------------------------------------------


def domain_of_type(hint: Any) -> Domain | None:
    """The default domain of a type hint, or None when there is none."""
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
    if origin is tuple and args and Ellipsis not in args:
        parts = [domain_of_type(a) for a in args]
        if all(p is not None for p in parts):
            return tuple_domain([p for p in parts if p is not None])
    return None


def domain_of_value(value: Any) -> Domain | None:
    """The default domain of the type of ``value`` (used for the initial accumulator)."""
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
