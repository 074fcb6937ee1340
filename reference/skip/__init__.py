"""The executable spec of C. Calcagno, *A Formal Semantics for Skip's Reactive
reduce Combinator* (Nov. 2025) and its earlier draft, split by the paper's
sections; :mod:`reference.reduce` re-exports it all. Catalog: ``spec/skip.toml``.

=================  ==============================================================
module             paper
=================  ==============================================================
``core``           §2-4: collections, folds, reduce, reducers, deltas, update
``commutativity``  §2.1-2.2: Def. 2 checker, Theorem 1 (both directions), Lemma 1
``wellformed``     §4.1, §5: Def. 7 and its two variants, Def. 11, Theorem 2
``partial``        §6.3 and SKIP-DEC-PARTIAL: declining removes, min and max
``view``           SKIP-DEC-VIEW: the observable view and the paper's total view
``builtins``       SKIP-DEC-BUILTINS: the registry of named reducers
``carriers``       finite carriers the checkers enumerate
``symbolic``       first-order int specialisations for CrossHair
=================  ==============================================================
"""
