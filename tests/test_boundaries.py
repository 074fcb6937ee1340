"""The import boundaries of the project's packages, read from their source.

The suite (``conformance``) judges implementations and never imports one; an
implementation reaches the suite only through its contract
(``conformance.protocols``) and its public API (``conformance.api``); the Spark
engines import no part of the suite at all (their adapters in
``spark_impl/protocol/`` translate their errors); the command line (``incspec``)
is imported by none of the programs it dispatches to, and they do not import
each other, but for the Spark adapters and the released-engine tooling
(``engines/``), which use the suite, and the static site (``site_builder``), which
shows the proofs map; the released engines' adapters import
nothing of the project. Inside ``spark_impl``, the packages by paper import no
other paper, only what they share. Lazy imports inside functions and
``importlib.import_module("...")`` calls count.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PUBLIC = {"conformance.protocols", "conformance.api"}
PROGRAMS = ("conformance", "check_reducer", "proofs_map", "spark_impl", "engines", "site_builder")
#: what a program may import of another: the Spark adapters and the engines' tooling use the
#: suite; the site shows the proofs map (it reads the case files and engine results as data)
ALLOWED = {("spark_impl", "conformance"), ("engines", "conformance"), ("site_builder", "proofs_map")}


def imports_in(source: str) -> Iterator[str]:
    """Every module a source imports, at any depth, or names to ``importlib.import_module``."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr == "import_module" and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            yield node.args[0].value


def imports_of(package: str, under: str = "") -> dict[str, set[str]]:
    """Per source file of ``package`` (or of its folder ``under``), what it imports."""
    base = ROOT / package / under
    return {str(p.relative_to(ROOT)): set(imports_in(p.read_text(encoding="utf-8")))
            for p in sorted(base.rglob("*.py"))}


def reaching(found: dict[str, set[str]], prefix: str) -> dict[str, set[str]]:
    """The files importing ``prefix`` or one of its modules, and what they import of it."""
    hits = {f: {m for m in ms if m == prefix or m.startswith(prefix + ".")} for f, ms in found.items()}
    return {f: ms for f, ms in hits.items() if ms}


def test_the_scanner_sees_every_kind_of_import() -> None:
    source = ("import spark_impl.session\nfrom conformance.conform import main\n"
              "def f():\n    from spark_impl import errors\n    importlib.import_module('proofs_map.cli')\n")
    found = set(imports_in(source))
    assert {"spark_impl.session", "conformance.conform", "spark_impl", "proofs_map.cli"} <= found
    assert reaching({"x.py": found}, "spark_impl") == {"x.py": {"spark_impl.session", "spark_impl",
                                                                "spark_impl.errors"}}


@pytest.mark.parametrize("implementation", ["spark_impl", "reference_impl"])
def test_the_suite_imports_no_implementation(implementation: str) -> None:
    assert reaching(imports_of("conformance"), implementation) == {}


def _outside_public(found: dict[str, set[str]]) -> dict[str, set[str]]:
    """Imports of ``conformance`` that are neither the protocols nor the public API
    (``from conformance.api import x`` also reads as the module ``conformance.api.x``)."""
    def public(m: str) -> bool:
        return any(m == p or m.startswith(p + ".") for p in PUBLIC)

    bad = {f: {m for m in ms if not public(m) and m != "conformance"} for f, ms in reaching(found, "conformance").items()}
    return {f: ms for f, ms in bad.items() if ms}


def test_spark_reaches_the_suite_only_through_its_protocols_and_public_api() -> None:
    assert _outside_public(imports_of("spark_impl")) == {}


def test_the_spark_engines_import_nothing_of_the_suite() -> None:
    adapters = {str(Path("spark_impl") / "conformance_adapter.py")}
    engines = {f: ms for f, ms in imports_of("spark_impl").items()
               if not f.startswith(str(Path("spark_impl") / "protocol")) and f not in adapters}
    assert reaching(engines, "conformance") == {}


def test_the_reference_implementation_reaches_the_suite_through_its_contract_and_vocabulary() -> None:
    bad = _outside_public(imports_of("reference_impl"))
    # the named reducers are the suite's vocabulary (conformance/vocabulary/reducers.json), which
    # conformance.reducers turns into reference reducers: the reference implementation's own
    assert {f: ms - {"conformance.reducers"} for f, ms in bad.items() if ms - {"conformance.reducers"}} == {}


#: spark_impl's packages by paper, and what they share
SPARK_PAPERS = ("reduce", "fixpoint", "zset", "stream")


@pytest.mark.parametrize("package", [*SPARK_PAPERS, "storage"])
def test_spark_papers_import_no_other_paper_nor_the_faces_above_them(package: str) -> None:
    """``spark_impl/reduce/``, ``fixpoint/``, ``zset/`` and ``stream/`` each import only
    themselves and what they share (``storage/``, ``errors``, ``values``, ``driver_rows``,
    ``join_scope``, ``conf_scope``); ``storage/`` imports no paper. None imports the pipeline, the session, the adapters."""
    found = imports_of("spark_impl", package)
    above = ("pipeline", "session", "protocol", "conformance_adapter")
    others = [p for p in SPARK_PAPERS if p != package] + list(above)
    for other in others:
        assert reaching(found, f"spark_impl.{other}") == {}, other


@pytest.mark.parametrize("program", PROGRAMS)
def test_the_programs_do_not_import_each_other_or_the_command_line(program: str) -> None:
    found = imports_of(program)
    assert reaching(found, "incspec") == {}
    for other in PROGRAMS:
        if other != program and (program, other) not in ALLOWED:
            assert reaching(found, other) == {}, other


def test_the_suite_imports_nothing_of_the_engines_tooling() -> None:
    """``engines/`` (``incspec engines``, the results page) runs the suite; the suite reads
    ``engines/*/engine.json`` itself (``conformance.released_engines``) and imports none of it."""
    assert reaching(imports_of("conformance"), "engines") == {}


def test_every_subcommand_of_the_command_line_resolves() -> None:
    """``incspec`` names its programs by ``module:function``; each must exist."""
    from incspec.cli import SUBCOMMANDS, _load

    assert set(SUBCOMMANDS) == {"proofs", "conform", "engines", "generate-cases", "check-reducer", "pipeline",
                                "site"}
    for target, _ in SUBCOMMANDS.values():
        assert callable(_load(target)), target


def test_the_engine_adapters_import_nothing_of_the_project() -> None:
    """An adapter in a folder of engines/ runs in the engine's own environment (pathway's
    virtual environment, Node): it speaks the protocol and imports no package of the project."""
    project = ("reference", "reference_impl", "conformance", "check_reducer", "proofs_map", "spark_impl", "incspec",
               "engines", "site_builder")
    found = {f: ms for f, ms in imports_of("engines").items() if len(Path(f).parts) > 2}
    assert found, "no adapter found under engines/"
    assert {f: ms for f, ms in found.items()
            if any(m == p or m.startswith(p + ".") for m in ms for p in project)} == {}
