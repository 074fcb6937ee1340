"""``incspec``: the project's command line, dispatching by dotted name to the
suite (``conformance``), the reducer checker (``check_reducer``), the proofs map
(``proofs_map``) and the Spark pipeline (``spark_impl``), none of which imports
another or this package."""
