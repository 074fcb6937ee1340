"""T. Hou, M. Arntzenius, M. Willsey, *Stream programs are monoid homomorphisms
with state* (2025): the executable spec (catalog: ``spec/stream.toml``).

Modules follow the paper's sections:

- :mod:`.preliminaries` (§3.0)   small finite monoids, Example 3.12, composition of homomorphisms
- :mod:`.functions`     (§3.1)   stream functions, Theorem 3.18 (decomposition)
- :mod:`.processors`    (§3.2)   stream processors, ``run``, ``pure``
- :mod:`.sequential`    (§3.3)   ``;``, fusion, ``eval``, ``f_*``, exchange
- :mod:`.equivalence`            the reusable equivalence checker (every batching)
- :mod:`.integral`      (§3.4)   discrete integral and derivative
- :mod:`.parallel`      (§3.5)   products, ``merge``, splitters, ``Pairs``
- :mod:`.joins`         (§2, §3.6) independent inputs, join partitioning
- :mod:`.ticks`         (§3.7)   ticked streams and stratified set difference
- :mod:`.feedback`      (§3.8)   ``loop`` and tightening
- :mod:`.tcp`           (§3.9)   the TCP model
- :mod:`.representations` (§4)   full adder, defunctionalization, bounded static variation
- :mod:`.progress`      (§5.2)   streaming progress: preserving the terminator
- :mod:`.rewriting`              the equational laws over a small expression syntax
- :mod:`.named`                  named processors for the conformance suite
"""
