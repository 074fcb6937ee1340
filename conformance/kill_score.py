"""The kill score: run the suite against every mutant; a mutant is killed when a case
fails, errors, or (for a cost mutant) the cost column fails."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TextIO

from conformance.adapters.in_process import InProcess
from conformance.cases_model import Case
from conformance.execute import Outcome, execute
from conformance.implementations import all_mutants
from conformance.protocols import Mutant


@dataclass(frozen=True)
class Kill:
    mutant: Mutant
    killed: bool
    by: tuple[str, ...]  # IDs of the cases that killed it
    cases_run: int
    outcomes: tuple[Outcome, ...] = ()  # every case of its area, as judged


def run_mutant(mutant: Mutant, cases: Sequence[Case]) -> Kill:
    mine = [c for c in cases if c.area == mutant.area]
    _, outcomes = execute(InProcess(mutant.make()), mine)
    by = tuple(o.case.id for o in outcomes if o.status in ("fail", "errored") or o.cost == "fail")
    return Kill(mutant, bool(by), by, len(mine), tuple(outcomes))


def kill_score(cases: Sequence[Case], mutants: Sequence[Mutant] | None = None) -> list[Kill]:
    """The mutants whose area has cases in ``cases``, each run against those cases."""
    areas = {c.area for c in cases}
    return [run_mutant(m, cases) for m in (mutants if mutants is not None else all_mutants())
            if m.area in areas]


def main(cases: Sequence[Case], out: TextIO) -> int:
    kills = kill_score(cases)
    if not kills:
        out.write("no mutant has cases of its area in the selection\n")
        return 1
    width = max(len(k.mutant.name) for k in kills)
    for k in kills:
        verdict = "KILLED" if k.killed else "SURVIVED"
        first = f" by {len(k.by)} case(s), e.g. {k.by[0]}" if k.by else ""
        kind = " [cost]" if k.mutant.cost_only else ""
        out.write(f"{verdict:<8} {k.mutant.name:<{width}}{kind}  {' '.join(k.mutant.fault.split())}{first}\n")
    killed = sum(k.killed for k in kills)
    out.write(f"\nkill score: {killed}/{len(kills)}\n")
    return 0 if killed == len(kills) else 1
