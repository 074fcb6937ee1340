"""The optimized implementation on Apache Spark (PySpark).

Independent of ``reference/``: nothing here calls the reference to compute an
answer. Grouped by paper, as ``reference/`` is:

=======================  ===========================================================
``reduce/``              Skip's ``reduce``: maintained views on Structured Streaming
``fixpoint/``            the incremental fixpoint: reachability, contraction, expansion
``zset/``                the Z-set dataflow language (differential dataflow)
``stream/``              named stream processors as streaming stateful operators
``storage/``             what the engines store: keyed tables, scratch, frames, files
``errors``, ``values``   the engines' refusals; JSON values as canonical text
``session``              the SparkSession and where state is checkpointed
``shipping``             the project's packages as one zip, for a cluster's executors
``join_scope``           joins without broadcasts while an update runs
``pipeline``             ``incspec pipeline``: views over a folder of change files
``protocol/``            the adapters to the suite (:mod:`conformance.protocols`)
``conformance_adapter``  the implementation as the suite finds it (``--impl spark``)
=======================  ===========================================================

Only ``protocol/`` and ``conformance_adapter`` import the suite.
"""
