"""The implementation-agnostic conformance suite, with ``reference/`` as its oracle.

=================================  ==========================================================
module                             job
=================================  ==========================================================
``protocols``                      the engine Protocols per area, lockstep engines, the
                                   handshake (the contract; additive only)
``api``                            the public API an implementation may import: the driver,
                                   the wire helpers, the case model, ``handshake``
``cases_model``                    the Case a runner passes (frozen, mirrors the case JSON)
``schemas/``, ``schema``           JSON Schemas of case files and protocol messages; validation
``cases/``, ``loader``             the case files (hand-written and generated, a format
                                   document per area); loading, filters
``vocabulary/``                    features, reducers, zset functions, stream processors (JSON)
``reducers``, ``zset_programs``    the vocabularies as the oracle reads them
``oracle/``                        thin adapters: case operations -> expectations from reference/
``generators/``, ``generate``      seeded generators; ``incspec generate-cases [--check|--stamp]``
``driver``, ``wire``               the one driver (per case, or lockstep); observations as JSON
``adapters/``                      how the suite reaches an implementation (a ``Backend``):
                                   ``in_process`` through the driver, ``subprocess_impl`` by
                                   the JSON-lines protocol, in any language
``implementations``                ``--impl`` resolution by entry point (``incspec.implementations``)
``compare``, ``execute``           judge observations (semantics, invariants, cost); run cases
                                   on a backend and judge each result
``reports``, ``conform``           table, JSON, Markdown, JUnit XML; the command ``incspec conform``
``released_engines``               ``engines/*/engine.json`` read, for ``incspec conform --engine``
``stateful``                       Hypothesis state machines, side by side with the oracle
``kill_score``                     the suite against every mutant (``incspec.mutants``)
``pytest_plugin``                  the suite as parametrized tests in an implementer's run
=================================  ==========================================================

The suite imports no implementation: the shipped ones (``reference_impl``,
``spark_impl``) are registered in ``pyproject.toml`` and loaded by name.
"""
