"""The checker agrees with the reference's registry of built-in reducers: for each
built-in, on its own finite carriers, every verdict line matches the expected
verdicts the reference states by hand (``reference.reduce.BUILTINS[...].expected``)."""

from __future__ import annotations

import pytest

from check_reducer import exhaustive, property_search
from check_reducer.domains import carrier_domain
from check_reducer.laws import Equality
from check_reducer.search import Bounds, Problem
from check_reducer.verdicts import all_verdicts
from reference.reduce import BUILTINS, Builtin


def expected_lines(b: Builtin) -> dict[str, str]:
    e = b.expected
    word = {True: "holds", False: "fails"}
    return {"def2-add+def2-remove": word[e.reducer], "def7": word[e.well_formed],
            "def7-global": word[e.globally_well_formed],
            "def7-skipdoc": word[e.skipdoc_well_formed], "def11": word[e.incrementally_correct]}


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_builtin_verdicts_match_the_reference(name: str) -> None:
    b = BUILTINS[name]
    p = Problem(b.reducer, carrier_domain(b.values), carrier_domain(b.accumulators), Equality(),
                Bounds())
    lines = all_verdicts(p, exhaustive.run(p) + property_search.run(p, examples=50, seed=0))
    commutes = "holds" if {lines["def2-add"].status, lines["def2-remove"].status} == {"holds"} else "fails"
    got = {"def2-add+def2-remove": commutes, **{k: lines[k].status for k in
                                               ("def7", "def7-global", "def7-skipdoc", "def11")}}
    assert got == expected_lines(b), b.description
    # over the finite carriers the laws quantified over (a, v) are decided
    for key in ("def2-add", "def2-remove", "def7-global", "def7-skipdoc"):
        assert lines[key].status == "fails" or lines[key].decided, key
