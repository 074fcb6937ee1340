"""The optimized implementation on Apache Spark (PySpark).

Independent of ``reference/``: nothing here calls the reference to compute an
answer. It implements the protocols of :mod:`conformance.protocols`.
"""
