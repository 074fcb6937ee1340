"""Session settings set for a while, then put back as they were: shared by the engines
(:mod:`spark_impl.join_scope`, the reduce view runner), which import nothing of the session's
construction (:mod:`spark_impl.session`)."""

from __future__ import annotations

from typing import Any


def set_conf(spark: Any, settings: dict[str, str]) -> dict[str, str | None]:
    """Set ``settings`` in the session's conf; return what each key held before (None:
    unset), for :func:`restore_conf`."""
    before = {key: spark.conf.get(key, None) for key in settings}
    for key, value in settings.items():
        spark.conf.set(key, value)
    return before


def restore_conf(spark: Any, before: dict[str, str | None]) -> None:
    """Put back the session's conf as :func:`set_conf` found it."""
    for key, value in before.items():
        if value is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, value)
