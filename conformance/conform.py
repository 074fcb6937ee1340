"""``incspec conform``: run the conformance suite against an implementation.

Examples::

    incspec conform --impl reference
    incspec conform --impl mypkg.engine:implementation --area reduce --level must
    incspec conform --impl-cmd "node my_engine.js" --report json:report.json --report junit:junit.xml
    incspec conform --mutants
    incspec conform --engine pathway --explore found/ --budget 120

Exit status: 0 when no ``must`` case failed or errored, no listed known
failure passed and every listed known failure names a case; 1 otherwise; 2 on a
usage error.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from conformance import released_engines, reports
from conformance.adapters import Backend
from conformance.adapters.in_process import InProcess
from conformance.adapters.subprocess_impl import ProtocolError, SubprocessImplementation
from conformance.cases_model import Case
from conformance.driver import run_case
from conformance.execute import (
    Expectations,
    ExpectationsError,
    Outcome,
    execute,
    exit_status,
    unsupported_reason,
)
from conformance.implementations import ImplementationNotFound, registered, resolve
from conformance.loader import CaseFileError, Filter, load_cases, select
from conformance.protocols import AREAS, CaseResult

if TYPE_CHECKING:
    from conformance import stateful

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
                   help="instead of the cases: random operation sequences per area on the implementation "
                        "(--impl, --impl-cmd or --engine), each judged against the oracle; each distinct "
                        "divergence is shrunk and written as a regression case under DIR")
    p.add_argument("--examples", type=int, default=None,
                   help="state-machine runs per area (--explore; default 100, or no limit with --budget)")
    p.add_argument("--budget", type=float, metavar="SECONDS",
                   help="--explore: seconds of new examples, an equal share per area; no new example starts "
                        "once an area's share is spent (what was found is still shrunk, after it)")
    p.add_argument("--scaling", action="store_true",
                   help="instead of the cases: scaling probes, timing the engine's steps from outside as the "
                        "stored data grows (zset area; reduce and fixpoint for an engine declaring changes-only; "
                        "cost failure when step time grows with the data)")
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


def exploration(runner: stateful.CaseRunner, described: stateful.Described, areas: Sequence[str],
                regressions: Path, examples: int | None, budget: float | None,
                expectations: Path | None = None, cases_root: Path | None = None,
                out: TextIO | None = None) -> list[stateful.AreaExploration]:
    """Explore every area of ``areas`` (default: the implementation's) on ``runner``, the budget
    shared among them; print one line per area and per distinct divergence, with its case file."""
    from conformance import stateful

    out = out or sys.stdout
    hs = described.handshake()
    areas = [a for a in (areas or hs.areas) if a in hs.areas]
    known: dict[str, str] = {}
    if expectations is not None:
        listed = Expectations.read(expectations).known_failures
        replay = [c for c in load_cases(cases_root) if c.id in listed and c.area in areas and
                  not unsupported_reason(c, hs)]
        known = stateful.known_signatures(runner, replay, listed)
    results = []
    for area in areas:
        # each area its share of the budget for new examples; shrinking what it found comes after
        deadline = math.inf if budget is None else time.monotonic() + budget / len(areas)
        found = stateful.explore_all(runner, described, area, regressions, deadline=deadline,
                                     examples=examples if examples is not None or budget is not None else 100,
                                     known=known)
        ended = " (the budget ended the exploration)" if found.budget_ended and budget is not None else ""
        verdict = (f"{found.diverged} diverged, {len(found.divergences)} distinct divergence(s)"
                   if found.divergences
                   else "agrees with the oracle")
        out.write(f"{area}: {found.examples} examples over {', '.join(found.plans) or 'no plan'}; "
                  f"{verdict}{ended}\n")
        for d in found.divergences:
            known_text = f" [known cause: {d.known}]" if d.known else ""
            out.write(f"  {d.signature}: {d.path} ({d.steps} steps){known_text}\n"
                      f"    {d.message.splitlines()[0] if d.message else ''}\n")
        out.flush()
        results.append(found)
    return results


def process_backend(args: argparse.Namespace, timeout: float) -> tuple[SubprocessImplementation, Path | None] | int:
    """The engine of ``--engine`` or ``--impl-cmd`` as a process backend, with the expectations
    to judge it by (``--expectations``, else a shipped engine's own); 2 when the engine is unknown
    or not installed (said on standard error)."""
    if not args.engine:
        return SubprocessImplementation(args.impl_cmd, timeout=timeout), args.expectations
    try:
        argv_, shipped_expectations = released_engines.command(args.engine)
    except (KeyError, released_engines.EngineNotInstalled) as exc:
        print(f"incspec conform: {exc.args[0]}", file=sys.stderr)
        return 2
    return SubprocessImplementation(argv_, timeout=timeout), args.expectations or shipped_expectations


def explore(args: argparse.Namespace) -> int:
    """``--explore DIR``: random operation sequences per area on the implementation (``--impl``,
    ``--impl-cmd`` or ``--engine``), each judged against the oracle; 1 when one diverged."""
    timeout = args.timeout if args.timeout is not None else DEFAULT_TIMEOUT
    expectations: Path | None = args.expectations
    backend: SubprocessImplementation | None = None
    if args.engine or args.impl_cmd:
        resolved = process_backend(args, timeout)
        if isinstance(resolved, int):
            return resolved
        backend, expectations = resolved
        from conformance.stateful import backend_runner

        runner = backend_runner(backend)
        described: stateful.Described = backend
    else:
        name = args.impl or "reference"
        try:
            impl = resolve(name)
        except (ImplementationNotFound, ImportError, AttributeError) as exc:
            return cannot_load(name, exc)
        expectations = expectations or default_expectations(name)

        def runner(case: Case) -> CaseResult:  # fresh engine per case, in process
            return run_case(impl, case)

        described = impl
    try:
        found = exploration(runner, described, args.area, args.explore, args.examples, args.budget,
                            expectations, args.cases)
    except ProtocolError as exc:
        print(f"incspec conform: the implementation did not start: {exc}", file=sys.stderr)
        return 2
    except ExpectationsError as exc:
        print(f"incspec conform: {exc}", file=sys.stderr)
        return 2
    finally:
        if backend is not None:
            backend.close()
    return 1 if any(a.divergences for a in found) else 0


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
    """``--scaling``: the probes of :mod:`conformance.scaling`; 1 when one that ran did not pass."""
    from conformance import scaling

    try:
        results = scaling.run_probes(backend, progress=lambda name: print(f"probe {name}...", file=sys.stderr))
    except ProtocolError as exc:
        print(f"incspec conform: the implementation did not start: {exc}", file=sys.stderr)
        return 2
    finally:
        backend.close()
    sys.stdout.write(scaling.report(results))
    return 0 if all(r.passed or r.undeclared for r in results) else 1  # not declared: not probed, not failed


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
        return explore(args)
    backend: Backend
    if args.engine or args.impl_cmd:
        resolved = process_backend(args, args.timeout if args.timeout is not None else DEFAULT_TIMEOUT)
        if isinstance(resolved, int):
            return resolved
        backend, expectations_path = resolved
    else:
        name = args.impl or "reference"
        try:
            impl = resolve(name)
            backend = InProcess(impl, timeout=args.timeout if args.timeout is not None
                                else getattr(impl, "case_timeout", DEFAULT_TIMEOUT))
        except (ImplementationNotFound, ImportError, AttributeError) as exc:
            return cannot_load(name, exc)
        expectations_path = args.expectations or default_expectations(name)
    try:
        expectations = Expectations.read(expectations_path) if expectations_path else None
    except ExpectationsError as exc:
        print(f"incspec conform: {exc}", file=sys.stderr)
        backend.close()
        return 2
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
