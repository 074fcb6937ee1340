"""The MkDocs configuration of the site, and the build (in this process)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

NAME = "incspec"
CSS = """
.badge { display: inline-block; padding: 0 .45em; margin-right: .25em; border-radius: .6em;
         font-size: .7rem; line-height: 1.5; background: #e0e0e0; color: #222; }
.badge-symbolic, .badge-exhaustive { background: #c8e6c9; }
.badge-property { background: #bbdefb; }
.badge-example { background: #fff9c4; }
.badge-mechanized { background: #d1c4e9; }
.badge-none { background: #ffcdd2; }
.badge-status { background: #eceff1; font-style: italic; }
.matrix-filter label { margin-right: 1.5em; }
.engine-matrix { font-size: .65rem; border-collapse: collapse; }
.engine-matrix td, .engine-matrix th { padding: .15em .5em; border-bottom: 1px solid #ddd; }
.cell-pass { background: #e8f5e9; }
.cell-xfail, .cell-fail, .cell-errored, .cell-xpass { background: #ffebee; }
.cell-cost-fail { outline: 2px solid #ef9a9a; }
.cell-unsupported, .cell-skipped { color: #888; }
"""


def config(nav: list[object], docs_dir: Path, site_dir: Path) -> dict[str, object]:
    return {
        "site_name": NAME,
        "docs_dir": str(docs_dir),
        "site_dir": str(site_dir),
        "use_directory_urls": False,  # pages are files: relative links hold, served or opened
        "theme": {"name": "material", "font": False, "features": ["search.highlight", "navigation.sections"]},
        "plugins": ["search"],
        "extra_css": ["assets/site.css"],
        "markdown_extensions": ["attr_list", "tables", "md_in_html", "admonition",
                                {"toc": {"permalink": True, "slugify": "site_builder.slugs.github"}}],
        # a link to a file of the repository leaves the site (site_builder.linkcheck checks it)
        "validation": {"links": {"not_found": "info", "anchors": "warn", "unrecognized_links": "info",
                                 "absolute_links": "info"}, "nav": {"omitted_files": "info"}},
        "nav": nav,
    }


def yaml_text(cfg: dict[str, object]) -> str:
    """The configuration as YAML (JSON is YAML), the slugify function by its import name."""
    text = json.dumps(cfg, indent=1, ensure_ascii=False)
    return text.replace('"site_builder.slugs.github"', "!!python/name:site_builder.slugs.github")


def build(config_file: Path, strict: bool = True) -> None:
    """Run MkDocs on ``config_file``; with ``strict``, a warning (a broken link) fails the build."""
    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config

    logging.getLogger("mkdocs").setLevel(logging.WARNING)
    cfg = load_config(config_file=str(config_file), strict=strict)
    mkdocs_build(cfg)
