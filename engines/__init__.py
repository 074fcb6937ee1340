"""Released engines under the suite: one folder per engine, and the tooling around them.

A folder holds an adapter (a program speaking the suite's JSON-lines protocol, run
in the engine's own environment: it imports nothing of the project), its pinned
dependencies, ``engine.json`` (read by :mod:`conformance.released_engines`) and its
known failures with their causes. The modules here are the command ``incspec
engines`` (:mod:`engines.cli`) and the results page (:mod:`engines.results_page`);
they use the suite, which does not import them.
"""
