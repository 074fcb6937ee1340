"""The symbolic checks' reading of CrossHair: a law not refuted must have been explored."""

from __future__ import annotations

import pytest

from tests.crosshair_laws import iterations_by_law, not_refuted

LOG = """\
3738.241|       |analyze_calltree() Begin analyze calltree  law_a
3739.186|       |analyze_calltree() Exhausted calltree search with CONFIRMED and 0 messages. Number of iterations:  3
3739.239|       |analyze_calltree() Begin analyze calltree  law_b
3740.422|       |analyze_calltree() Aborted calltree search with UNKNOWN and 0 messages. Number of iterations:  71
3740.500|       |analyze_calltree() Begin analyze calltree  law_c
3740.600|       |analyze_calltree() Aborted calltree search with UNKNOWN and 0 messages. Number of iterations:  0
"""


def test_iterations_are_read_per_law() -> None:
    assert iterations_by_law(LOG) == {"law_a": 3, "law_b": 71, "law_c": 0}


def test_not_refuted_needs_an_explored_path() -> None:
    not_refuted({"a": "confirmed"}, "a")
    not_refuted({"b": "not confirmed after 71 iterations"}, "b")
    for outcome in ("not confirmed after 0 iterations", "not confirmed", "refuted: x"):
        with pytest.raises(AssertionError):
            not_refuted({"c": outcome}, "c")
