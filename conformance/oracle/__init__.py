"""Thin adapters from the suite's case format to the oracles in ``reference/``.

Each module turns a case's operations into the observations the reference
prescribes. The suite owns the format; ``reference/`` owns the semantics.
"""
