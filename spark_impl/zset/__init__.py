"""The Z-set dataflow language on Spark, by the delta rules of differential dataflow
(``reference/differential/``, ``spec/differential.toml``).

* :mod:`~spark_impl.zset.dataflow`: the engine
  (:class:`~spark_impl.zset.dataflow.ZSetDataflow`), a program evaluated version by version;
* :mod:`~spark_impl.zset.named_functions`: the suite's map functions, predicates and
  aggregates, re-implemented.
"""
