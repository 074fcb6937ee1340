"""Which known causes explain a cost overrun. An expectations file's ``cost_causes`` lists, per work
counter, the causes known to inflate it, each with the factor it is known to explain::

    "cost_causes": {"reducer_calls": [{"factor": 2, "cause": "add-called-twice ..."},
                                      {"factor": 25, "cause": "array-replaced-whole ..."}]}

The factors multiply in their order: a counter measured at most 2× its bound is explained by the
first cause alone, at most 50× by both. An overrun beyond the product (or above a bound of 0) is
explained by none: it is a failure of its own, never folded into a known cause.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

#: work counter -> its known causes, in order: [{"factor": number, "cause": text}, ...]
CostCauses = Mapping[str, Sequence[Mapping[str, Any]]]

NOT_EXPLAINED = "not explained (cost): {counter} above the {factor}× its bound that known causes explain"


def read(raw: Any) -> dict[str, list[dict[str, Any]]]:
    """An expectations file's ``cost_causes``, checked: every cause has a text and a factor above 1."""
    found: dict[str, list[dict[str, Any]]] = {}
    for counter, causes in dict(raw or {}).items():
        for cause in causes:
            factor = cause.get("factor")
            if not isinstance(factor, int | float) or isinstance(factor, bool) or factor <= 1:
                raise ValueError(f"cost cause of {counter}: factor must be a number above 1, got {factor!r}")
            if not str(cause.get("cause", "")).strip():
                raise ValueError(f"cost cause of {counter}: no cause text")
        found[counter] = [{"factor": c["factor"], "cause": c["cause"]} for c in causes]
    return found


def label(counter: str, cause: Mapping[str, Any]) -> str:
    """A cost cause as the results page names it: its text and the factor it explains."""
    return f"{cause['cause']} [{counter}: {_number(cause['factor'])}×]"


def explaining(causes: CostCauses, counter: str, measured: float, bound: float) -> tuple[list[str], Fraction, bool]:
    """The fewest causes, in order, whose factors together cover ``measured`` against ``bound``
    (their labels), the factor they reach, and whether it covers the overrun."""
    product, used = Fraction(1), []
    for cause in causes.get(counter, ()):
        if Fraction(measured) <= product * Fraction(bound):
            break
        product *= Fraction(cause["factor"])
        used.append(label(counter, cause))
    return used, product, Fraction(measured) <= product * Fraction(bound)


def attribute(causes: CostCauses, overrun: Mapping[str, Sequence[float]]) -> list[str]:
    """The causes of a result's cost failure, given per counter its worst (measured, bound): the
    causes explaining it, or a "not explained" entry naming the factor all its causes reach."""
    found: list[str] = []
    for counter, (measured, bound) in overrun.items():
        used, product, covered = explaining(causes, counter, measured, bound)
        found += used if covered else [NOT_EXPLAINED.format(counter=counter, factor=_number(product))]
    return found


def _number(x: Fraction | float) -> str:
    f = Fraction(x)
    return str(f.numerator) if f.denominator == 1 else f"{float(f):g}"
