"""The project's Python packages as one zip, for the executors of a cluster.

On a local master the Python workers run on the driver's machine, with its
``sys.path``. On a cluster an executor's Python worker imports what the driver
pickled by reference (a fold reducer's :class:`~spark_impl.reduce.keyed_fold.KeyedFold`,
its ``add`` and ``remove``, the engines' UDFs) from its own path: the executor's
working folder (where Spark puts the files added by ``addPyFile``), ``pyspark.zip``
and whatever its machine installed. :func:`package_zip` writes the packages the
engines import (their ``.py`` files, from wherever this process imports them) into
one zip, named by its content's digest; :func:`ship` adds it to a session, so an
executor needs neither the project installed nor the driver's paths.
"""

from __future__ import annotations

import hashlib
import importlib.util
import io
import os
import tempfile
import zipfile
from typing import Any

#: ``spark_impl`` and the project's packages it imports (``protocol/`` imports the suite's
#: ``conformance``, which imports ``reference``): tests/cluster/test_shipping.py checks that
#: nothing in them imports another of the project's packages.
SHIPPED: tuple[str, ...] = ("spark_impl", "conformance", "reference")


def package_folder(name: str) -> str:
    """The folder this process imports package ``name`` from."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(f"package {name!r} is not importable here: it cannot be shipped")
    return os.path.abspath(next(iter(spec.submodule_search_locations)))


def zip_bytes(packages: tuple[str, ...] = SHIPPED) -> bytes:
    """A zip of the packages' ``.py`` files under their package paths (``spark_impl/...``),
    entries sorted and dated 1980, so the same sources give the same bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in packages:
            folder = package_folder(name)
            base = os.path.dirname(folder)
            for root, dirs, files in os.walk(folder):
                dirs[:] = sorted(d for d in dirs if d != "__pycache__")
                for file in sorted(f for f in files if f.endswith(".py")):
                    path = os.path.join(root, file)
                    entry = zipfile.ZipInfo(os.path.relpath(path, base).replace(os.sep, "/"))
                    entry.compress_type = zipfile.ZIP_DEFLATED
                    with open(path, "rb") as source:
                        archive.writestr(entry, source.read())
    return buffer.getvalue()


def package_zip(packages: tuple[str, ...] = SHIPPED) -> str:
    """The zip of :func:`zip_bytes` as a file of the temp folder named by its digest (a
    file Spark serves by name: a changed source gets a new name), written aside, then
    renamed (another process may be reading it)."""
    data = zip_bytes(packages)
    path = os.path.join(tempfile.gettempdir(), f"incspec-packages-{hashlib.sha256(data).hexdigest()[:16]}.zip")
    if not os.path.exists(path):
        aside = f"{path}.{os.getpid()}"
        with open(aside, "wb") as out:
            out.write(data)
        os.replace(aside, path)
    return path


def ship(spark: Any, packages: tuple[str, ...] = SHIPPED) -> str:
    """Add the packages' zip to ``spark``'s Python path on every executor; returns the zip."""
    path = package_zip(packages)
    spark.sparkContext.addPyFile(path)
    return path
