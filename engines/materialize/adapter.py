"""Materialize under the conformance suite, through the JSON-lines protocol: a skeleton.

    MATERIALIZE_URL=postgresql://materialize@localhost:6875/materialize \
        .engines/materialize/bin/python engines/materialize/adapter.py

It runs in its own virtual environment (``pip install -r requirements.txt``: psycopg, Materialize
speaking PostgreSQL's wire protocol) and imports nothing of the project. Materialize maintains SQL
views incrementally (on differential dataflow), so the areas it would serve map onto SQL:

* reduce: the collection a table ``(k, v)``, each ``load`` or ``apply`` its deletes (Δ⁻) then
  inserts (Δ⁺) in one transaction, the reducer a ``GROUP BY k`` aggregate (:data:`REDUCE_SQL`:
  SUM, COUNT, MIN, MAX), the view's ``changes`` read by ``SUBSCRIBE`` (a retraction without an
  insertion for a key: ``null``);
* fixpoint: the live set as ``WITH MUTUALLY RECURSIVE`` (:data:`FIXPOINT_SQL`) over the roots and
  edges tables, subscribed to in the same way.

Only the handshake is written: every case is answered ``skipped`` with the mapping it would use,
never with a result. Without a server it refuses at once, with one line on stderr naming what is
missing, and exits 2.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from typing import Any
from urllib.parse import urlsplit

ENV = "MATERIALIZE_URL"

PLANS = {
    "reduce": "a table with inserts and deletes, GROUP BY per key, the changes read by SUBSCRIBE",
    "fixpoint": "the live set as WITH MUTUALLY RECURSIVE over the roots and edges tables, read by SUBSCRIBE",
}

#: the reduce area's view for a built-in reducer (``{aggregate}``: SUM, COUNT, MIN or MAX)
REDUCE_SQL = """
CREATE TABLE collection (k JSONB NOT NULL, v JSONB NOT NULL);
CREATE MATERIALIZED VIEW reduced AS SELECT k, {aggregate}(v::numeric) AS acc FROM collection GROUP BY k;
SUBSCRIBE TO reduced WITH (SNAPSHOT = false);
"""

#: the fixpoint area's view: what the roots reach over the edges
FIXPOINT_SQL = """
CREATE TABLE roots (node JSONB NOT NULL);
CREATE TABLE edges (src JSONB NOT NULL, dst JSONB NOT NULL);
CREATE MATERIALIZED VIEW live AS
    WITH MUTUALLY RECURSIVE reach (node JSONB) AS (
        SELECT node FROM roots
        UNION SELECT edges.dst FROM reach JOIN edges ON reach.node = edges.src)
    SELECT node FROM reach;
SUBSCRIBE TO live WITH (SNAPSHOT = false);
"""


def refuse(what: str) -> int:
    print(f"materialize adapter: {what}", file=sys.stderr)
    return 2


def unreachable(url: str) -> str:
    """Why no server answers at ``url`` ("" when one accepts a connection)."""
    parts = urlsplit(url)
    if not parts.hostname:
        return f"{ENV} is not a PostgreSQL URL with a host: {url!r}"
    try:
        with socket.create_connection((parts.hostname, parts.port or 6875), timeout=2):
            return ""
    except OSError as exc:
        return f"no Materialize server answers at {ENV}={url}: {exc}"


def main() -> int:
    url = os.environ.get(ENV, "")
    if not url:
        return refuse(f"needs a running Materialize server whose PostgreSQL URL is in {ENV} ({ENV} is not set)")
    problem = unreachable(url)
    if problem:
        return refuse(problem)
    try:
        import psycopg
    except ImportError:
        return refuse("psycopg is not installed: run `incspec engines install materialize`")
    try:
        with psycopg.connect(url) as connection:
            row = connection.execute("SELECT mz_version()").fetchone()
            version = str(row[0]) if row else "unknown"
    except psycopg.Error as exc:
        return refuse(f"the server at {ENV}={url} is not Materialize: {str(exc).splitlines()[0]}")
    for line in sys.stdin:
        message = json.loads(line)
        if message["cmd"] == "start":
            reply: dict[str, Any] = {"implementation": {
                "name": "materialize", "version": version, "language": "sql",
                "areas": list(PLANS), "features": [],
                "configuration": {"status": "skeleton: every case is skipped, its mapping not written yet"}}}
        elif message["cmd"] == "run":
            area = message["case"]["area"]
            reply = {"seq": message["seq"], "skipped": {
                "message": f"materialize skeleton: the {area} mapping ({PLANS.get(area, 'none')}) is not "
                           "written yet; see engines/materialize/README.md"}}
        else:
            return 0
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
