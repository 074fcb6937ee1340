"""``incspec check-reducer``: check a custom reducer before trusting it.

Modules, one job each: ``shapes`` (find the reducer a target names),
``domains`` (what to quantify over), ``laws`` (the properties, stated with the
reference's functions), ``search`` (shared engine types, guarded evaluation),
``exhaustive`` / ``property_search`` / ``symbolic`` (the three engines),
``shrink`` (simpler counterexamples), ``reachability`` (would a runtime meet an instance),
``verdicts`` (combine, explain, Theorem 2 witness), ``worker`` (the search in a
child process), ``sandbox`` (its limits), ``report`` (text), ``cli``.
"""
