"""Spark Connect (``sc://HOST:PORT``): which kind of session a caller holds, and the one line a
path that needs the JVM says over it.

Over Spark Connect the client holds no JVM: no ``sparkContext``, no py4j gateway (``_jvm``,
``_jdf``), only DataFrames sent to the server as plans. The reduce views (SKIP-DEC-SPARK-STATE:
one native streaming aggregation, its changes published from ``foreachBatch``) need nothing
more; the paths that drive the JVM themselves (the reach view's fixpoint engine and its
scratch frames, Hadoop paths other than local ones) refuse in one line
(:class:`NeedsJvm`) before anything is started.
"""

from __future__ import annotations

from typing import Any

from spark_impl.errors import SparkEngineError

#: the scheme of a Spark Connect URL (``--remote``, ``$SPARK_REMOTE``)
CONNECT_SCHEME = "sc://"


def is_connect(spark: Any) -> bool:
    """Whether ``spark`` is a Spark Connect session (its class is of ``pyspark.sql.connect``;
    nothing imported: the Connect client's packages may be absent)."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


def is_connect_url(url: str | None) -> bool:
    return bool(url) and str(url).startswith(CONNECT_SCHEME)


class NeedsJvm(SparkEngineError):
    """A path that drives the JVM through py4j, asked for over Spark Connect."""

    def __init__(self, what: str, remote: str = "sc://...") -> None:
        super().__init__("unsupported", self.line(what, remote))
        self.what = what

    @staticmethod
    def line(what: str, remote: str = "sc://...") -> str:
        """The refusal's one line, naming the server ``remote``."""
        return (f"incspec: {what} needs the JVM (py4j); it does not run over Spark Connect "
                f"({remote}): run it with a local or cluster master")


def require_jvm(spark: Any, what: str) -> None:
    """Raise :class:`NeedsJvm` for ``what`` if ``spark`` is a Spark Connect session."""
    if is_connect(spark):
        raise NeedsJvm(what)
