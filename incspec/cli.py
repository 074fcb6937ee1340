"""``incspec``: the project's one command-line program.

Subcommands are found by name at run time (``module:function``), so this
module imports none of the programs it dispatches to, and they do not import
each other: ``incspec pipeline`` works only where the Spark extra is installed,
and nothing else depends on it.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable

#: subcommand -> (target "module:function" taking argv and returning an exit status, help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "proofs": ("proofs_map.__main__:main", "print the proofs map (--check, --json)"),
    "conform": ("conformance.conform:main", "run the conformance suite against an implementation"),
    "engines": ("engines.cli:main", "install and run released engines by their shipped adapters"),
    "generate-cases": ("conformance.generate:main", "regenerate the generated case files from reference/"),
    "check-reducer": ("check_reducer.cli:main", "check a custom reducer before trusting it"),
    "pipeline": ("spark_impl.pipeline:main", "maintain views over change batches on Spark"),
    "site": ("site_builder.cli:main", "build the static site from the repository (site build [--small])"),
}


def _load(target: str) -> Callable[[list[str]], int]:
    module, _, attr = target.partition(":")
    fn: Callable[[list[str]], int] = getattr(importlib.import_module(module), attr)
    return fn


def usage() -> str:
    width = max(map(len, SUBCOMMANDS))
    rows = "\n".join(f"  {name:<{width}}  {help_}" for name, (_, help_) in SUBCOMMANDS.items())
    return f"usage: incspec SUBCOMMAND [ARGS...]\n\nsubcommands:\n{rows}\n"


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(usage(), end="")
        return 0 if argv else 2
    name, rest = argv[0], argv[1:]
    if name not in SUBCOMMANDS:
        print(f"incspec: unknown subcommand {name!r}\n\n{usage()}", end="", file=sys.stderr)
        return 2
    try:
        run = _load(SUBCOMMANDS[name][0])
    except ImportError as exc:
        print(f"incspec {name}: not available here ({exc}); "
              "install the project with its extras: pip install -e '.[all]'", file=sys.stderr)
        return 2
    return run(rest)


if __name__ == "__main__":
    sys.exit(main())
