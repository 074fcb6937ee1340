"""The Spark engines' own error: what they refuse, and why.

The engines never import the conformance suite: they raise :class:`SparkEngineError`
with one of the refusal classes below, and the suite's adapter
(:mod:`spark_impl.protocol`) translates it into the suite's error. The class
names are the language-neutral vocabulary of the refusals (they are also the
wire's error classes), so a pipeline user reads the same word a case expects.
"""

from __future__ import annotations

from typing import Literal

ErrorClass = Literal["invalid-delta", "ill-formed-reducer", "malformed-input", "no-fixpoint",
                     "unsupported"]


class SparkEngineError(Exception):
    """An operation the engine refuses; its state is unchanged."""

    def __init__(self, error_class: ErrorClass, message: str = "") -> None:
        super().__init__(message or error_class)
        self.error_class: ErrorClass = error_class
        self.message = message or error_class


#: A Python worker that did not start within Spark's fixed timeout (a loaded machine): the
#: micro-batch is uncommitted, so restarting the query from its checkpoint runs it again.
TRANSIENT = "Python worker failed to connect back"
#: how many times a query is restarted after :data:`TRANSIENT` before the error stands
RETRIES = 3


def transient(error: BaseException) -> bool:
    """Whether ``error`` is :data:`TRANSIENT` (worth a restart from the checkpoint)."""
    return TRANSIENT in str(error)
