"""``reference``: an in-process implementation built on ``reference/``, one peer among
the implementations the suite judges (``incspec conform --impl reference``).

Its engines maintain state *incrementally* with the reference's functions, while the
suite's oracle recomputes from scratch: the suite checks one against the other. It
reaches the suite only through :mod:`conformance.protocols` and the suite's public
vocabularies; the suite finds it through the ``incspec.implementations`` entry point.
``mutants/`` holds its deliberately wrong variants (the ``incspec.mutants`` entry point).
"""
