"""``incspec site build [--out site/] [--small] [--repo-url URL] [--markdown DIR]``."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from site_builder import linkcheck
from site_builder.build import Options, build
from site_builder.paths import ROOT


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="incspec site", description="generate the project's static site")
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="write the Markdown pages and run MkDocs on them")
    b.add_argument("--out", type=Path, default=ROOT / "site", help="the site's folder (default: site/)")
    b.add_argument("--small", action="store_true", help="a few items and cases per area, in seconds (CI)")
    b.add_argument("--repo-url", default="",
                   help="base URL of the repository's files (e.g. https://github.com/OWNER/REPO/blob/main/); "
                        "default: relative links, the site being in site/ at the repository's root")
    b.add_argument("--markdown", type=Path, help="keep the generated Markdown and mkdocs.yml in this folder")
    args = p.parse_args(argv)
    started = time.perf_counter()
    options = Options(out=args.out, small=args.small, repo_url=args.repo_url)
    try:
        with tempfile.TemporaryDirectory(prefix="incspec-site-") as tmp:
            work = args.markdown or Path(tmp)
            build(options, work)
            problems = linkcheck.broken(work / "docs", options.root)
    except ModuleNotFoundError as exc:
        print(f"incspec site: {exc}; install the site extra: pip install -e '.[site]'", file=sys.stderr)
        return 2
    for problem in problems:
        print(f"incspec site: broken link: {problem}", file=sys.stderr)
    print(f"incspec site: wrote {args.out} in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return 1 if problems else 0
