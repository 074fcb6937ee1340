"""The implementation-agnostic conformance suite, with ``reference/`` as its oracle."""
