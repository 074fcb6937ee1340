"""Heading anchors as GitHub writes them, so that the guides' ``#anchor`` links hold on the
site too (MkDocs' table of contents is configured with :func:`github`)."""

from __future__ import annotations

import re


def github(value: str, separator: str = "-") -> str:
    """Lower case, punctuation dropped (``_`` and ``-`` kept), each space a ``separator``."""
    return re.sub(r"[^\w\- ]", "", value.strip().lower()).replace(" ", separator)
