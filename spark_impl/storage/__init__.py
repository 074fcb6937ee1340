"""Where the engines' data lives, shared by the papers' packages.

* :mod:`~spark_impl.storage.keyed_tables`: durable keyed tables (reliable checkpoints,
  partitioned bases and one overlay of changes): the reachability engine's state;
* :mod:`~spark_impl.storage.scratch`: executor-local frames of an update, computed once
  and released when it is over;
* :mod:`~spark_impl.storage.frames`: frames kept between updates with bounded lineage
  (the Z-set engine's traces), and unions;
* :mod:`~spark_impl.storage.saved_tables`: keyed tables saved as numbered versions, each
  writing the overlay and only the bases not saved before (the pipeline's reach view);
* :mod:`~spark_impl.storage.hadoop_fs`: files on any Hadoop path, from the driver.
"""
