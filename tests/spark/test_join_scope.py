"""spark_impl/join_scope.py: inside the scope (nested or not) the session never broadcasts a
join side nor injects a runtime filter; leaving the outermost scope puts back what the
session held, a key it had set and a key it had left unset alike."""

from __future__ import annotations

from typing import Any

import pytest

from spark_impl.join_scope import SETTINGS, no_broadcasts

pytestmark = pytest.mark.spark

THRESHOLD, BLOOM = list(SETTINGS)


def test_the_scope_sets_its_settings_and_the_outermost_exit_restores_the_sessions(spark: Any) -> None:
    spark.conf.set(THRESHOLD, "12345")
    spark.conf.unset(BLOOM)
    try:
        with no_broadcasts(spark):
            with no_broadcasts(spark):
                assert {key: spark.conf.get(key) for key in SETTINGS} == SETTINGS
            assert {key: spark.conf.get(key) for key in SETTINGS} == SETTINGS  # still inside one
        assert spark.conf.get(THRESHOLD) == "12345"
        assert BLOOM not in spark.conf.getAll  # unset again, not set to a value
    finally:
        spark.conf.unset(THRESHOLD)
