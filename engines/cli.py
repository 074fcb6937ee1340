"""``incspec engines list | install NAME... | install --all | results | explore``: the shipped adapters
of released engines (:mod:`conformance.released_engines`), installed and run."""

from __future__ import annotations

import sys

from conformance.released_engines import install, shipped
from engines import results_page


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    engines = shipped()
    if args[:1] == ["list"]:
        for name, engine in engines.items():
            state = "installed" if engine.installed() else "not installed"
            print(f"{name:<16} {engine.installer}  {state}  ({engine.cache})")
        return 0
    if args[:1] == ["install"] and len(args) > 1:
        names = list(engines) if args[1:] == ["--all"] else args[1:]
        unknown = [n for n in names if n not in engines]
        if unknown:
            print(f"incspec engines: unknown engine {unknown[0]!r} (choose from {', '.join(engines)})",
                  file=sys.stderr)
            return 2
        for name in names:
            install(engines[name])
            print(f"{name}: installed in {engines[name].cache}")
        return 0
    if args[:1] == ["results"]:
        return results_page.main(args[1:])
    if args[:1] == ["explore"]:
        from engines import exploration

        return exploration.main(args[1:])
    print("usage: incspec engines {list | install NAME... | install --all | results [--out PAGE] | "
          "explore [--engine NAME] [--budget SECONDS]}",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
