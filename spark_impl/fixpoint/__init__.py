"""The managed incremental fixpoint on Spark: reachability (``reference/fixpoint/``,
``spec/fixpoint.toml``).

* :mod:`~spark_impl.fixpoint.reachability`: the engine
  (:class:`~spark_impl.fixpoint.reachability.IncrementalReachability`);
* :mod:`~spark_impl.fixpoint.segments`: the index of unique-support paths.
"""
