"""The suite's own command line, for ``python -m conformance.cli COMMAND ...``.

The same commands are ``incspec conform`` and ``incspec generate-cases`` (the
project's command line, :mod:`incspec.cli`); this entry needs only the suite.
"""

from __future__ import annotations

import sys

from conformance import generate, runner

COMMANDS = {"conform": runner.main, "generate-cases": generate.main}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in COMMANDS:
        print(f"usage: python -m conformance.cli {{{','.join(COMMANDS)}}} [ARGS...]", file=sys.stderr)
        return 2
    return COMMANDS[argv[0]](argv[1:])


if __name__ == "__main__":
    sys.exit(main())
