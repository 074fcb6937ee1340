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

import os
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


@pytest.hookimpl(trylast=True)  # after ``-m`` deselected what does not run: the order is of what runs
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
    """In a run of several tiers (``scripts/test --with-heavy``), each worker's share of the
    tests begins with its part of the ``heavy`` ones (tens of seconds each); a run of one
    tier is left as collected.

    That run hands the tests out with pytest-xdist's ``worksteal`` scheduler: worker ``j`` of
    ``k`` first gets the ``j``-th of ``k`` contiguous shares of the collection (``len // k``
    of what is left, in turn), and a worker that runs out takes the second half of the
    longest queue left. So the heavy tests are dealt round-robin to the shares' fronts and
    the short ones fill the rest in collected order (a module's tests stay together, its
    fixtures made once): the long tests run first on every worker, and the many short ones
    at the end, taken over by whichever worker is idle, level the workers to the last test
    (longest first: the greedy rule for a short makespan). Every worker orders its
    collection alike (the order depends on the items and the worker count alone), as
    pytest-xdist requires."""
    heavy = [item for item in items if item.get_closest_marker("heavy") is not None]
    rest = [item for item in items if item.get_closest_marker("heavy") is None]
    if not heavy or not rest:
        return
    workers = max(1, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))
    ordered: list[pytest.Item] = []
    taken = 0
    for j in range(workers):
        share = (len(items) - len(ordered)) // (workers - j)  # the scheduler's arithmetic
        dealt = heavy[j::workers]
        filler = max(0, share - len(dealt))
        ordered += dealt + rest[taken:taken + filler]
        taken += filler
    items[:] = ordered + rest[taken:]


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """The one SparkSession of the test session (created on first use)."""
    pytest.importorskip("pyspark", reason="the Spark extra is not installed")
    from spark_impl.session import build_session

    # the tests' data are small: no generated code, the parallel collector on a 2 GB heap
    # (spark_impl.session.SMALL_DATA_CONF); 2 GB, not Spark's default 1, matters here too: one
    # worker's JVM lives through the default and the heavy tiers (CI: scripts/test
    # --with-heavy), and at 1 GB a few fixpoint updates already kept its old generation 90-99 %
    # full (62 full collections in one measured run, with G1)
    session = build_session(app_name="incspec-tests", small_data=True)
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
