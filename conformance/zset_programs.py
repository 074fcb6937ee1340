"""The program syntax of the ``zset`` area (named in :mod:`conformance.protocols`).

The suite uses the JSON dataflow language of
:mod:`reference.differential.dataflow` (DD-DEC-DATAFLOW) unchanged; this module
names it for implementers. A program is::

    {"inputs": [name, ...], "output": node, "max_iterations": int?}

with nodes ``input``, ``map`` (``fn``), ``filter`` (``pred``), ``join``,
``distinct``, ``reduce`` (``agg``), ``plus`` (alias ``union``), ``negate``,
``iterate`` (``var``, ``seed``, ``body``) and ``var``; the functions, predicates
and aggregates are named from the vocabulary ``conformance/vocabulary/zset.json``
(:data:`FUNCTIONS`), whose meaning the oracle takes from
:mod:`reference.differential.operators`. At each version an engine receives one
delta per input (``[[element, weight], ...]``, arrays for tuples) and answers the
output delta ``output(t) - output(t - 1)``; a program or element it refuses is
the error class ``malformed-input``, a loop that does not converge ``no-fixpoint``.
"""

from __future__ import annotations

from conformance import vocabulary
from reference.differential.dataflow import program_from_json, program_to_json

#: kind (``map``, ``filter``, ``aggregate``) -> the function names a program may use
FUNCTIONS: dict[str, tuple[str, ...]] = {kind: vocabulary.zset_functions(kind)
                                         for kind in ("map", "filter", "aggregate")}

__all__ = ["FUNCTIONS", "program_from_json", "program_to_json"]
