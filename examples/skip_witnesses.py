"""Print the executable witnesses of the Skip paper's spec (spec/skip.toml):

1. the counterexample that separates well-formedness on reachable accumulators
   (SKIP-DEF-7) from the earlier draft's global law (SKIP-DEF-7-GLOBAL), and the
   one that separates the global law from Skip's documented contract;
2. Theorem 2's witness for ill-formed reducers: from a failure of Def. 7, the
   collection and delta on which the incremental update differs from
   recomputation, and back.

Run from the repository root: python examples/skip_witnesses.py
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reference.algebra.multiset import Multiset  # noqa: E402
from reference.reduce import (  # noqa: E402
    Delta,
    Reducer,
    builtin,
    check_globally_well_formed,
    check_incremental_correctness,
    check_skipdoc_well_formed,
    check_well_formed,
    decide_incremental_correctness,
    ill_formedness_witness,
    incorrect_update,
    reachable_accumulators,
    reduce_at,
    theorem_2_witness,
    update,
    well_formedness_failure,
)
from reference.skip.carriers import Table  # noqa: E402


def bag(M: Multiset) -> str:
    return "{" + ", ".join(show(v) for v in M.elements()) + "}"


def show(x: Any) -> str:
    if isinstance(x, Multiset):
        return bag(x)
    if isinstance(x, dict):
        return "{" + ", ".join(f"{k!r}: {show(v)}" for k, v in x.items()) + "}"
    if isinstance(x, Delta):
        return f"(Δ⁺ = {show(dict(x.plus))}, Δ⁻ = {show(dict(x.minus))})"
    return str(x)


def separate_reachable_from_global() -> None:
    b = builtin("sum_monus_int")
    R = b.reducer
    print(f"== SKIP-DEF-7 (reachable) vs SKIP-DEF-7-GLOBAL: {b.name}")
    print(f"   {b.description}")
    reach = reachable_accumulators(R, b.values, 4)
    print(f"   V sample {list(b.values)}; reachable accumulators (|M| <= 4): "
          f"{sorted(reach.witnesses)}")
    wf = check_well_formed(R, b.values, 4)
    ic = check_incremental_correctness(R, b.values, 4, 2)
    glob = check_globally_well_formed(R, b.accumulators, b.values)
    print(f"   Def. 7  (reachable): {wf.describe()}")
    print(f"   Def. 11 (incremental correctness): {ic.describe()}")
    print(f"   global law over A sample {list(b.accumulators)}: {glob.describe()}")
    c = glob.counterexample or {}
    print(f"   => ({c['a']} ⊕ {c['v']}) ⊖ {c['v']} = max({c['a']} + {c['v']} - {c['v']}, 0) = "
          f"{c['result']} ≠ {c['a']}, and {c['a']} is not reachable from ι = 0 with values >= 0")
    tiny = Reducer(0, Table(((0,), (1,))), Table(((0,), (0,))), name="tiny")
    print("   the smallest on a finite carrier (decided): A = Z_2, V = {0}, ι = 0, "
          "a ⊕ v = a, a ⊖ v = 0")
    print(f"     Def. 7: {check_well_formed(tiny, (0,), 2, exhaustive=True).describe()}")
    print(f"     Def. 11: {decide_incremental_correctness(tiny, (0, 1), (0,)).describe()}")
    print(f"     global: {check_globally_well_formed(tiny, (0, 1), (0,), exhaustive=True).describe()}")
    print()
    b2 = builtin("min_sorted")
    print(f"== SKIP-DEF-7-GLOBAL vs SKIP-DEF-7-SKIPDOC: {b2.name} ({b2.description})")
    print(f"   global law: {check_globally_well_formed(b2.reducer, b2.accumulators, b2.values).describe()}")
    print(f"   Skip contract: "
          f"{show(check_skipdoc_well_formed(b2.reducer, b2.accumulators, b2.values).counterexample)}")
    print(f"   Def. 11: {check_incremental_correctness(b2.reducer, b2.values, 3, 2).describe()}")
    print()


def theorem_2_witnesses(name: str, C_back: dict[str, Multiset], delta_back: Delta) -> None:
    b = builtin(name)
    R = b.reducer
    print(f"== SKIP-THM-2 witness (2 => 1, contrapositive) for {b.name}: {b.description}")
    law = well_formedness_failure(R, check_well_formed(R, b.values, 3))
    assert law is not None and law.M is not None
    print(f"   Def. 7 fails at M = {bag(law.M)}, v = {show(law.v)}: a = fold_⊕(ι, M) = {show(law.a)},"
          f" (a ⊕ v) ⊖ v = {show(law.result)}")
    witness = theorem_2_witness(R, law.M, law.v)
    assert witness is not None
    C, delta, k = witness.collection, witness.delta, witness.key
    a_k = reduce_at(R, C, k)
    print(f"   collection C = {show(dict(C))}, delta {show(delta)}, key {k!r}")
    print(f"   reduce_R(C)(k) = {show(a_k)}")
    print(f"   update_R(reduce_R(C)(k), Δ, k) = {show(update(R, a_k, delta, k))}")
    print(f"   reduce_R(C • Δ)(k)             = {show(witness.recomputed)}   (differs)")
    failure = incorrect_update(R, C_back, delta_back)
    assert failure is not None
    print()
    print(f"== SKIP-THM-2 witness (1 => 2, contrapositive) for {b.name}, on the §6 example")
    print(f"   C = {show(C_back)}, delta {show(delta_back)}: update gives {show(failure.updated)}, "
          f"recomputation {show(failure.recomputed)}")
    back = ill_formedness_witness(R, failure)
    assert back is not None and back.M is not None
    print(f"   the proof's removals break Def. 7 at M = {bag(back.M)}, v = {show(back.v)}: "
          f"a = {show(back.a)}, (a ⊕ v) ⊖ v = {show(back.result)}")
    print()


def main() -> int:
    separate_reachable_from_global()
    theorem_2_witnesses("sum_bad_remove", {"k": Multiset.of(3, 5, 7)},
                        Delta(plus={"k": Multiset.of(2)}, minus={"k": Multiset.of(5)}))
    theorem_2_witnesses("min_never_declines", {"k": Multiset.of(3, 5)},
                        Delta(minus={"k": Multiset.of(3)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
