"""Joins without broadcasts while an engine update runs.

Every broadcast join is a Spark job of its own (the broadcast side is
collected to the driver and shipped), and Spark broadcasts any join side it
estimates small: the scratch frames of an update's rounds (one or two rows)
would each cost a job. Inside :func:`no_broadcasts` the session's
``spark.sql.autoBroadcastJoinThreshold`` is ``-1``: joins are shuffled hash
joins, their shuffles stages of the round's one job. The setting is the
session's, so the scope is counted: the first entrant sets it, the last
leaver restores it (engines on several threads of one session).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Concatenate, ParamSpec, Protocol, TypeVar

from pyspark.sql import SparkSession

KEY = "spark.sql.autoBroadcastJoinThreshold"

P = ParamSpec("P")
R = TypeVar("R")


class HasSession(Protocol):
    spark: SparkSession


S = TypeVar("S", bound=HasSession)

_lock = threading.Lock()
_depth = 0
_saved: str | None = None


@contextmanager
def no_broadcasts(spark: SparkSession) -> Iterator[None]:
    """Within the block, Spark never broadcasts a join side on its own."""
    global _depth, _saved
    with _lock:
        if _depth == 0:
            _saved = spark.conf.get(KEY, None)
            spark.conf.set(KEY, "-1")
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                if _saved is None:
                    spark.conf.unset(KEY)
                else:
                    spark.conf.set(KEY, _saved)


def without_broadcasts(method: Callable[Concatenate[S, P], R]) -> Callable[Concatenate[S, P], R]:
    """A method of an object with a ``spark`` session, run in :func:`no_broadcasts`."""

    def run(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
        with no_broadcasts(self.spark):
            return method(self, *args, **kwargs)

    functools.update_wrapper(run, method)
    return run
