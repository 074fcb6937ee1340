"""The fixpoint entries of the catalog point at objects that exist, and their
IDs follow PAPER-KIND-NUMBER with a kind token that matches the entry's kind."""

from __future__ import annotations

from proofs_map.catalog import load_catalog
from proofs_map.references import KIND_TOKEN, resolve

#: Prose-only entries of the paper (a remark on proof status, a summary table, related
#: work, future work): nothing in the reference implements them.
WITHOUT_REFERENCE = {"FIX-REM-3.3.3", "FIX-EX-4.6", "FIX-REM-5.3", "FIX-REM-8"}


def test_every_fixpoint_reference_resolves_and_ids_carry_their_kind() -> None:
    items = [i for i in load_catalog().values() if i.id.startswith("FIX-")]
    assert len(items) >= 60
    for item in items:
        assert item.id.split("-")[1] == KIND_TOKEN[item.kind], item.id
        if item.id in WITHOUT_REFERENCE:
            assert not item.reference, item.id
            continue
        assert item.reference, item.id
        for dotted in item.reference:
            assert resolve(dotted) is not None, (item.id, dotted)
