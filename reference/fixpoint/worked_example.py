"""§4 "Worked Example: DCE in Detail": the graphs of §4.1-4.5 as data
(roots, edges, and the edit each subsection makes). The expected results are
the paper's and live in the tests, never computed here.
"""

from __future__ import annotations

from reference.fixpoint.general_pattern import Edge
from reference.fixpoint.managed import Change

#: FIX-EX-4.1: base = {R}; stepFwd(R) = {A}, stepFwd(A) = {B, D}, stepFwd(B) = {C}, stepFwd(D) = {B}.
SETUP_ROOTS: tuple[str, ...] = ("R",)
SETUP_EDGES: tuple[Edge, ...] = (("R", "A"), ("A", "B"), ("A", "D"), ("B", "C"), ("D", "B"))

#: FIX-EX-4.2: "add an edge R → E where E is a new node with stepFwd(E) = {F}".
EXPANSION_CHANGE = Change(add_edges=(("R", "E"), ("E", "F")))

#: FIX-EX-4.3: "remove the edge A → D" (from the state after §4.2).
CONTRACTION_CHANGE = Change(remove_edges=(("A", "D"),))

#: FIX-EX-4.4: R → A, A → B, B → A (ranks R 0, A 1, B 2); then remove R → A.
CYCLE_ROOTS: tuple[str, ...] = ("R",)
CYCLE_EDGES: tuple[Edge, ...] = (("R", "A"), ("A", "B"), ("B", "A"))
CYCLE_CHANGE = Change(remove_edges=(("R", "A"),))

#: FIX-EX-4.5: R → B, R → C, C → B (ranks R 0, B 1, C 1); then remove R → B.
STALE_ROOTS: tuple[str, ...] = ("R",)
STALE_EDGES: tuple[Edge, ...] = (("R", "B"), ("R", "C"), ("C", "B"))
STALE_CHANGE = Change(remove_edges=(("R", "B"),))

#: FIX-CLAIM-PRINTED-CORRECT, "later" part: after §4.5, add B → C (a cycle
#: B ↔ C), then remove R → C. The true fixpoint is {R}; the printed algorithm,
#: having re-derived B at rank 0, lets B (rank 0) support C (rank 1) and keeps
#: the unreachable cycle {B, C} alive.
PRINTED_LATER_EDITS: tuple[Change, ...] = (
    STALE_CHANGE,
    Change(add_edges=(("B", "C"),)),
    Change(remove_edges=(("R", "C"),)),
)
