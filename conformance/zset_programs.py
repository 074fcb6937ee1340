"""The program syntax of the ``zset`` area (named in :mod:`conformance.protocols`).

The suite uses the JSON dataflow language of
:mod:`reference.differential.dataflow` (DD-DEC-DATAFLOW) unchanged; this module
names it for implementers. A program is::

    {"inputs": [name, ...], "output": node, "max_iterations": int?}

with nodes ``input``, ``map`` (``fn``), ``filter`` (``pred``), ``join``,
``distinct``, ``reduce`` (``agg``), ``plus`` (alias ``union``), ``negate``,
``iterate`` (``var``, ``seed``, ``body``) and ``var``; the functions, predicates
and aggregates are named from the vocabulary of
:mod:`reference.differential.operators`. At each version an engine receives one
delta per input (``[[element, weight], ...]``, arrays for tuples) and answers the
output delta ``output(t) - output(t - 1)``; a program or element it refuses is
the error class ``malformed-input``, a loop that does not converge ``no-fixpoint``.
"""

from __future__ import annotations

from reference.differential.dataflow import program_from_json, program_to_json
from reference.differential.operators import AGGREGATES, FILTER_PREDICATES, MAP_FUNCTIONS

__all__ = ["AGGREGATES", "FILTER_PREDICATES", "MAP_FUNCTIONS", "program_from_json", "program_to_json"]
