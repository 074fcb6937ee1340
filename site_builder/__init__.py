"""``incspec site build``: a static site generated from the repository alone.

The builder reads the catalog (``spec/``) and its proofs map (``proofs_map``), the case
files (``conformance/cases/``), the released engines' results data
(``engines/results.json``), the benchmark results and the guides (``docs/``); writes one
Markdown page per paper, per case and per engine, a matrix engine × case, the
performance page and the guides into a build folder; and runs MkDocs (Material theme,
built-in search) on it. The site is never edited by hand: ``site/`` is generated.
"""
