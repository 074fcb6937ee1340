"""The proofs map: joins the catalog (``spec/``) to its evidence.

Evidence is derived from the code: every check declares the IDs it checks with
``@pytest.mark.spec(ID..., evidence=KIND, part=PART)``; this package reads those
markers from the test sources (statically, without running them), adds the
mechanized proofs the catalog cites, and computes each item's assurance level.
"""

from proofs_map.catalog import Item, load_catalog
from proofs_map.evidence import Check, collect_checks
from proofs_map.report import Entry, build_map

__all__ = ["Check", "Entry", "Item", "build_map", "collect_checks", "load_catalog"]
