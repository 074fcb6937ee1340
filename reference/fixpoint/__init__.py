"""*Incremental Fixpoint Computation: A Two-Level Architecture*: the executable
spec. Catalog: ``spec/fixpoint.toml`` (IDs ``FIX-*``).

Modules follow the paper's sections:

==========================  ==================================================
``general_pattern``         §1-2, §3.1.2: F(S) = base ∪ step(S), lfp (Kleene)
``formal_definitions``      §3.4: rank, wf-derivation, semi-naive, wf-cascade
``algorithms``              §3.2: expansion and contraction (corrected)
``printed``                 §3.2 exactly as printed (evidence, not spec)
``level1``                  §3.1: the simple and full Level 1 APIs
``managed``                 §3.1.4: the managed API (owns the step relation)
``required_properties``     §3.1.4: user obligations as checkers
``correctness``             §3.3: the rank invariant and theorem checkers
``worked_example``          §4: the DCE graphs of §4.1-4.5
``dsl``                     §5: the Level 2 DSL with derived incremental ops
``programs``                §6: programs of the DSL (DCE, call graph, ...)
``stratification``          §8: stratified fixpoints with negation (extension)
==========================  ==================================================
"""
