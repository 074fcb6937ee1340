"""§3.9 A simplified model of TCP (STREAM-PROP-3.62).

Monoids (with counted ticks, STREAM-DEC-COUNTED-TICKS):
``Pack = T[List[N × T]]`` (packets ``(i, m)`` and ticks), ``Re = T[List[N]]``
(retransmission requests), the sender's data input ``T[List[T]]``.

- ``sender : T[List[T]] × Re ⇝ Pack × Re`` stores all input data with their
  sequence numbers (from 0); on ``[m]`` it assigns the next number ``i`` and emits
  ``[(i, m)]``; on a request ``[i]`` it retransmits packet ``i`` (a request for a
  number not yet assigned emits nothing: the paper is silent, STREAM-DEC-TCP-SENDER);
  on a tick of either input it emits a tick.
- ``receiver : Pack × Re ⇝ List[T] × Re`` stores received data and the next
  unreceived number ``n``; on ``[(n, m_n)]`` it emits ``[m_n, …, m_{n'-1}]`` (all
  consecutive data it now has) and the request ``[n']``, setting ``n ← n'``;
  otherwise (other packets, ticks) it emits the request ``[n]``.
- ``net`` processors drop (replace by ⊤), reorder and delay packets, except that a
  packet is forwarded at once once the net has processed at least ``t_i`` items
  (the paper's delivery assumption). A net is deterministic given its *behaviour*:
  per processed item, ``("forward",)``, ``("drop",)`` or ``("hold", d)`` (release
  after ``d`` more items), and the bound ``t``.

The system is ``σ = sender ; (net1 × pure id) ; receiver ; (pure id × net2)`` and
TCP is ``loop σ``; Proposition 3.62: the receiver reconstructs the input.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from reference.algebra.monoid import (
    Monoid,
    StateFn,
    Word,
    direct_product,
    free_monoid,
    hom_on_generators,
    state_monoid,
)
from reference.streams.feedback import loop_processor
from reference.streams.parallel import product, pure_id
from reference.streams.processors import Processor
from reference.streams.sequential import seq
from reference.streams.ticks import embed, tick, ticked

Data = free_monoid("List[T]")
Pack = ticked(free_monoid("List[N×T]"))
Re = ticked(free_monoid("List[N]"))
Input = ticked(Data)


def _packet(i: int, m: Any) -> Word:
    return ((0, ((i, m),)),)


def _request(n: int) -> Word:
    return ((0, (n,)),)


TICK = tick()


# --- sender ------------------------------------------------------------------


def sender() -> Processor:
    """The sender; state: the tuple of data sent so far (index = sequence number)."""
    M = direct_product(Input, Re)
    N = direct_product(Pack, Re)

    def on_generator(g: tuple[Word, Word]) -> StateFn:
        data_in, re_in = g
        word = data_in or re_in
        side, value = word[0]
        from_data = bool(data_in)

        def step(sent: tuple[Any, ...]) -> tuple[tuple[Any, ...], tuple[Word, Word]]:
            if side == 1:
                return sent, (TICK, Re.identity)
            if from_data:
                (m,) = value
                return sent + (m,), (_packet(len(sent), m), Re.identity)
            (i,) = value
            if 0 <= i < len(sent):
                return sent, (_packet(i, sent[i]), Re.identity)
            return sent, N.identity

        return step

    f = hom_on_generators(M, state_monoid(N, ()), on_generator)
    return Processor(f, (), N.identity, M, N, "sender")


# --- receiver ----------------------------------------------------------------


@dataclass(frozen=True)
class ReceiverState:
    received: tuple[tuple[int, Any], ...] = ()  # sorted (i, m), numbers ≥ next only
    next: int = 0


def receiver() -> Processor:
    """The receiver; the Re input is not used (the paper gives it no behaviour)."""
    M = direct_product(Pack, Re)
    N = direct_product(Data, Re)

    def on_generator(g: tuple[Word, Word]) -> StateFn:
        pack_in, _ = g
        packet = pack_in[0][1][0] if pack_in and pack_in[0][0] == 0 else None

        def step(st: ReceiverState) -> tuple[ReceiverState, tuple[Any, Word]]:
            if packet is None:  # a tick, or input on the Re side
                return st, (Data.identity, _request(st.next))
            i, m = packet
            store = dict(st.received)
            if i >= st.next:
                store.setdefault(i, m)
            if i != st.next:
                return ReceiverState(tuple(sorted(store.items())), st.next), (Data.identity, _request(st.next))
            n, out = st.next, []
            while n in store:
                out.append(store.pop(n))
                n += 1
            return ReceiverState(tuple(sorted(store.items())), n), (tuple(out), _request(n))

        return step

    f = hom_on_generators(M, state_monoid(N, ()), on_generator)
    return Processor(f, ReceiverState(), N.identity, M, N, "receiver")


# --- lossy, reordering, delaying networks -------------------------------------


Decision = tuple[Any, ...]  # ("forward",) | ("drop",) | ("hold", d)


@dataclass(frozen=True)
class NetState:
    processed: int = 0
    held: tuple[tuple[int, Word], ...] = ()  # (release at count, packet word)


def net(T: Monoid[Word], behaviour: Sequence[Decision], t: int) -> Processor:
    """A net ``T ⇝ T``. On its ``k``-th processed item (a packet or a tick) it
    first releases held packets due at ``k``, then applies ``behaviour[k]`` to the
    item (``forward`` when ``k ≥ t`` or past the end of ``behaviour``). A dropped
    packet becomes a tick; ticks pass through."""

    def on_generator(g: Word) -> StateFn:
        def step(st: NetState) -> tuple[NetState, Word]:
            k = st.processed + 1
            due = [w for at, w in st.held if at <= k]
            held = tuple((at, w) for at, w in st.held if at > k)
            out = T.prod(due)
            if g[0][0] == 1:
                return NetState(k, held), T.op(out, g)
            decision = behaviour[k - 1] if k - 1 < len(behaviour) and k < t else ("forward",)
            if decision[0] == "drop":
                return NetState(k, held), T.op(out, TICK)
            if decision[0] == "hold":
                return NetState(k, held + ((k + int(decision[1]), g),)), out
            return NetState(k, held), T.op(out, g)

        return step

    f = hom_on_generators(T, state_monoid(T, ()), on_generator)
    return Processor(f, NetState(), T.identity, T, T, "net")


def tcp_system(behaviour1: Sequence[Decision], t1: int, behaviour2: Sequence[Decision], t2: int) -> Processor:
    """``σ = sender ; (net1 × pure id) ; receiver ; (pure id × net2)``."""
    return seq(
        sender(),
        product(net(Pack, behaviour1, t1), pure_id(Re)),
        receiver(),
        product(pure_id(Data), net(Re, behaviour2, t2)),
    )


def tcp(behaviour1: Sequence[Decision], t1: int, behaviour2: Sequence[Decision], t2: int) -> Processor:
    """``loop σ : List[T[List[T]]] ⇝ List[List[T]]``."""
    return loop_processor(tcp_system(behaviour1, t1, behaviour2, t2))


def rounds_input(data: Sequence[Any], ticks: int) -> tuple[Word, ...]:
    """``L ⊤ … ⊤`` as loop input: one round carrying ``L``, then ``ticks`` rounds of one tick
    each (the paper's ``L ⊤^N`` read as a list of rounds, STREAM-PROP-3.62 notes)."""
    return (embed(tuple(data), Data),) + (TICK,) * ticks


def delivered(outputs: Sequence[Any]) -> tuple[Any, ...]:
    """The concatenation of the per-round data outputs of ``loop σ``."""
    return Data.prod(outputs)


def rounds_to_deliver(data: Sequence[Any], behaviour1: Sequence[Decision], t1: int,
                      behaviour2: Sequence[Decision], t2: int, limit: int) -> int | None:
    """The least ``N ≤ limit`` with ``⟦loop σ⟧(L ⊤^N)`` delivering ``L``, or ``None``."""
    sigma = tcp(behaviour1, t1, behaviour2, t2)
    s = sigma.s_eps
    got: tuple[Any, ...] = delivered(sigma.o_eps)
    for n, batch in enumerate(rounds_input(data, limit)):
        s, o = sigma.f((batch,))(s)
        got = Data.op(got, delivered(o))
        if got == tuple(data):
            return n
    return None
