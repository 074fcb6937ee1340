"""The zip of the project's packages an executor imports (spark_impl/shipping.py): closed
under the project's imports, importable with nothing of the project on the path, the same
bytes for the same sources."""

from __future__ import annotations

import ast
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from spark_impl.shipping import SHIPPED, package_zip, zip_bytes

ROOT = Path(__file__).resolve().parents[2]


def project_packages() -> set[str]:
    return {p.parent.name for p in ROOT.glob("*/__init__.py")}


def imported_tops(source: str) -> set[str]:
    tops: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            tops |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            tops.add(node.module.split(".")[0])
    return tops


def test_the_shipped_packages_import_no_other_project_package() -> None:
    """Every module in the zip imports, of the project's packages, only shipped ones (an
    executor unpickling a function of a module that imports another would fail there)."""
    ours = project_packages()
    assert set(SHIPPED) <= ours
    with zipfile.ZipFile(package_zip()) as archive:
        names = archive.namelist()
        assert {n.split("/")[0] for n in names} == set(SHIPPED)
        missing = {n: sorted((imported_tops(archive.read(n).decode()) & ours) - set(SHIPPED)) for n in names}
    assert not {n: m for n, m in missing.items() if m}


def test_an_interpreter_without_the_project_imports_the_engines_from_the_zip(tmp_path: Path) -> None:
    """An isolated interpreter (no PYTHONPATH, no working folder on its path) run elsewhere
    imports the fold reducer's module and the fixpoint engine from the zip alone."""
    pytest.importorskip("pyspark", reason="the Spark extra is not installed")
    archive = package_zip()
    probe = ("import sys; sys.path.insert(0, sys.argv[1]); "
             "import spark_impl.reduce.maintained_view as m, spark_impl.fixpoint.reachability as r; "
             "print(m.__file__); print(r.__file__)")
    done = subprocess.run([sys.executable, "-I", "-c", probe, archive], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [f"{archive}/spark_impl/reduce/maintained_view.py",
                                   f"{archive}/spark_impl/fixpoint/reachability.py"]


def test_the_same_sources_give_the_same_zip() -> None:
    """Entries sorted and undated: the zip's name (its digest) changes only with the sources."""
    assert zip_bytes() == zip_bytes()
    assert package_zip() == package_zip()
    with zipfile.ZipFile(package_zip()) as archive:
        names = archive.namelist()
        assert {archive.getinfo(n).date_time for n in names} == {(1980, 1, 1, 0, 0, 0)}
        assert "spark_impl/reduce/keyed_fold.py" in names and not [n for n in names if "__pycache__" in n]
