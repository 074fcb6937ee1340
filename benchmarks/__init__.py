"""Benchmarks: incremental against full recomputation on Spark, side by side."""
