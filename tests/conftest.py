"""Shared test configuration: Hypothesis profiles, the one SparkSession, and the
``spec`` marker's validation (a check citing an unknown ID fails collection).

Hypothesis profiles (select with ``HYPOTHESIS_PROFILE``; default ``dev``):

=========  ===========  =========================================
profile    max_examples  use
=========  ===========  =========================================
dev        50            local edit-run loop
ci         200           ``.ci/run``
thorough   2000          before a release (``tox -e thorough``)
=========  ===========  =========================================

The long scenarios of the slow tier take their size from the profile too
(:func:`tests.profiles.scenario_bound`): a smaller one under dev and ci, the full one under thorough.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from proofs_map.catalog import load_catalog
from proofs_map.evidence import EVIDENCE_KINDS
from tests.profiles import PROFILE, PROFILES

for _name, _examples in PROFILES.items():
    settings.register_profile(
        _name,
        max_examples=_examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        derandomize=_name == "ci",
        print_blob=True,
    )
settings.load_profile(PROFILE)

_CATALOG = load_catalog()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    _heavy_first(items)
    for item in items:
        for mark in item.iter_markers("spec"):
            unknown = [i for i in mark.args if i not in _CATALOG]
            if unknown:
                raise pytest.UsageError(f"{item.nodeid}: spec marker cites unknown IDs {unknown}")
            if mark.kwargs.get("evidence") not in EVIDENCE_KINDS:
                raise pytest.UsageError(f"{item.nodeid}: spec marker needs evidence in {EVIDENCE_KINDS}")


def _heavy_first(items: list[pytest.Item]) -> None:
    """The tests marked ``heavy`` (tens of seconds each) first, the order otherwise kept.

    A run of several tiers at once (``scripts/test --with-heavy``) hands its tests to the
    workers in this order: the long ones first and the many short ones last fill the
    workers evenly to the end, where heavy tests met last would leave one worker idle while
    the other runs them (longest first: the classic greedy rule for a short makespan). Every
    worker sorts alike (the order depends on the collected items alone), as pytest-xdist
    requires. A run of one tier is left as collected."""
    items.sort(key=lambda item: item.get_closest_marker("heavy") is None)


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """The one SparkSession of the test session (created on first use)."""
    pytest.importorskip("pyspark", reason="the Spark extra is not installed")
    from spark_impl.session import build_session

    # 2 GB of heap, not Spark's default 1: one worker's JVM lives through the default and the
    # heavy tiers (CI: scripts/test --with-heavy), and at 1 GB a few fixpoint updates already
    # kept its old generation 90-99 % full (62 full collections in one measured run)
    session = build_session(app_name="incspec-tests", conf={"spark.driver.memory": "2g"})
    yield session
    session.stop()


@pytest.fixture(autouse=True)
def _no_streaming_query_outlives_its_test(request: pytest.FixtureRequest) -> Iterator[None]:
    """Stop the streaming queries a Spark test left running (an engine it dropped keeps
    its query): an idle query still polls its input, and dozens of them, left behind by
    the tests before, took the machine's two cores from the tests after."""
    yield
    if "spark" in request.fixturenames:
        for query in request.getfixturevalue("spark").streams.active:
            query.stop()
