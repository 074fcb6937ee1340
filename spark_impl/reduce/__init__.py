"""Skip's reactive ``reduce`` on Structured Streaming (``reference/skip/``, ``spec/skip.toml``).

* :mod:`~spark_impl.reduce.maintained_view`: the maintained view, the library face
  (:func:`~spark_impl.reduce.maintained_view.maintained_view`);
* :mod:`~spark_impl.reduce.reducer_kinds`: the reducers it runs, by kind (group, order,
  Python), and the built-ins by name;
* :mod:`~spark_impl.reduce.keyed_fold`: the state-store operator of the reducers that are
  not sums;
* :mod:`~spark_impl.reduce.suite_reducers`: the suite's named reducers, re-implemented;
* :mod:`~spark_impl.reduce.view_runner`: a view driven one change batch at a time (the
  suite's adapter, tests, benchmarks).
"""
