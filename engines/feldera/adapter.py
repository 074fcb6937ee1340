"""Feldera under the conformance suite, through the JSON-lines protocol: a skeleton.

    FELDERA_URL=http://localhost:8080 .engines/feldera/bin/python engines/feldera/adapter.py

It runs in its own virtual environment (``pip install -r requirements.txt``: Feldera's Python
client) and imports nothing of the project. Feldera runs SQL programs incrementally (DBSP), so the
areas it would serve map onto SQL:

* zset: each input a table fed as a changelog (an insert per positive weight, a delete per
  negative one), the program's nodes as SQL views over it (map a projection, filter a ``WHERE``,
  plus ``UNION ALL``, join an equi-join on the pair's key, distinct ``SELECT DISTINCT``, reduce a
  ``GROUP BY``), each step's output read as the view's change;
* fixpoint: the live set as a recursive view (``DECLARE RECURSIVE VIEW``, :data:`FIXPOINT_SQL`)
  over the roots and edges tables, each ``apply`` the tables' inserts and deletes.

Only the handshake is written: every case is answered ``skipped`` with the mapping it would use,
never with a result. Without a server it refuses at once, with one line on stderr naming what is
missing, and exits 2.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from importlib.metadata import version
from typing import Any
from urllib.parse import urlsplit

ENV = "FELDERA_URL"

PLANS = {
    "zset": "each input a table fed as a changelog, the program's nodes as SQL views over it",
    "fixpoint": "the live set as a recursive SQL view over the roots and edges tables",
}

#: the fixpoint area's program: what the roots reach over the edges (Feldera's recursive views)
FIXPOINT_SQL = """
CREATE TABLE roots (node VARCHAR NOT NULL);
CREATE TABLE edges (src VARCHAR NOT NULL, dst VARCHAR NOT NULL);
DECLARE RECURSIVE VIEW live (node VARCHAR NOT NULL);
CREATE MATERIALIZED VIEW live AS
    SELECT node FROM roots
    UNION SELECT edges.dst FROM live JOIN edges ON live.node = edges.src;
"""


def refuse(what: str) -> int:
    print(f"feldera adapter: {what}", file=sys.stderr)
    return 2


def unreachable(url: str) -> str:
    """Why no server answers at ``url`` ("" when one accepts a connection)."""
    parts = urlsplit(url)
    if not parts.hostname:
        return f"{ENV} is not a URL: {url!r}"
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((parts.hostname, port), timeout=2):
            return ""
    except OSError as exc:
        return f"no Feldera server answers at {ENV}={url}: {exc}"


def main() -> int:
    url = os.environ.get(ENV, "")
    if not url:
        return refuse(f"needs a running Feldera server whose URL is in {ENV} ({ENV} is not set)")
    problem = unreachable(url)
    if problem:
        return refuse(problem)
    try:
        import feldera  # noqa: F401  (the client, in the engine's own environment)
    except ImportError:
        return refuse("the feldera client is not installed: run `incspec engines install feldera`")
    for line in sys.stdin:
        message = json.loads(line)
        if message["cmd"] == "start":
            reply: dict[str, Any] = {"implementation": {
                "name": "feldera", "version": version("feldera"), "language": "sql",
                "areas": list(PLANS), "features": [],
                "configuration": {"status": "skeleton: every case is skipped, its mapping not written yet",
                                  "server": url}}}
        elif message["cmd"] == "run":
            area = message["case"]["area"]
            reply = {"seq": message["seq"], "skipped": {
                "message": f"feldera skeleton: the {area} mapping ({PLANS.get(area, 'none')}) is not written "
                           "yet; see engines/feldera/README.md"}}
        else:
            return 0
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
