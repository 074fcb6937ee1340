"""§3.7 Ticks: Proposition 3.53 (refuted constructively), the counted-ticks decision,
Propositions 3.55 and 3.56 and their different incremental behaviour."""

from __future__ import annotations

from itertools import chain, combinations, groupby
from itertools import product as cartesian
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.algebra.monoid import check_left_cancellative, direct_product, free_monoid, powerset
from reference.streams.functions import check_condition_1, check_stream_function
from reference.streams.processors import o_after, processor_of, run_batches
from reference.streams.ticks import (
    defeat,
    embed,
    from_strata,
    list_stratified_difference,
    set_difference,
    set_difference_witness,
    strata,
    stratified_difference,
    tick,
    tick_collapse_witness,
)

P = powerset()
PP = direct_product(P, P)
fs = frozenset


def _subsets(universe: list[Any]) -> list[frozenset[Any]]:
    return [fs(c) for c in chain.from_iterable(combinations(universe, n) for n in range(len(universe) + 1))]


# --- Proposition 3.53 --------------------------------------------------------


@pytest.mark.spec("STREAM-PROP-3.53", evidence="exhaustive")
def test_set_difference_no_update_exhaustive() -> None:
    """For A = {a, b}: every candidate value x = ΔF(p, n) ∈ P(A) violates condition (1) at the
    proof's (p, n); so no function ΔF works (decided: all 4 values)."""
    p, n = set_difference_witness("a")
    assert set_difference(PP.op(p, n)) == fs()
    for x in _subsets(["a", "b"]):

        def candidate(p_: Any, n_: Any, x: frozenset[Any] = x) -> frozenset[Any]:
            return x

        verdict = defeat(candidate, "a")
        assert not verdict
        assert verdict.counterexample == {"p": p, "n": n, "lhs": fs(), "rhs": fs({"a"}) | x}


def _like(p: Any, n: Any) -> frozenset[Any]:
    return fs()


@pytest.mark.spec("STREAM-PROP-3.53", evidence="property")
@given(st.functions(like=_like, returns=st.frozensets(st.sampled_from("abc")), pure=True),
       st.sampled_from("abc"))
def test_set_difference_defeats_any_candidate(candidate: Any, a: str) -> None:
    """Any (generated) candidate ΔF is defeated by the proof's input pair."""
    assert not defeat(candidate, a)


# --- the counted-ticks decision ----------------------------------------------


@pytest.mark.spec("STREAM-DEC-COUNTED-TICKS", evidence="example")
def test_ticks_collapse_under_B() -> None:
    w = tick_collapse_witness("a")
    assert w["same_input"] and not w["same_output"]
    assert w["F_w1"] == ((1, True), (0, fs({"a"}))) and w["F_w2"] == ((1, True),)


@pytest.mark.spec("STREAM-DEF-3.54", evidence="property")
@pytest.mark.spec("STREAM-DEC-COUNTED-TICKS", evidence="property")
@given(st.lists(st.sampled_from(["+a", "-a", "+b", "tick"]), max_size=8))
def test_counted_ticks_keep_every_stratum(items: list[str]) -> None:
    """Counted: one stratum per tick (k ticks, k + 1 strata), empty ones included; under B
    consecutive ticks merge."""
    for counted in (True, False):
        sf = stratified_difference(counted)
        word = sf.M.prod(_gen(i, counted) for i in items)
        layers = strata(word, PP, counted)
        ticks = items.count("tick")
        if counted:
            assert len(layers) == ticks + 1
        else:  # a run of consecutive ticks is one ⊤ (⊤⊤ = ⊤): one stratum per run, plus one
            runs = sum(1 for item, _ in groupby(items) if item == "tick")
            assert len(layers) == runs + 1


def _gen(item: str, counted: bool) -> Any:
    if item == "tick":
        return tick(counted)
    pair = (fs(item[1]), fs()) if item[0] == "+" else (fs(), fs(item[1]))
    return embed(pair, PP)


# --- Propositions 3.55 and 3.56 ----------------------------------------------

GEN_ITEMS = ["+a", "-a", "+b", "-b", "tick"]


@pytest.mark.spec("STREAM-PROP-3.55", evidence="exhaustive")
def test_ticked_difference_exhaustive() -> None:
    """Both readings of ticks; every word of ≤ 2 generators over {+a, -a, +b, -b, ⊤} as p, a, b
    (conditions (1), (2a), (2b) on all triples)."""
    for counted in (True, False):
        sf = stratified_difference(counted)
        words_ = list({sf.M.prod(_gen(i, counted) for i in w): None
                       for n in range(3) for w in cartesian(GEN_ITEMS, repeat=n)})
        assert check_stream_function(sf, words_)


@pytest.mark.spec("STREAM-PROP-3.55", evidence="property")
@given(st.lists(st.lists(st.sampled_from(GEN_ITEMS), max_size=5), min_size=1, max_size=3))
def test_ticked_difference_property(ws: list[list[str]]) -> None:
    sf = stratified_difference(True)
    xs = [sf.M.prod(_gen(i, True) for i in w) for w in ws]
    assert check_stream_function(sf, xs)
    assert all(sf.F(x) == run_batches(processor_of(sf), [_gen(i, True) for i in w]) for x, w in zip(xs, ws, strict=True))


PAIRS = [(fs(a), fs(b)) for a in _subsets(["a", "b"]) for b in _subsets(["a", "b"])]


@pytest.mark.spec("STREAM-PROP-3.56", evidence="exhaustive")
def test_list_difference_exhaustive() -> None:
    """All lists of ≤ 2 pairs over P({a, b})² (273 lists) for (1); (2) on lists ≤ 1, and O' is
    left-cancellative (checked on the outputs)."""
    sf = list_stratified_difference()
    xs = [tuple(w) for n in range(3) for w in cartesian(PAIRS, repeat=n)]
    assert check_condition_1(sf, xs)
    short = [w for w in xs if len(w) <= 1]
    assert check_stream_function(sf, short)
    assert check_left_cancellative(free_monoid(), [sf.F(w) for w in short])


@pytest.mark.spec("STREAM-PROP-3.56", evidence="property")
@given(st.lists(st.lists(st.sampled_from(PAIRS), max_size=4).map(tuple), min_size=1, max_size=3))
def test_list_difference_property(xs: list[tuple[Any, ...]]) -> None:
    assert check_stream_function(list_stratified_difference(), xs)


@pytest.mark.spec("STREAM-CLAIM-3.56-INCREMENTAL", evidence="example")
def test_incremental_behaviour_differs() -> None:
    """F emits a at once on (a, ε) mid-stratum; G emits nothing for a stratum until its whole
    pair arrives, and never revises what it emitted."""
    ticked, listed = processor_of(stratified_difference(True)), processor_of(list_stratified_difference())
    p = ticked.M.prod([embed((fs(), fs({"b"})), PP), tick()])  # stratum 1 negated b; now in stratum 2
    assert o_after(ticked, p, embed((fs({"a"}), fs()), PP)) == ((0, fs({"a"})),)
    assert o_after(ticked, p, embed((fs({"b"}), fs()), PP)) == ()  # b is in the previous negative set
    q: tuple[tuple[frozenset[str], frozenset[str]], ...] = ((fs(), fs({"b"})),)
    assert o_after(listed, q, ((fs({"a"}), fs()),)) == (fs({"a"}),)  # one sealed stratum, one output
    assert o_after(listed, q, ()) == ()


@pytest.mark.spec("STREAM-CLAIM-3.56-INCREMENTAL", evidence="property")
@given(st.lists(st.sampled_from(PAIRS), max_size=5).map(tuple), st.lists(st.sampled_from(PAIRS), max_size=3).map(tuple))
def test_list_outputs_are_never_revised(p: tuple[Any, ...], a: tuple[Any, ...]) -> None:
    """G's output on p is a prefix of its output on pa, one element per pair; F's last stratum
    can grow within a stratum."""
    G = list_stratified_difference()
    assert G.F(p + a)[: len(p)] == G.F(p) and len(G.F(p)) == len(p)
    sf = stratified_difference(True)
    grow = sf.M.prod([embed((fs({"x"}), fs()), PP)])
    assert strata(sf.F(sf.M.op(grow, embed((fs({"y"}), fs()), PP))), P)[-1] == fs({"x", "y"})


@pytest.mark.spec("STREAM-DEC-COUNTED-TICKS", evidence="exhaustive")
def test_counted_ticks_exhaustive() -> None:
    """Every word of ≤ 4 generators over {+a, -a, ⊤}: counted, k ticks give k + 1 strata and
    the word is recovered from its strata; under B some distinct generator sequences collide."""
    collisions = 0
    for counted in (True, False):
        sf = stratified_difference(counted)
        seen: dict[Any, tuple[str, ...]] = {}
        for n in range(5):
            for w in cartesian(["+a", "-a", "tick"], repeat=n):
                word = sf.M.prod(_gen(i, counted) for i in w)
                layers = strata(word, PP, counted)
                if counted:
                    assert len(layers) == w.count("tick") + 1
                    assert from_strata(layers, sf.M, PP, counted) == word
                key = tuple(layers)
                if key in seen and seen[key].count("tick") != w.count("tick"):
                    collisions += not counted
                seen.setdefault(key, w)
    assert collisions > 0
