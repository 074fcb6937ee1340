"""M. Abadi, F. McSherry, G. Plotkin, *Foundations of Differential Dataflow*
(FoSSaCS 2015): the executable spec (catalog: ``spec/differential.toml``, IDs ``DD-*``).

Modules follow the paper's sections:

- :mod:`~reference.differential.orders`: §2.2 locally finite partial orders;
- :mod:`~reference.differential.mobius`: §2.2 Möbius function, streams, ``δ_T``, ``S_T``;
- :mod:`~reference.differential.differentials`: §2.3 function differentials, Propositions 1-2;
- :mod:`~reference.differential.loops`: §3 loops, Proposition 3;
- :mod:`~reference.differential.language`: §4 the language, its two semantics, Theorem 1;
- :mod:`~reference.differential.priorities`: §5 iteration with input at each step;
- :mod:`~reference.differential.operators`, :mod:`~reference.differential.dataflow`:
  the Z-set dataflow language of the conformance suite and its incremental rules.

The groups with linear inverses of §2.1 are in :mod:`reference.algebra.group`.
"""
