"""The managed incremental fixpoint on Spark: reachability (``reference/fixpoint/``,
``spec/fixpoint.toml``).

* :mod:`~spark_impl.fixpoint.reachability`: the engine
  (:class:`~spark_impl.fixpoint.reachability.IncrementalReachability`): its stored tables,
  ``make`` and recomputation from scratch, ``apply``;
* :mod:`~spark_impl.fixpoint.apply_delta`: one incremental batch, as the reference's
  ``apply_delta``: the net change, the segments it breaks, contraction then expansion,
  the new tables and the output delta;
* :mod:`~spark_impl.fixpoint.contraction`: FIX-ALG-CONTRACT (the cascade, re-derivation);
* :mod:`~spark_impl.fixpoint.expansion`: FIX-ALG-EXPAND (the frontier, rounds in rank order);
* :mod:`~spark_impl.fixpoint.update`: what contraction and expansion share (the live set as
  the update stands, the segment lookups, the work counters) and what a round is made of
  (frames computed once and measured by one job);
* :mod:`~spark_impl.fixpoint.segments`: the index of unique-support paths.
"""
