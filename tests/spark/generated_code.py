"""Spark's code generation turned back on for a block of a test.

The tests' session runs its plans interpreted (a session over small data:
``spark_impl.session.SMALL_DATA_CONF``). A test of what only the sessions that
generate code see (their code cache, the batch-wise row counts of a cached
table's scan) turns it back on for its own queries."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from spark_impl.session import SMALL_DATA_CONF


@contextmanager
def generated_code(spark: Any) -> Iterator[None]:
    """Within the block, ``spark`` generates code as Spark does by default."""
    for key in SMALL_DATA_CONF:
        spark.conf.unset(key)
    try:
        yield
    finally:
        for key, value in SMALL_DATA_CONF.items():
            spark.conf.set(key, value)
