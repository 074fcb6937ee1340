"""§3.9 The TCP model: Proposition 3.62 over generated network behaviours."""

from __future__ import annotations

from itertools import product
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.streams.processors import run, run_batches
from reference.streams.tcp import (
    TICK,
    Data,
    Input,
    Pack,
    Re,
    delivered,
    net,
    receiver,
    rounds_input,
    rounds_to_deliver,
    sender,
    tcp,
)

decisions = st.one_of(st.just(("forward",)), st.just(("drop",)), st.tuples(st.just("hold"), st.integers(1, 4)))
behaviours = st.lists(decisions, max_size=20)
data = st.lists(st.sampled_from("abcdef"), max_size=6)


@pytest.mark.spec("STREAM-PROP-3.62", evidence="property")
@given(data, behaviours, st.integers(1, 15), behaviours, st.integers(1, 15))
def test_tcp_delivers(L: list[str], b1: list[Any], t1: int, b2: list[Any], t2: int) -> None:
    """Some N delivers L, within the paper's bound Σ t_i + 1 (here t_i = max(t1, t2) for every
    packet); before that, every round's delivered data is a prefix of L (nothing reordered,
    duplicated or invented)."""
    bound = len(L) * max(t1, t2) + 1
    n = rounds_to_deliver(L, b1, t1, b2, t2, bound)
    assert n is not None and n <= bound
    outputs = run(tcp(b1, t1, b2, t2))(rounds_input(L, bound))
    so_far: tuple[str, ...] = ()
    for o in outputs:
        so_far = so_far + o
        assert so_far == tuple(L[: len(so_far)])
    assert so_far == tuple(L)


@pytest.mark.spec("STREAM-PROP-3.62", evidence="example")
def test_tcp_examples() -> None:
    L = ["a", "b", "c"]
    assert rounds_to_deliver(L, [], 1, [], 1, 5) == 0  # perfect nets: delivered in the round of L
    assert rounds_to_deliver(L, [("drop",)], 100, [], 1, 5) == 1  # packet 0 lost: one retransmission round
    # all three packets and the three requests they cause are lost in round 0; round 1 only
    # carries ticks and fresh requests for 0; rounds 2, 3, 4 retransmit packets 0, 1, 2
    assert rounds_to_deliver(L, [("drop",)] * 3, 100, [("drop",)] * 3, 100, 10) == 4
    assert delivered(run(tcp([("hold", 2)], 100, [], 1))(rounds_input(L, 2))) == tuple(L)


@pytest.mark.spec("STREAM-DEF-3.61-TCP", evidence="example")
def test_receiver_and_nets() -> None:
    """The receiver delivers in order and requests the next number; nets drop to ⊤ and hold."""
    rec = receiver()
    batch = Pack.prod([((0, ((1, "b"),)),), ((0, ((0, "a"),)),), TICK])
    out = run(rec)((batch, Re.identity))
    assert out == (("a", "b"), ((0, (0, 2, 2)),))
    p0, p1, p2 = (((0, ((i, "x"),)),) for i in range(3))
    reordering = net(Pack, [("hold", 2)], 10)  # p0 held until the 3rd item
    assert run_batches(reordering, [p0, p1, p2]) == Pack.prod([p1, p0, p2])
    lossy = net(Pack, [("forward",), ("drop",)], 10)
    assert run_batches(lossy, [p0, p1, p2]) == Pack.prod([p0, TICK, p2])
    bounded = net(Pack, [("drop",)] * 5, 2)  # from the 2nd item on, packets pass at once
    assert run_batches(bounded, [p0, p1, p2]) == Pack.prod([TICK, p1, p2])


@pytest.mark.spec("STREAM-DEC-TCP-SENDER", evidence="example")
def test_sender_on_unknown_request() -> None:
    snd = sender()
    request = (Input.identity, ((0, (5,)),))
    data_in = (((0, ("a",)),), Re.identity)
    assert run(snd)(request) == (Pack.identity, Re.identity)
    assert run_batches(snd, [data_in, request, (Input.identity, ((0, (0,)),))]) == (
        Pack.prod([((0, ((0, "a"),)),), ((0, ((0, "a"),)),)]), Re.identity)


@pytest.mark.spec("STREAM-DEC-TCP-SENDER", evidence="property")
@given(data, st.lists(st.integers(0, 8), max_size=5))
def test_sender_retransmits_known_packets_only(L: list[str], requests: list[int]) -> None:
    snd = sender()
    batches = [((((0, tuple(L)),) if L else ()), Re.identity)] + [
        (Input.identity, ((0, (i,)),)) for i in requests]
    packets, _ = run_batches(snd, batches)
    sent = [p for side, v in packets if side == 0 for p in v]
    assert sent == [(i, m) for i, m in enumerate(L)] + [(i, L[i]) for i in requests if i < len(L)]
    assert Data.identity == ()


@pytest.mark.spec("STREAM-PROP-3.62", evidence="exhaustive")
def test_tcp_delivers_exhaustive() -> None:
    """Every pair of net behaviours of at most 2 decisions over {forward, drop, hold 1, hold 2}
    (21 each), bounds t ∈ {1, 3} per net, L ∈ {[], [a], [a, b]}: delivered within Σ t_i + 1 rounds."""
    choices: list[Any] = [("forward",), ("drop",), ("hold", 1), ("hold", 2)]
    behaviours_ = [list(b) for n in range(3) for b in product(choices, repeat=n)]
    assert len(behaviours_) == 21
    runs = 0
    for L in ([], ["a"], ["a", "b"]):
        for b1, b2 in product(behaviours_, repeat=2):
            for t1, t2 in product((1, 3), repeat=2):
                bound = len(L) * max(t1, t2) + 1
                n = rounds_to_deliver(L, b1, t1, b2, t2, bound)
                assert n is not None and n <= bound, (L, b1, t1, b2, t2)
                runs += 1
    assert runs == 3 * 21 * 21 * 4
