"""``incspec engines list | install NAME... | install --all | results | explore | scaling``: the shipped adapters
of released engines (:mod:`conformance.released_engines`), installed and run. A skeleton (an engine
whose server or crates cannot be installed here) is listed with what it misses, and ``install --all``
leaves it out."""

from __future__ import annotations

import subprocess
import sys

from conformance.released_engines import install, shipped
from engines import results_page


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    engines = shipped()
    if args[:1] == ["list"]:
        for name, engine in engines.items():
            state = "installed" if engine.installed() else "not installed"
            if engine.skeleton is not None:
                state = f"skeleton: {engine.missing() or 'its requirement is present'}"
            print(f"{name:<16} {engine.installer}  {state}  ({engine.cache})")
        return 0
    if args[:1] == ["install"] and len(args) > 1:
        names = ([n for n, e in engines.items() if e.skeleton is None] if args[1:] == ["--all"]
                 else args[1:])
        unknown = [n for n in names if n not in engines]
        if unknown:
            print(f"incspec engines: unknown engine {unknown[0]!r} (choose from {', '.join(engines)})",
                  file=sys.stderr)
            return 2
        for name in names:
            skeleton = engines[name].skeleton
            try:
                install(engines[name])
            except (subprocess.CalledProcessError, OSError) as exc:
                # the installer's own output (pip's, npm's) is above; one line says what failed
                why = f": {skeleton.reason}" if skeleton is not None else ""
                print(f"incspec engines: {name} could not be installed ({exc}){why}", file=sys.stderr)
                return 1
            print(f"{name}: installed in {engines[name].cache}")
        return 0
    if args[:1] == ["results"]:
        return results_page.main(args[1:])
    if args[:1] == ["explore"]:
        from engines import exploration

        return exploration.main(args[1:])
    if args[:1] == ["scaling"]:
        from engines import scaling_verdicts

        return scaling_verdicts.main(args[1:])
    print("usage: incspec engines {list | install NAME... | install --all | results [--out PAGE] | "
          "explore [--engine NAME] [--budget SECONDS] | scaling [--engine NAME]}",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
