"""The Spark engines' own error: what they refuse, and why.

The engines never import the conformance suite: they raise :class:`SparkEngineError`
with one of the refusal classes below, and the suite's adapter
(:mod:`spark_impl.protocol`) translates it into the suite's error. The class
names are the language-neutral vocabulary of the refusals (they are also the
wire's error classes), so a pipeline user reads the same word a case expects.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Literal, TypeVar

ErrorClass = Literal["invalid-delta", "ill-formed-reducer", "malformed-input", "no-fixpoint",
                     "unsupported"]


class SparkEngineError(Exception):
    """An operation the engine refuses; its state is unchanged."""

    def __init__(self, error_class: ErrorClass, message: str = "") -> None:
        super().__init__(message or error_class)
        self.error_class: ErrorClass = error_class
        self.message = message or error_class


#: Failures of the machinery between the JVM and its Python workers, not of the data: a
#: Python worker (an executor's, or the driver-side one Spark starts to check a
#: ``transformWithStateInPandas`` operator's state schema) that did not connect back or
#: authenticate in time on a loaded machine, or that died. The micro-batch they hit is
#: uncommitted, so restarting the query from its checkpoint runs it again; one that fails
#: the same way :data:`RETRIES` times in a row stands.
TRANSIENT_MARKERS = (
    "Python worker failed to connect back",            # the JVM gave up waiting for a worker
    "waiting for the Python worker to connect back",   # the same, said by Spark 4's factory
    "CANNOT_OPEN_SOCKET",                              # a worker could not reach the JVM in time
    "Python worker exited unexpectedly",               # a worker died (killed, out of memory)
    "Lost connection to Python daemon",
    "STREAMING_PYTHON_RUNNER_INITIALIZATION_FAILURE",  # the driver-side worker's start failed
)
#: What no restart can mend, whatever the marker above it: a Python worker that cannot import
#: what it unpickles (a worker interpreter without pandas, or without the project's packages:
#: seen on a standalone cluster as a driver-side runner's initialization failure, once retried
#: five times). The error's one-line cause is then this line.
PERMANENT_MARKERS = ("ModuleNotFoundError", "ImportError")
#: how many times a query is started for one micro-batch before a transient failure stands
RETRIES = 5


def transient(error: BaseException) -> bool:
    """Whether ``error`` is one of :data:`TRANSIENT_MARKERS` (worth a restart from the checkpoint)."""
    text = str(error)
    return (any(marker in text for marker in TRANSIENT_MARKERS)
            and not any(marker in text for marker in PERMANENT_MARKERS))


def cause(error: BaseException) -> str:
    """``error`` in one line: its first line that names a permanent marker, else a transient
    one, else its first line."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()] or [type(error).__name__]
    line = next((line for markers in (PERMANENT_MARKERS, TRANSIENT_MARKERS) for line in lines
                 if any(m in line for m in markers)), lines[0])
    return line if len(line) <= 300 else line[:297] + "..."


#: seconds before the first restart after a transient failure, doubled for each next one
#: (1, 2, 4, 8 s): a loaded machine gets a moment to catch up before the Python workers
#: are started again (Spark waits a fixed 10 s for a worker to connect back)
RESTART_PAUSE = 1.0

log = logging.getLogger("spark_impl")


def restart_after(error: BaseException, attempt: int, what: str,
                  say: Callable[[str], None] | None = None) -> bool:
    """Whether to start ``what`` again after ``error`` ended its ``attempt``-th run (1, 2,
    ...): yes if the error is :func:`transient` and fewer than :data:`RETRIES` attempts
    were made; then the cause is said in one line (``say``, else a logged warning) and the
    restart paused."""
    if not transient(error) or attempt >= RETRIES:
        return False
    (say or log.warning)(f"{what}: attempt {attempt} of {RETRIES} failed ({cause(error)}); "
                         "starting it again")
    time.sleep(RESTART_PAUSE * 2 ** (attempt - 1))
    return True


_T = TypeVar("_T")


def with_restarts(run: Callable[[], _T], what: str) -> _T:
    """``run()``, started again while it fails transiently (:func:`restart_after`); for work
    that a failure leaves undone, so an attempt starts from where the first did."""
    attempt = 1
    while True:
        try:
            return run()
        except Exception as error:
            if not restart_after(error, attempt, what):
                raise
            attempt += 1
