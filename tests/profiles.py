"""The test profiles (``HYPOTHESIS_PROFILE``: dev, the default; ci; thorough), which
:mod:`tests.conftest` registers with Hypothesis, and the bounds they give the long
scenarios no Hypothesis setting reaches."""

from __future__ import annotations

import os

#: each profile's Hypothesis ``max_examples``
PROFILES = {"dev": 50, "ci": 200, "thorough": 2000}
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "dev")


def scenario_bound(*, ci: int, thorough: int) -> int:
    """The size of a long scenario (kills of a pipeline process, the items of a long
    stream): ``thorough`` under the thorough profile, else ``ci`` (dev and ci). The test
    states both in its docstring."""
    return thorough if PROFILE == "thorough" else ci
