"""The programming language (DD §4, extended by §5): types, expressions, typing,
the standard semantics ``D`` and the differential semantics ``Dδ``.

Types ``σ ::= b | σ × τ | unit | σ+``; expressions::

    e ::= x | f(e1, ..., en) | let x : σ be e in e' | 0_σ | e + e' | -e
        | <e, e'> | fst(e) | snd(e) | * | iter x : σ to e in e' | out_k(e)
        | iterin x : σ to e in e'        (§5: iteration taking new input each step)

``σ+`` denotes ``D[[σ]]^N``, represented on the domain ``0..horizon``
(DD-DEC-STREAM-REPR); ``out_k`` needs ``k <= horizon``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reference.algebra.group import Group, Product, Unit
from reference.differential.loops import iterate, n_streams
from reference.differential.mobius import Stream, StreamGroup

# --- types -------------------------------------------------------------------------


@dataclass(frozen=True)
class Base:
    name: str


@dataclass(frozen=True)
class Prod:
    left: Type
    right: Type


@dataclass(frozen=True)
class UnitType:
    pass


@dataclass(frozen=True)
class Streams:
    """``σ+``."""

    elem: Type


Type = Base | Prod | UnitType | Streams

# --- expressions -----------------------------------------------------------------------


@dataclass(frozen=True)
class Var:
    name: str


@dataclass(frozen=True)
class App:
    fn: str
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class Let:
    var: str
    type: Type
    bound: Expr
    body: Expr


@dataclass(frozen=True)
class Zero:
    type: Type


@dataclass(frozen=True)
class Add:
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Neg:
    arg: Expr


@dataclass(frozen=True)
class Pair:
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Fst:
    arg: Expr


@dataclass(frozen=True)
class Snd:
    arg: Expr


@dataclass(frozen=True)
class Star:
    pass


@dataclass(frozen=True)
class Iter:
    """``iter x : σ to e in e'``: ``e`` is the body (in ``Γ, x : σ``), ``e'`` the start."""

    var: str
    type: Type
    body: Expr
    start: Expr


@dataclass(frozen=True)
class Out:
    k: int
    arg: Expr


@dataclass(frozen=True)
class IterIn:
    """§5 ``iter x : σ to e in e'`` with ``e' : σ+`` the input stream (DD-DEC-ITERIN-TYPING)."""

    var: str
    type: Type
    body: Expr
    inputs: Expr


Expr = Var | App | Let | Zero | Add | Neg | Pair | Fst | Snd | Star | Iter | Out | IterIn

# --- signatures -------------------------------------------------------------------------


@dataclass(frozen=True)
class BasicFunction:
    """``f : σ1, ..., σn -> σ`` with its meaning ``B[[f]]`` (not assumed linear)."""

    args: tuple[Type, ...]
    result: Type
    meaning: Callable[..., Any]


@dataclass(frozen=True)
class Signature:
    """The built-ins: base types with their groups ``(B[[b]], δ_b, S_b)`` and basic functions."""

    bases: Mapping[str, Group[Any]]
    functions: Mapping[str, BasicFunction]


Context = tuple[tuple[str, Type], ...]


class IllTyped(TypeError):
    """No typing rule derives ``Γ ⊢ e : σ``."""


# --- typing (DD-DEF-TYPING) --------------------------------------------------------------


def extend(gamma: Context, x: str, sigma: Type) -> Context:
    """``Γ, x : σ``: environments have no variable repetition."""
    if any(y == x for y, _ in gamma):
        raise IllTyped(f"{x} is already bound")
    return (*gamma, (x, sigma))


def type_of(sig: Signature, gamma: Context, e: Expr) -> Type:
    """The type ``σ`` with ``Γ ⊢ e : σ`` (the rules read bottom-up), or :class:`IllTyped`."""
    if isinstance(e, Var):
        for x, sigma in gamma:
            if x == e.name:
                return sigma
        raise IllTyped(f"unbound {e.name}")
    if isinstance(e, App):
        f = sig.functions.get(e.fn)
        if f is None or len(f.args) != len(e.args):
            raise IllTyped(f"no {e.fn} of arity {len(e.args)}")
        for arg, sigma in zip(e.args, f.args, strict=True):
            if type_of(sig, gamma, arg) != sigma:
                raise IllTyped(f"argument of {e.fn} is not {sigma}")
        return f.result
    if isinstance(e, Let):
        if type_of(sig, gamma, e.bound) != e.type:
            raise IllTyped("let: bound expression of the wrong type")
        return type_of(sig, extend(gamma, e.var, e.type), e.body)
    if isinstance(e, Zero):
        return e.type
    if isinstance(e, Add):
        sigma = type_of(sig, gamma, e.left)
        if type_of(sig, gamma, e.right) != sigma:
            raise IllTyped("+ of different types")
        return sigma
    if isinstance(e, Neg):
        return type_of(sig, gamma, e.arg)
    if isinstance(e, Pair):
        return Prod(type_of(sig, gamma, e.left), type_of(sig, gamma, e.right))
    if isinstance(e, (Fst, Snd)):
        sigma = type_of(sig, gamma, e.arg)
        if not isinstance(sigma, Prod):
            raise IllTyped("projection of a non-pair")
        return sigma.left if isinstance(e, Fst) else sigma.right
    if isinstance(e, Star):
        return UnitType()
    if isinstance(e, Iter):
        if type_of(sig, extend(gamma, e.var, e.type), e.body) != e.type:
            raise IllTyped("iter: body of the wrong type")
        if type_of(sig, gamma, e.start) != e.type:
            raise IllTyped("iter: start of the wrong type")
        return Streams(e.type)
    if isinstance(e, Out):
        sigma = type_of(sig, gamma, e.arg)
        if not isinstance(sigma, Streams):
            raise IllTyped("out_k of a non-stream")
        return sigma.elem
    assert isinstance(e, IterIn)
    if type_of(sig, extend(gamma, e.var, e.type), e.body) != e.type:
        raise IllTyped("iterin: body of the wrong type")
    if type_of(sig, gamma, e.inputs) != Streams(e.type):
        raise IllTyped("iterin: input of the wrong type")
    return Streams(e.type)


# --- semantics of types ------------------------------------------------------------------


def denote_type(sig: Signature, sigma: Type, horizon: int) -> Group[Any]:
    """DD-DEF-SEM-TYPES: ``D[[b]] = B[[b]]``, ``D[[σ × τ]] = D[[σ]] × D[[τ]]``,
    ``D[[unit]] = 1``, ``D[[σ+]] = D[[σ]]^N`` (on ``0..horizon``)."""
    if isinstance(sigma, Base):
        return sig.bases[sigma.name]
    if isinstance(sigma, Prod):
        return Product(denote_type(sig, sigma.left, horizon), denote_type(sig, sigma.right, horizon))
    if isinstance(sigma, UnitType):
        return Unit()
    return n_streams(denote_type(sig, sigma.elem, horizon), horizon)


def context_group(sig: Signature, gamma: Context, horizon: int) -> list[Group[Any]]:
    """``D[[Γ]] = D[[σ1]] × ... × D[[σn]]``, one group per variable."""
    return [denote_type(sig, sigma, horizon) for _, sigma in gamma]


def delta_context(sig: Signature, gamma: Context, horizon: int, alpha: Sequence[Any]) -> tuple[Any, ...]:
    return tuple(g.delta(a) for g, a in zip(context_group(sig, gamma, horizon), alpha, strict=True))


def integrate_context(sig: Signature, gamma: Context, horizon: int, alpha: Sequence[Any]) -> tuple[Any, ...]:
    return tuple(g.integrate(a) for g, a in zip(context_group(sig, gamma, horizon), alpha, strict=True))


# --- the two semantics --------------------------------------------------------------------


@dataclass(frozen=True)
class Semantics:
    """``D`` (``differential=False``) or ``Dδ`` (``differential=True``) over a signature,
    with ``σ+`` on ``0..horizon``."""

    sig: Signature
    horizon: int
    differential: bool = False

    def basic(self, f: BasicFunction, args: list[Any]) -> Any:
        """``B[[f]]``, or ``Bδ[[f]](α1..αn) = δ_{D[[σ]]}(B[[f]](S_{D[[σ1]]}(α1), ...))``."""
        if not self.differential:
            return f.meaning(*args)
        groups = [denote_type(self.sig, s, self.horizon) for s in f.args]
        integrated = [g.integrate(a) for g, a in zip(groups, args, strict=True)]
        return denote_type(self.sig, f.result, self.horizon).delta(f.meaning(*integrated))

    def __call__(self, gamma: Context, e: Expr, alpha: tuple[Any, ...]) -> Any:
        """``D[[Γ ⊢ e : σ]](α)`` (DD-DEF-SEM-D) or ``Dδ[[Γ ⊢ e : σ]](α)`` (DD-DEF-SEM-DELTA)."""

        def ev(e2: Expr) -> Any:
            return self(gamma, e2, alpha)

        def group(e2: Expr) -> Group[Any]:
            return denote_type(self.sig, type_of(self.sig, gamma, e2), self.horizon)

        if isinstance(e, Var):
            return alpha[[x for x, _ in gamma].index(e.name)]
        if isinstance(e, App):
            return self.basic(self.sig.functions[e.fn], [ev(a) for a in e.args])
        if isinstance(e, Let):
            return self(extend(gamma, e.var, e.type), e.body, (*alpha, ev(e.bound)))
        if isinstance(e, Zero):
            return denote_type(self.sig, e.type, self.horizon).zero()
        if isinstance(e, Add):
            return group(e).add(ev(e.left), ev(e.right))
        if isinstance(e, Neg):
            return group(e).neg(ev(e.arg))
        if isinstance(e, Pair):
            return (ev(e.left), ev(e.right))
        if isinstance(e, Fst):
            return ev(e.arg)[0]
        if isinstance(e, Snd):
            return ev(e.arg)[1]
        if isinstance(e, Star):
            return ()
        if isinstance(e, Out):
            stream = ev(e.arg)
            if not self.differential:  # out_k(D[[e]](α))
                return stream(e.k)
            # Dδ[[out_k(e)]](α) = Σ_{n <= k} Dδ[[e]](α)(n)
            return denote_type(self.sig, type_of(self.sig, gamma, e), self.horizon).sum(
                stream(n) for n in range(e.k + 1)
            )
        inner = extend(gamma, e.var, e.type)

        def body(a: Any) -> Any:
            return self(inner, e.body, (*alpha, a))

        streams = n_streams(denote_type(self.sig, e.type, self.horizon), self.horizon)
        if isinstance(e, Iter):
            start = ev(e.start)
            if not self.differential:  # D: n ↦ (λa. D[[e]](α, a))^n(D[[e']](α))
                return Stream.tabulate(streams.domain, lambda n: iterate(body, n, start))
            # Dδ: n ↦ Σ_{n' <= n} μ(n', n) (λa. Dδ[[e]](α, a))^{n'}(Dδ[[e']](α))
            # (the paper prints Dδ[[e]](α) for the start: DD-DEC-ITER-START)
            g, order = streams.inner, streams.order
            return Stream.tabulate(
                streams.domain,
                lambda n: g.sum(
                    g.scale(order.mobius(m, n), iterate(body, m, start)) for m in range(n + 1)
                ),
            )
        assert isinstance(e, IterIn)
        return iterate_with_input(streams, body, ev(e.inputs), self.differential)


def iterate_with_input(
    streams: StreamGroup, body: Callable[[Any], Any], c: Stream[int, Any], differential: bool
) -> Stream[int, Any]:
    """DD-DEF-ITERIN (equation 3): the unique ``d = c + fb(f^N(d))``, i.e.
    ``d_0 = c_0``, ``d_{n+1} = c_{n+1} + f(d_n)`` with ``f = body``.

    Differential (DD-DEC-ITERIN-DELTA): ``d = δ(c) + fb(δ(f^N)(d))`` where ``body`` is
    ``δ(f)`` and ``δ(f^N)`` is given by Proposition 1.1,
    ``δ(f^N)(d)_n = Σ_{n' <= n} μ(n', n) δ(f)(Σ_{n'' <= n'} d_{n''})``.
    Solved point by point: the value at ``n`` needs ``d`` at ``< n`` only.
    """
    g, order = streams.inner, streams.order
    d: list[Any] = []

    def lifted(n: int) -> Any:  # (f^N(d))_n or δ(f^N)(d)_n, for n < len(d)
        if not differential:
            return body(d[n])
        return g.sum(
            g.scale(order.mobius(m, n), body(g.sum(d[: m + 1]))) for m in range(n + 1)
        )

    for n in streams.domain:
        d.append(c(n) if n == 0 else g.add(c(n), lifted(n - 1)))
    return Stream(streams.domain, tuple(d))


def iterate_with_input_pointwise(
    streams: StreamGroup, delta_body: Callable[[Any], Any], dc: Stream[int, Any]
) -> Stream[int, Any]:
    """DD-CLAIM-ITERIN-SAME-FORM read literally: ``d = δ(c) + fb(δ(f)^N(d))``, the
    body's differential applied pointwise. Refuted for non-linear bodies."""
    return iterate_with_input(streams, delta_body, dc, differential=False)


# --- derivations (DD-PROP-4) ---------------------------------------------------------------

#: A derivation tree: the rule's name, what it names (a variable, a function), its premises.
Derivation = tuple[Any, ...]


def derivations(sig: Signature, gamma: Context, e: Expr) -> list[tuple[Type, Derivation]]:
    """Every derivation of ``Γ ⊢ e : σ``, for every ``σ``, with the rules read as a
    relation (each premise ranging over all of its derivations). Proposition 4 says
    this list has at most one element."""

    def d(g: Context, x: Expr) -> list[tuple[Type, Derivation]]:
        return derivations(sig, g, x)

    if isinstance(e, Var):
        return [(s, ("var", e.name)) for x, s in gamma if x == e.name]
    if isinstance(e, App):
        f = sig.functions.get(e.fn)
        if f is None or len(f.args) != len(e.args):
            return []
        found: list[tuple[Type, Derivation]] = [(f.result, ("app", e.fn))]
        for arg, sigma in zip(e.args, f.args, strict=True):
            found = [(s, (*tree, p)) for s, tree in found for t, p in d(gamma, arg) if t == sigma]
        return found
    if isinstance(e, Zero):
        return [(e.type, ("zero",))]
    if isinstance(e, Star):
        return [(UnitType(), ("star",))]
    if isinstance(e, Neg):
        return [(s, ("neg", p)) for s, p in d(gamma, e.arg)]
    if isinstance(e, Add):
        return [(s, ("add", p, q)) for s, p in d(gamma, e.left) for t, q in d(gamma, e.right) if s == t]
    if isinstance(e, Pair):
        return [(Prod(s, t), ("pair", p, q)) for s, p in d(gamma, e.left) for t, q in d(gamma, e.right)]
    if isinstance(e, (Fst, Snd)):
        first = isinstance(e, Fst)
        return [(s.left if first else s.right, ("fst" if first else "snd", p))
                for s, p in d(gamma, e.arg) if isinstance(s, Prod)]
    if isinstance(e, Out):
        return [(s.elem, ("out", e.k, p)) for s, p in d(gamma, e.arg) if isinstance(s, Streams)]
    if any(x == e.var for x, _ in gamma):
        return []  # Γ, x : σ must not repeat x
    inner = (*gamma, (e.var, e.type))
    if isinstance(e, Let):
        return [(t, ("let", p, q)) for s, p in d(gamma, e.bound) if s == e.type for t, q in d(inner, e.body)]
    if isinstance(e, Iter):
        return [(Streams(e.type), ("iter", p, q)) for s, p in d(inner, e.body) if s == e.type
                for t, q in d(gamma, e.start) if t == e.type]
    return [(Streams(e.type), ("iterin", p, q)) for s, p in d(inner, e.body) if s == e.type
            for t, q in d(gamma, e.inputs) if t == Streams(e.type)]
