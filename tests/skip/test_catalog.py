"""The Skip entries of the catalog point at objects that exist, and their IDs
follow PAPER-KIND-NUMBER with a kind token that matches the entry's kind."""

from __future__ import annotations

from proofs_map.catalog import load_catalog
from proofs_map.references import KIND_TOKEN, resolve


def test_every_skip_reference_resolves() -> None:
    items = [i for i in load_catalog().values() if i.id.startswith("SKIP-")]
    assert len(items) >= 37
    for item in items:
        assert item.id.split("-")[1] == KIND_TOKEN[item.kind], item.id
        assert item.reference, item.id
        for dotted in item.reference:
            assert resolve(dotted) is not None, (item.id, dotted)
