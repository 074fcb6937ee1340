"""Verdicts: what a checker of a universally quantified statement returns.

A statement ∀x∈D. P(x) is *decided* when D is finite and was enumerated
(``decided=True``); otherwise the verdict says it "holds up to" the bound
searched. A failing verdict carries a concrete counterexample, named parts
included (e.g. the collection and the delta of SKIP-THM-2's witness).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Verdict:
    """The outcome of checking one statement (cited by its spec ID)."""

    spec_id: str
    holds: bool
    searched: str  # what was searched: "all a in Z_5, v in Z_5", "|M| <= 3 over {0,1,2}"
    decided: bool = False  # True when the search covered the whole (finite) domain
    counterexample: Mapping[str, Any] | None = field(default=None)
    cases: int = 0  # how many instances were examined

    def __bool__(self) -> bool:
        return self.holds

    def describe(self) -> str:
        if self.holds:
            scope = "holds (decided)" if self.decided else "holds up to the bound"
            return f"{self.spec_id}: {scope}: {self.searched} ({self.cases} cases)"
        return f"{self.spec_id}: fails: counterexample {dict(self.counterexample or {})!r}"


def holds(spec_id: str, searched: str, cases: int, decided: bool = False) -> Verdict:
    return Verdict(spec_id, True, searched, decided, None, cases)


def fails(spec_id: str, searched: str, cases: int, **witness: Any) -> Verdict:
    return Verdict(spec_id, False, searched, False, witness, cases)
