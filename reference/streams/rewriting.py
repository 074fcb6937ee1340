"""The equational laws of §3 as rewrites over a small expression syntax of processors.

An :data:`Expr` is built from ``Pure`` (``pure f``), ``Atom`` (a given processor),
``Eval`` (``eval σ``, or ``eval_{g_*} σ``), ``Seq`` (``e1 ; … ; ek``), ``Par``
(``e1 × e2``) and ``Loop``. :func:`denote` builds the processor. Each law is a
function ``Expr → Expr`` applied at a position of a top-level ``Seq`` and
raises :class:`RewriteError` when its left-hand side does not match. A
:class:`Derivation` records the steps with the law and ID used; its
:func:`check_derivation` checks every step with the equivalence checker
(:func:`~reference.streams.equivalence.check_equivalent_chain`), so the paper's
syntactic proofs are replayed step by step.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from reference.algebra.monoid import Monoid, direct_product, state_monoid
from reference.streams.equivalence import check_equivalent_chain
from reference.streams.feedback import loop_processor
from reference.streams.parallel import product
from reference.streams.processors import Processor, pure
from reference.streams.sequential import eval_, eval_g_star, f_star, fuse, seq
from reference.verdict import Verdict


class RewriteError(ValueError):
    """A law's left-hand side does not match the expression."""


@dataclass(frozen=True)
class Pure:
    f: Callable[[Any], Any]
    M: Monoid[Any]
    N: Monoid[Any]
    name: str


@dataclass(frozen=True)
class Atom:
    sigma: Processor


@dataclass(frozen=True)
class Eval:
    """``eval σ`` (``g_name`` empty) or ``eval_{g_*} σ`` with output monoid ``P``."""

    sigma: Processor
    g_name: str = ""
    P: Monoid[Any] | None = None


@dataclass(frozen=True)
class Seq:
    stages: tuple[Expr, ...]


@dataclass(frozen=True)
class Par:
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Loop:
    body: Expr


Expr = Pure | Atom | Eval | Seq | Par | Loop


def show(e: Expr) -> str:
    """The expression in the paper's notation."""
    if isinstance(e, Pure):
        return f"pure {e.name}"
    if isinstance(e, Atom):
        return e.sigma.name
    if isinstance(e, Eval):
        return f"eval_{e.g_name}* {e.sigma.name}" if e.g_name else f"eval {e.sigma.name}"
    if isinstance(e, Seq):
        return "(" + " ; ".join(show(s) for s in e.stages) + ")"
    if isinstance(e, Par):
        return f"({show(e.left)} × {show(e.right)})"
    return f"loop {show(e.body)}"


def denote(e: Expr) -> Processor:
    """The processor an expression stands for."""
    if isinstance(e, Pure):
        return pure(e.f, e.M, e.N, e.name)
    if isinstance(e, Atom):
        return e.sigma
    if isinstance(e, Eval):
        if e.g_name:
            assert e.P is not None
            return eval_g_star(e.sigma, e.P, e.g_name)
        return eval_(e.sigma)
    if isinstance(e, Seq):
        return seq(*(denote(s) for s in e.stages))
    if isinstance(e, Par):
        return product(denote(e.left), denote(e.right))
    return loop_processor(denote(e.body))


def _stages(e: Expr) -> list[Expr]:
    if not isinstance(e, Seq):
        return [e]
    return list(e.stages)


def _replace(e: Expr, i: int, count: int, new: Sequence[Expr]) -> Expr:
    stages = _stages(e)
    if not 0 <= i <= len(stages) - count:
        raise RewriteError(f"no stages {i}..{i + count - 1} in {show(e)}")
    result = stages[:i] + list(new) + stages[i + count:]
    return result[0] if len(result) == 1 else Seq(tuple(result))


def _at(e: Expr, i: int) -> Expr:
    stages = _stages(e)
    if not 0 <= i < len(stages):
        raise RewriteError(f"no stage {i} in {show(e)}")
    return stages[i]


# --- the laws ----------------------------------------------------------------


def decompose_at(e: Expr, i: int) -> Expr:
    """STREAM-COR-3.33: ``σ ∼ pure f ; eval σ`` for ``σ = (S, f, s_ε, o_ε)``."""
    stage = _at(e, i)
    if not isinstance(stage, Atom):
        raise RewriteError(f"decompose needs a processor, got {show(stage)}")
    sigma = stage.sigma
    hom = Pure(sigma.f, sigma.M, state_monoid(sigma.N, (sigma.s_eps,)), f"f_{sigma.name}")
    return _replace(e, i, 1, [hom, Eval(sigma)])


def exchange_at(e: Expr, i: int) -> Expr:
    """STREAM-COR-3.36: ``eval σ ; pure g ∼ pure g_* ; eval_{g_*} σ`` when ``o_ε = ε``."""
    ev, g = _at(e, i), _at(e, i + 1)
    if not (isinstance(ev, Eval) and not ev.g_name and isinstance(g, Pure)):
        raise RewriteError("exchange needs eval σ ; pure g")
    sigma = ev.sigma
    if not sigma.N.equal(sigma.o_eps, sigma.N.identity):
        raise RewriteError(f"exchange needs o_ε = ε, {sigma.name} has {sigma.o_eps!r}")
    states = (sigma.s_eps,)
    g_star = Pure(f_star(g.f), state_monoid(g.M, states), state_monoid(g.N, states), f"{g.name}*")
    return _replace(e, i, 2, [g_star, Eval(sigma, g.name, g.N)])


def pure_fusion_at(e: Expr, i: int) -> Expr:
    """STREAM-COR-3.31: ``pure f ; pure g ∼ pure (f ; g)``."""
    a, b = _at(e, i), _at(e, i + 1)
    if not (isinstance(a, Pure) and isinstance(b, Pure)):
        raise RewriteError("pure fusion needs pure f ; pure g")
    fa, fb = a.f, b.f
    return _replace(e, i, 2, [Pure(lambda m: fb(fa(m)), a.M, b.N, f"({a.name} ; {b.name})")])


def fusion_at(e: Expr, i: int, name: str = "") -> Expr:
    """STREAM-PROP-3.30: ``pure f ; σ ∼ (S, f ; g, s_ε, o_ε)``."""
    a, b = _at(e, i), _at(e, i + 1)
    if not isinstance(a, Pure) or isinstance(b, (Seq, Par, Loop)):
        raise RewriteError("fusion needs pure f ; σ with σ a single processor")
    fused = fuse(a.f, a.M, denote(b), a.name)
    if name:
        fused = Processor(fused.f, fused.s_eps, fused.o_eps, fused.M, fused.N, name)
    return _replace(e, i, 2, [Atom(fused)])


def associate(e: Expr, i: int, j: int) -> Expr:
    """STREAM-COR-3.30 (associativity, up to ∼): group stages ``i..j`` into one ``Seq``."""
    stages = _stages(e)
    if not 0 <= i < j < len(stages):
        raise RewriteError(f"cannot group stages {i}..{j}")
    return _replace(e, i, j - i + 1, [Seq(tuple(stages[i:j + 1]))])


def flatten(e: Expr) -> Expr:
    """STREAM-COR-3.30 the other way: splice nested top-level ``Seq`` stages."""
    out: list[Expr] = []
    for s in _stages(e):
        out.extend(_stages(flatten(s)) if isinstance(s, Seq) else [s])
    return out[0] if len(out) == 1 else Seq(tuple(out))


def introduce_splitter(e: Expr, i: int, split: Expr, merge: Expr) -> Expr:
    """STREAM-DEF-3.44: insert ``split ; pure merge`` (``∼ pure id``) before stage ``i``."""
    stages = _stages(e)
    if not 0 <= i <= len(stages):
        raise RewriteError(f"no position {i}")
    return Seq(tuple(stages[:i] + [split, merge] + stages[i:]))


def partition_at(e: Expr, i: int, merge_out: Expr) -> Expr:
    """STREAM-LEM-3.6: ``τ ; pure merge_N ; σ ∼ τ ; (σ × σ) ; pure merge_P`` when the
    two outputs of ``τ`` are independent inputs to ``σ`` (STREAM-DEF-3.50)."""
    merge_in, sigma = _at(e, i + 1), _at(e, i + 2)
    if not isinstance(merge_in, Pure) or merge_in.name != "merge":
        raise RewriteError("partition needs τ ; pure merge ; σ")
    return _replace(e, i + 1, 2, [Par(sigma, sigma), merge_out])


def parallelize_pure(e: Expr, i: int, split: Expr, merge: Expr) -> Expr:
    """STREAM-PROP-3.45: ``pure f ∼ split ; (pure f × pure f) ; pure merge``."""
    f = _at(e, i)
    if not isinstance(f, Pure):
        raise RewriteError("parallelize needs pure f")
    return _replace(e, i, 1, [split, Par(f, f), merge])


def left_tighten(e: Expr, i: int, f: Callable[[Any], Any], L: Monoid[Any], U: Monoid[Any]) -> Expr:
    """STREAM-PROP-3.61: ``pure f ; loop σ ∼ loop (pure (f × id) ; σ)`` for a
    homomorphism ``f : L → M``. The paper writes ``pure f`` before ``loop σ :
    List[M] ⇝ List[N]``; the types need ``pure (map f) : List[L] ⇝ List[M]``,
    which is the stage this law expects."""
    pf, lp = _at(e, i), _at(e, i + 1)
    if not (isinstance(pf, Pure) and isinstance(lp, Loop)):
        raise RewriteError("left tightening needs pure (map f) ; loop σ")
    body = denote(lp.body)
    f_x_id = Pure(lambda mu: (f(mu[0]), mu[1]), direct_product(L, U), body.M, f"({pf.name} × id)")
    return _replace(e, i, 2, [Loop(Seq((f_x_id, lp.body)))])


def right_tighten(e: Expr, i: int, g: Callable[[Any], Any], P: Monoid[Any], U: Monoid[Any]) -> Expr:
    """STREAM-PROP-3.61-RIGHT: ``loop σ ; pure (map g) ∼ loop (σ ; pure (g × id))``
    for a homomorphism ``g : N → P`` (``map g`` as in :func:`left_tighten`)."""
    lp, pg = _at(e, i), _at(e, i + 1)
    if not (isinstance(lp, Loop) and isinstance(pg, Pure)):
        raise RewriteError("right tightening needs loop σ ; pure (map g)")
    body = denote(lp.body)
    g_x_id = Pure(lambda nu: (g(nu[0]), nu[1]), body.N, direct_product(P, U), f"({pg.name} × id)")
    return _replace(e, i, 2, [Loop(Seq((lp.body, g_x_id)))])


# --- derivations -------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    law: str
    spec_id: str
    expr: Expr


@dataclass(frozen=True)
class Derivation:
    """A chain ``e0 ∼ e1 ∼ … ∼ ek``, each step naming the law (and its ID) used."""

    start: Expr
    steps: tuple[Step, ...] = field(default=())

    def then(self, law: str, spec_id: str, rewrite: Callable[[Expr], Expr]) -> Derivation:
        return Derivation(self.start, (*self.steps, Step(law, spec_id, rewrite(self.last))))

    @property
    def last(self) -> Expr:
        return self.steps[-1].expr if self.steps else self.start

    def lines(self) -> list[str]:
        out = [f"    {show(self.start)}"]
        out += [f"  ∼ {show(s.expr)}    ({s.law})" for s in self.steps]
        return out


def check_derivation(d: Derivation, inputs: Sequence[Any]) -> list[Verdict]:
    """Check every step ``e_{i-1} ∼ e_i`` on ``inputs`` and all their batchings."""
    return check_equivalent_chain([denote(d.start), *(denote(step.expr) for step in d.steps)], inputs)
