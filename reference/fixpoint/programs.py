"""§6 "Examples Beyond DCE", written in the Level 2 DSL (FIX-EX-6, FIX-EX-2).

Each program is ``lfp(S => union(const(base), step(S)))`` with its step built
from joins against named relations; the system derives the incremental
operations (:mod:`reference.fixpoint.dsl`).
"""

from __future__ import annotations

from reference.fixpoint.dsl import Fn, Lfp, S, const, join, minus, union
from reference.fixpoint.stratification import StratifiedProgram, Stratum

identity = Fn("id", lambda s: s)
first = Fn("fst", lambda s: s[0])
second = Fn("snd", lambda s: s[1])
target = Fn("(s, r) ↦ r[1]", lambda s, r: r[1])

#: FIX-EX-2 (DCE in the DSL): live = lfp(S => union(const(roots), join(edges, S, (u, v) ↦ v))).
DCE = Lfp(union(const("roots"), join("edges", S, identity, target)))

#: Call graph: reachable functions from the entry points, through call sites
#: with several possible targets (virtual dispatch): f --calls--> site --targets--> g.
CALL_GRAPH = Lfp(union(const("entry"),
                       join("targets", join("calls", S, identity, target), identity, target)))

#: Transitive closure, the Datalog rules path(x, y) :- edge(x, y).
#: path(x, z) :- path(x, y), edge(y, z). Elements are pairs (x, y).
TRANSITIVE_CLOSURE = Lfp(union(const("edge"),
                               join("edge", S, second, Fn("(p, e) ↦ (p[0], e[1])",
                                                          lambda p, e: (p[0], e[1])))))

#: Points-to flow (Andersen-style, assignments only): pts(v, o) :- new(v, o).
#: pts(v, o) :- assign(v, w), pts(w, o); ``flows`` holds (w, v) for each
#: assignment v = w, keyed by the source variable.
POINTS_TO = Lfp(union(const("new"),
                      join("flows", S, first, Fn("(p, f) ↦ (f[1], p[1])",
                                                 lambda p, f: (f[1], p[1])))))


#: §8 (stratification): garbage = lfp(S => minus(union(const(freed), join(edges, S)), live)):
#: what the freed objects reach that is not live (reclaimable memory), over
#: the live set of the first stratum (negation of a lower stratum).
GARBAGE = StratifiedProgram((
    Stratum("live", DCE),
    Stratum("garbage", Lfp(minus(union(const("freed"), join("edges", S, identity, target)), "live"))),
))
