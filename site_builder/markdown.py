"""Small Markdown and HTML writers shared by the pages."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Sequence
from typing import Any


def cell(text: str) -> str:
    """Text for a table cell: no line breaks, pipes escaped."""
    return text.replace("|", "\\|").replace("\n", " ")


def code(value: Any) -> str:
    """A JSON value as inline code (empty cell for None)."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    fence = "``" if "`" in text else "`"
    return f"{fence}{cell(text)}{fence}"


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    if not rows:
        return []
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
            *("| " + " | ".join(r) + " |" for r in rows), ""]


def badge(text: str, kind: str) -> str:
    return f'<span class="badge badge-{html.escape(kind)}">{html.escape(text)}</span>'


def quote(text: str) -> list[str]:
    return [f"> {line}".rstrip() for line in text.splitlines()] + [""]


def escape(text: str) -> str:
    return html.escape(text, quote=True)


SPECIAL = re.compile(r"([\\\[\]*_])")


def literal(text: str) -> str:
    """Prose shown as written: Markdown's emphasis and link brackets escaped outside code
    spans (a statement's ``D[[Γ]](α)`` is no link), ``<`` and ``&`` as entities."""
    parts = re.split(r"(`+[^`]*?`+)", text)
    return "".join(p if p.startswith("`") else html.escape(SPECIAL.sub(r"\\\1", p), quote=False)
                   for p in parts)
