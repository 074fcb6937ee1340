"""The executable reference specification.

One module (or folder) per paper, names as in the paper; shared algebra in
:mod:`reference.algebra`. Pure, immutable and deterministic: no I/O, no global
state. Docstrings cite the catalog IDs of ``spec/``.
"""
