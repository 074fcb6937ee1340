"""Engines speaking :mod:`conformance.protocols`: JSON values in and out, Spark inside."""
