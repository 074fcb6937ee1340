"""The environment of a Spark application a test starts in a process of its own (a
pipeline run to be killed or crashed, a scenario forcing the state store's timing).

Such a process lives a minute or less over a few rows: its JVM runs on HotSpot's client
compiler alone (:data:`spark_impl.session.SHORT_LIVED_ENV`), which starts fast, rather
than spending its CPU compiling with C2 code it never runs long enough to earn back.
"""

from __future__ import annotations

import os
from pathlib import Path

from spark_impl.session import SHORT_LIVED_ENV

ROOT = Path(__file__).resolve().parents[2]
#: How long a test waits for such a process to end before failing: a minute or a few on a
#: quiet machine, and the wait ends when the process does, so the limit is set for a machine
#: several times slower (a limit that only a busy machine reaches fails a correct tree)
SLOW_RUN_LIMIT = 1800


def application_env(**extra: str) -> dict[str, str]:
    """This process's environment, the project importable, the JVM short-lived, plus ``extra``."""
    return {**os.environ, "PYTHONPATH": str(ROOT), SHORT_LIVED_ENV: "1", **extra}
