"""Java classes and static methods looked up once (spark_impl/jvm_lookups.py): a column
built by name costs one Py4J round trip, the call, not three (the class looked up by
its bare name through the view's imports, the method, the call)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

pytestmark = pytest.mark.spark


@contextmanager
def sent(spark: Any) -> Iterator[list[str]]:
    """The Py4J commands this thread sends in the block, the JVM's releases of
    Python-collected proxies (``m``/``d``, sent whenever Python collects) left out."""
    client = spark.sparkContext._gateway._gateway_client
    commands: list[str] = []
    original = client.send_command

    def counting(command: str, *args: Any, **kwargs: Any) -> Any:
        if not command.startswith("m\nd\n"):
            commands.append(command)
        return original(command, *args, **kwargs)

    client.send_command = counting
    try:
        yield commands
    finally:
        del client.send_command


def test_a_column_by_name_is_one_round_trip(spark: Any) -> None:
    from pyspark.sql import functions as F

    def build() -> None:
        F.col("x")
        F.lit(1)
        F.concat(F.col("a"), F.col("b"))  # a sequence of columns: PythonUtils.toSeq

    build()  # each method looked up once
    with sent(spark) as commands:
        build()
    calls = [c.split("\n")[2] for c in commands if c.startswith("c\n")]
    assert [c for c in commands if c.startswith("r\n")] == []  # no reflection: no lookup
    assert calls.count("col") == 3 and calls.count("lit") == 1 and calls.count("toSeq") == 1


def test_a_class_looked_up_once_constructs_and_calls(spark: Any) -> None:
    from spark_impl.jvm_lookups import java_class

    jvm = spark.sparkContext._jvm
    boxes = java_class(jvm, "java.lang.Integer")
    assert java_class(jvm, "java.lang.Integer") is boxes
    boxes.valueOf("1")  # the method looked up once
    with sent(spark) as commands:
        assert boxes.valueOf("41") + 1 == 42
        assert boxes.valueOf("7") == 7
    assert [c for c in commands if c.startswith("r\n")] == []
    assert java_class(jvm, "java.util.ArrayList")().size() == 0
