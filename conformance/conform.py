"""``incspec conform``: run the conformance suite against an implementation.

Examples::

    incspec conform --impl reference
    incspec conform --impl mypkg.engine:implementation --area reduce --level must
    incspec conform --impl-cmd "node my_engine.js" --report json:report.json --report junit:junit.xml
    incspec conform --mutants

Exit status: 0 when no ``must`` case failed or errored, no listed known
failure passed and every listed known failure names a case; 1 otherwise; 2 on a
usage error.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path
from typing import TextIO

from conformance import released_engines, reports
from conformance.adapters import Backend
from conformance.adapters.in_process import InProcess
from conformance.adapters.subprocess_impl import ProtocolError, SubprocessImplementation
from conformance.execute import Expectations, Outcome, execute, exit_status
from conformance.implementations import ImplementationNotFound, registered, resolve
from conformance.loader import CaseFileError, Filter, load_cases, select
from conformance.protocols import AREAS

#: Seconds a case may run, unless the command line or the implementation says otherwise.
DEFAULT_TIMEOUT = 10.0
SYMBOLS = {"pass": ".", "fail": "F", "errored": "E", "skipped": "s", "unsupported": "-",
           "xfail": "x", "xpass": "X"}


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="incspec conform", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    who = p.add_mutually_exclusive_group()
    who.add_argument("--impl", help=f"module:attr, a registered name ({', '.join(sorted(registered()))}), "
                                    "or mutant/NAME")
    who.add_argument("--impl-cmd", help="a command speaking the JSON-lines protocol")
    who.add_argument("--engine", help="a released engine by its shipped adapter (engines/; "
                                      "install it first: incspec engines install NAME)")
    who.add_argument("--mutants", action="store_true", help="run the suite against every mutant; print the kill score")
    p.add_argument("--area", action="append", choices=AREAS, default=[], help="only this area (repeatable)")
    p.add_argument("--id", action="append", default=[], help="case ID, prefix or glob (repeatable)")
    p.add_argument("--feature", action="append", default=[], help="only cases needing this feature (repeatable)")
    p.add_argument("--level", action="append", choices=("must", "should"), default=[])
    p.add_argument("--cases", type=Path, help="a folder of case files (default: the shipped cases)")
    p.add_argument("--expectations", type=Path, help="known failures of this implementation (JSON)")
    p.add_argument("--timeout", type=float, default=None,
                   help=f"seconds per case (default {DEFAULT_TIMEOUT:g}, or the in-process "
                        "implementation's own case_timeout)")
    p.add_argument("--report", action="append", default=[], metavar="FORMAT[:PATH]",
                   help="json, markdown or junit, to stdout or PATH (repeatable); default: a table")
    p.add_argument("--explore", type=Path, metavar="DIR",
                   help="instead of the cases: stateful differential testing of an in-process --impl; "
                        "each divergence is shrunk and written as a regression case under DIR")
    p.add_argument("--examples", type=int, default=100, help="state-machine runs per area (--explore)")
    p.add_argument("--scaling", action="store_true",
                   help="instead of the cases: scaling probes, timing the engine's steps from outside as the "
                        "stored data grows (zset area; cost failure when step time grows with the data)")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("-v", "--verbose", action="store_true", help="list every case that did not pass")
    return p


def default_expectations(name: str) -> Path | None:
    path = Path(str(resources.files("conformance").joinpath("expectations", f"{name}.json")))
    return path if path.is_file() else None


def progress_printer(total: int, stream: TextIO) -> Callable[[Outcome], None]:
    count = [0]

    def show(outcome: Outcome) -> None:
        count[0] += 1
        stream.write(SYMBOLS[outcome.status])
        if count[0] % 72 == 0 or count[0] == total:
            stream.write(f" {count[0]}/{total}\n")
        stream.flush()

    return show


def write_reports(specs: Sequence[str], text: Callable[[str], str], out: TextIO) -> None:
    for spec in specs:
        fmt, _, path = spec.partition(":")
        body = text(fmt)
        if path:
            Path(path).write_text(body, encoding="utf-8")
        else:
            out.write(body)


def explore(name: str, areas: Sequence[str], regressions: Path, examples: int) -> int:
    """Run the state machines of :mod:`conformance.stateful` on every supported area."""
    from hypothesis import settings

    from conformance import stateful

    impl = resolve(name)
    found = 0
    for area in areas or impl.handshake().areas:
        config = settings(max_examples=examples, stateful_step_count=stateful.DEFAULT_STEPS,
                          deadline=None, phases=stateful.PHASES)
        divergence = stateful.explore(impl, area, regressions, config)
        print(f"{area}: {'agrees with the oracle' if divergence is None else divergence}")
        found += divergence is not None
    return 1 if found else 0


def importable_from_here() -> None:
    """Let ``--impl mymodule:attr`` find a module in the current directory, as
    ``python -m`` would (an installed ``incspec`` script does not put it on the path)."""
    here = os.getcwd()
    if here not in sys.path and "" not in sys.path:
        sys.path.insert(0, here)


def cannot_load(name: str, exc: Exception) -> int:
    hint = (" (run from the folder that holds the module, or put it on PYTHONPATH)"
            if isinstance(exc, ModuleNotFoundError) else "")
    print(f"incspec conform: cannot load implementation {name!r}: {exc}{hint}", file=sys.stderr)
    return 2


def scaling_main(backend: Backend) -> int:
    """``--scaling``: the probes of :mod:`conformance.scaling`; 1 when one fails."""
    from conformance import scaling

    try:
        results = scaling.run_probes(backend, progress=lambda name: print(f"probe {name}...", file=sys.stderr))
    except ProtocolError as exc:
        print(f"incspec conform: the implementation did not start: {exc}", file=sys.stderr)
        return 2
    finally:
        backend.close()
    sys.stdout.write(scaling.report(results))
    return 0 if all(r.passed for r in results) else 1


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    importable_from_here()
    for spec in args.report:
        if spec.partition(":")[0] not in reports.FORMATS:
            print(f"incspec conform: unknown report format in {spec!r} "
                  f"(choose from {', '.join(reports.FORMATS)})", file=sys.stderr)
            return 2
    try:
        every_case = load_cases(args.cases)
        cases = select(every_case, Filter(args.area, args.id, args.feature, args.level))
    except CaseFileError as exc:
        print(f"incspec conform: {exc}", file=sys.stderr)
        return 2
    if args.mutants:
        from conformance.kill_score import main as mutants_main

        return mutants_main(cases, sys.stdout)
    if args.explore:
        try:
            return explore(args.impl or "reference", args.area, args.explore, args.examples)
        except (ImplementationNotFound, ImportError, AttributeError) as exc:
            return cannot_load(args.impl or "reference", exc)
    backend: Backend
    if args.engine:
        try:
            argv_, shipped_expectations = released_engines.command(args.engine)
        except (KeyError, released_engines.EngineNotInstalled) as exc:
            print(f"incspec conform: {exc.args[0]}", file=sys.stderr)
            return 2
        backend = SubprocessImplementation(argv_, timeout=args.timeout if args.timeout is not None else DEFAULT_TIMEOUT)
        expectations_path = args.expectations or shipped_expectations
    elif args.impl_cmd:
        backend = SubprocessImplementation(args.impl_cmd, timeout=args.timeout if args.timeout is not None else DEFAULT_TIMEOUT)
        expectations_path = args.expectations
    else:
        name = args.impl or "reference"
        try:
            impl = resolve(name)
            backend = InProcess(impl, timeout=args.timeout if args.timeout is not None
                                else getattr(impl, "case_timeout", DEFAULT_TIMEOUT))
        except (ImplementationNotFound, ImportError, AttributeError) as exc:
            return cannot_load(name, exc)
        expectations_path = args.expectations or default_expectations(name)
    expectations = Expectations.read(expectations_path) if expectations_path else None
    unknown = sorted(set(expectations.known_failures) - {c.id for c in every_case}) if expectations else []
    for case_id in unknown:
        print(f"incspec conform: {expectations_path}: {case_id} is no case (its content, hence its ID, "
              "changed?): a stale known failure", file=sys.stderr)
    if args.scaling:
        return scaling_main(backend)
    show = None if args.no_progress else progress_printer(len(cases), sys.stderr)
    try:
        hs, outcomes = execute(backend, cases, expectations, show)
    except ProtocolError as exc:
        print(f"incspec conform: the implementation did not start: {exc}", file=sys.stderr)
        return 2
    finally:
        backend.close()
    log = getattr(backend, "log_path", None)
    write_reports(args.report or [], lambda fmt: reports.FORMATS[fmt](hs, outcomes, log), sys.stdout)
    table = reports.text(hs, outcomes, verbose=args.verbose)
    (sys.stderr if any(":" not in r for r in args.report) else sys.stdout).write(table)
    return max(exit_status(outcomes), 1 if unknown else 0)


if __name__ == "__main__":
    sys.exit(main())
