"""The Spark JVM's class archive (spark_impl/class_archive.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from spark_impl import class_archive

pytestmark = pytest.mark.spark

#: the marker ``scripts/ensure-venv`` leaves once it tried to build the archive
TRIED = Path(sys.prefix) / ".incspec-class-archive"


def test_the_options_dump_in_the_training_process_map_an_archive_that_exists_and_else_are_none(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(class_archive.DUMP_ENV, raising=False)
    monkeypatch.delenv(class_archive.USE_ENV, raising=False)
    archive = tmp_path / "classes.jsa"
    monkeypatch.setattr(class_archive, "archive_path", lambda: archive)
    assert class_archive.java_options() == ""  # none built
    archive.write_bytes(b"")
    assert class_archive.java_options() == f"-XX:SharedArchiveFile={archive} {class_archive.QUIET}"
    monkeypatch.setenv(class_archive.USE_ENV, "0")
    assert class_archive.java_options() == ""
    monkeypatch.setenv(class_archive.DUMP_ENV, str(tmp_path / "aside"))
    assert class_archive.java_options() == f"-XX:ArchiveClassesAtExit={tmp_path / 'aside'} {class_archive.QUIET}"


@pytest.mark.parametrize(("master", "here"), [
    ("local[2]", True), ("local", True), ("spark://127.0.0.1:7077", True), ("spark://localhost:7077", True),
    ("spark://10.0.0.5:7077", False), ("spark://cluster:7077", False), ("yarn", False),
])
def test_executors_get_the_archive_only_on_this_machine(master: str, here: bool) -> None:
    assert class_archive.on_this_machine(master) is here


def test_the_archive_the_environment_built_fits_the_tests_driver_jvm(spark: Any) -> None:
    """The archive ``scripts/ensure-venv`` built fits the class path Spark's launcher gave this
    session's driver: a JVM on that class path told to map it or fail (``-Xshare:on``) starts.
    (A JVM it does not fit runs without it, silently: this is what says it is used.)"""
    archive = class_archive.archive_path()
    if not TRIED.exists() and not archive.exists():
        pytest.skip("this environment was not set up by scripts/ensure-venv (no class archive tried)")
    assert archive.is_file(), f"scripts/ensure-venv tried to build {archive}, and it is not there"
    assert f"-XX:SharedArchiveFile={archive}" in spark.sparkContext.getConf().get("spark.driver.extraJavaOptions")
    jvm = spark._jvm.java.lang.System
    java = Path(jvm.getProperty("java.home")) / "bin" / "java"
    started = subprocess.run([str(java), "-Xshare:on", f"-XX:SharedArchiveFile={archive}",
                              "-cp", jvm.getProperty("java.class.path"), "-version"],
                             capture_output=True, text=True)
    assert started.returncode == 0, started.stdout + started.stderr
    mismatched = subprocess.run([str(java), "-Xshare:on", f"-XX:SharedArchiveFile={archive}",
                                 "-cp", str(archive.parent), "-version"], capture_output=True, text=True)
    assert mismatched.returncode != 0  # the check can fail: another class path does not fit


def test_an_archive_is_renamed_into_place_only_once_whole(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A JVM mapping a partly written archive crashes: a failed training run leaves nothing at
    the archive's path, and nothing aside."""
    def failed(*args: Any, **kwargs: Any) -> subprocess.CompletedProcess[str]:
        (tmp_path / f".classes.jsa.{os.getpid()}").write_bytes(b"partial")
        return subprocess.CompletedProcess(args, 1, "", "boom")

    monkeypatch.setattr(class_archive.subprocess, "run", failed)
    with pytest.raises(RuntimeError, match="exit 1"):
        class_archive.build(tmp_path / "classes.jsa")
    assert list(tmp_path.iterdir()) == []
