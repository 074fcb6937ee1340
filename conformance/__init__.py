"""The implementation-agnostic conformance suite, with ``reference/`` as its oracle.

=================================  ==========================================================
module                             job
=================================  ==========================================================
``protocols``                      the engine Protocols per area (the contract; additive only)
``cases_model``                    the Case a runner passes (frozen, mirrors the case JSON)
``schemas/``, ``schema``           JSON Schemas of case files and protocol messages; validation
``cases/``, ``loader``             the case files (hand-written and generated); loading, filters
``reducers``, ``zset_programs``    the vocabularies cases use (named reducers, program syntax)
``oracle/``                        thin adapters: case operations -> expectations from reference/
``generators/``, ``generate``      seeded generators; ``incspec generate-cases [--check|--stamp]``
``drivers``, ``wire``              run a case on an in-process engine; observations as JSON
``adapters/subprocess_impl``       the JSON-lines protocol to an implementation in any language
``implementations/``               ``--impl`` resolution; the shipped ``reference`` implementation
``compare``, ``execute``           judge observations (semantics, invariants, cost); run cases
``reports``, ``runner``            table, JSON, Markdown, JUnit XML; ``incspec conform``
``stateful``                       Hypothesis state machines, side by side with the oracle
``mutants/``                       deliberately wrong engines and the kill score
``pytest_plugin``                  the suite as parametrized tests in an implementer's run
=================================  ==========================================================
"""
